"""The robust plan (issue 27) in words, for the plan page and the CLI: the decision now, and
what the expected PV, the CVaR, the EVPI and the VSS mean for this plan."""
from __future__ import annotations

from typing import Optional

from service.i18n import N_, formats, gettext as _, ngettext


def robust_entry(doc: Optional[dict]) -> Optional[dict]:
    """The robust plan of a plan document: ``strategies.robust`` (a document stored before it
    was a strategy has it as the top-level ``robust``); None without one."""
    doc = doc or {}
    return (doc.get("strategies") or {}).get("robust") or doc.get("robust")


def bought(decisions: list[dict]) -> int:
    """Servers a list of schedule entries buys, every type together.

    Parameters
    ----------
    decisions : list of dict
        Schedule entries of the plan document (``buy`` per type, or ``buy_servers``).

    Returns
    -------
    int
        Servers [servers].
    """
    return sum(sum(d["buy"].values()) if "buy" in d else d["buy_servers"] for d in decisions)


def schedule_text(schedule: list[dict]) -> str:
    """A scenario's purchases in one line: "2027-01 +5, 2028-01 +2" (- for none)."""
    return ", ".join(f"{d['month']} +{bought([d])}" for d in schedule if bought([d])) or "-"


# the paths a plan without demand scenarios gets from its growth range (models/robust.py)
RANGE_NAMES = {"low": N_("low growth"), "likely": N_("most likely growth"),
               "high": N_("high growth")}


def scenario_name(r: dict, name: str) -> str:
    """A demand scenario's name as the reader sees it: the user's own, or for the paths of
    the growth range their words in the reader's language."""
    if r.get("scenarios_from_range") and name in RANGE_NAMES:
        return _(RANGE_NAMES[name])
    return name


def committed(decisions: list[dict]) -> int:
    """GPUs a list of schedule entries commits, every offer together [GPUs]."""
    return sum(sum(d["commit"].values()) for d in decisions)


def decision_now(r: dict) -> str:
    """The decision now in a sentence: "Decide now (through 2027-12): buy 4 servers in
    2027-01. Later, as demand grows 10 % / 50 % / 100 % a year: 0 / 4 / 10 more servers."

    Parameters
    ----------
    r : dict
        The plan document's ``robust`` section.

    Returns
    -------
    str
        The sentence, in the current language.
    """
    until = r["decide_now_until"]
    now = [ngettext("buy %(count)s server in %(month)s", "buy %(count)s servers in %(month)s",
                    bought([d]), count=bought([d]), month=d["month"])
           for d in r["common"] if bought([d])]
    now += [_("commit %(gpus)s GPUs in %(month)s", gpus=committed([d]), month=d["month"])
            for d in r["common"] if committed([d])]
    later = [bought([d for d in q["schedule"] if d["month"] > until]) for q in r["scenarios"]]
    later_gpus = [committed([d for d in q["schedule"] if d["month"] > until])
                  for q in r["scenarios"]]
    growths = " / ".join(formats.percent(q["growth_annual"], 0) for q in r["scenarios"])
    text = _("Decide now (through %(until)s): %(now)s.", until=until,
             now="; ".join(now) or _("buy nothing and commit nothing"))
    text += " " + _("Later, as demand grows %(growths)s a year: %(servers)s more servers.",
                    growths=growths, servers=" / ".join(map(str, later)))
    if any(later_gpus):
        text += " " + _("GPUs committed later: %(gpus)s.", gpus=" / ".join(map(str, later_gpus)))
    return text


def risk_words(r: dict, currency: str) -> list[str]:
    """Expected PV, CVaR, EVPI and VSS in sentences.

    Parameters
    ----------
    r : dict
        The plan document's ``robust`` section.
    currency : str
        The reporting currency.

    Returns
    -------
    list of str
        One sentence each (EVPI and VSS only when computed).
    """
    def money(v: float) -> str:
        return formats.money(v, currency)

    out = [_("Expected PV cost over the scenarios: %(expected)s (each scenario's PV times its "
             "probability).", expected=money(r["expected_pv"])),
           _("CVaR at %(alpha)s: %(cvar)s, the mean PV of the dearest %(tail)s of outcomes; "
             "risk weight %(weight)s (0: least expected PV, 1: least CVaR).",
             alpha=formats.percent(r["cvar_alpha"], 0), cvar=money(r["cvar"]),
             tail=formats.percent(1 - r["cvar_alpha"], 0),
             weight=formats.number(r["cvar_weight"], 2))]
    gap = r.get("gap") or 0.0
    if gap > 0:
        # a time-limited plan is at most ``gap`` above the optimum: the EVPI measured from it
        # is at most that much too high, the VSS at most that much too low (and may be < 0)
        out.insert(0, _("Not proven optimal: the plan's objective is within %(gap)s of the "
                        "least possible; the EVPI and VSS below may be off by as much.",
                        gap=money(gap)))
    if r.get("evpi") is not None:
        if gap > 0:
            out.append(_("EVPI between %(low)s and %(evpi)s: what knowing now which scenario "
                         "comes would save.", low=money(max(r["evpi"] - gap, 0.0)),
                         evpi=money(r["evpi"])))
        else:
            out.append(_("EVPI %(evpi)s: what knowing now which scenario comes would save.",
                         evpi=money(r["evpi"])))
    alt = r.get("alternative")
    if alt:
        common = [d for d in alt["scenarios"][0]["schedule"] if d["month"] <= r["decide_now_until"]]
        out.append(ngettext(
            "Within %(within)s of the least expected PV, the plan with the least capital in "
            "its first year buys %(servers)s server by %(until)s: %(capital)s in year one, "
            "expected PV %(expected)s.",
            "Within %(within)s of the least expected PV, the plan with the least capital in "
            "its first year buys %(servers)s servers by %(until)s: %(capital)s in year one, "
            "expected PV %(expected)s.", bought(common),
            within=formats.percent(alt["within"], 0), servers=bought(common),
            until=r["decide_now_until"], capital=money(alt["year_one_capital"]),
            expected=money(alt["expected_pv"])))
    if r.get("vss") is not None and r["vss"] < 0 and gap <= 0:
        # the plan minimises (1 - w) E[PV] + w CVaR: with w > 0 it may pay expected PV for a
        # lower CVaR, and the VSS, measured on expected PV, is then a cost (issue 37)
        out.append(_("Planning for every scenario costs %(more)s more in expected PV than "
                     "planning for %(base)s alone and adapting later (VSS %(vss)s).",
                     more=money(-r["vss"]), vss=money(r["vss"]),
                     base=scenario_name(r, r["base"]))
                   + (" " + _("It buys a lower risk instead: the plan minimises (1 - %(w)s) x "
                              "expected PV + %(w)s x CVaR, not the expected PV alone.",
                              w=formats.number(r["cvar_weight"], 2))
                      if r.get("cvar_weight") else ""))
    elif r.get("vss") is not None:
        if gap > 0:
            out.append(_("VSS between %(vss)s and %(high)s: what planning for every scenario "
                         "saves over planning for %(base)s alone and adapting later.",
                         vss=money(r["vss"]), high=money(r["vss"] + gap),
                         base=scenario_name(r, r["base"])))
        else:
            out.append(_("VSS %(vss)s: what planning for every scenario saves over planning "
                         "for %(base)s alone and adapting later.", vss=money(r["vss"]),
                         base=scenario_name(r, r["base"])))
    if r.get("evpi") is not None or r.get("vss") is not None:
        out.append(_("Definitions (Birge and Louveaux, on expected PV): EVPI = the robust "
                     "plan's expected PV - the probability-weighted PV of each scenario's own "
                     "optimum; VSS = the expected PV of %(base)s's plan, its first decisions "
                     "kept and the rest adapted per scenario - the robust plan's.",
                     base=scenario_name(r, r["base"])))
    held = r.get("held_fixed") or {}
    if "on_demand" in held:
        saving = held["on_demand"] - r["expected_pv"]
        out.append(_("Against all on demand over the same scenarios (expected PV %(od)s) it "
                     "saves %(saving)s.", od=money(held["on_demand"]), saving=money(saving))
                   if saving >= 0 else
                   _("Against all on demand over the same scenarios (expected PV %(od)s) it "
                     "costs %(more)s more.", od=money(held["on_demand"]), more=money(-saving)))
    if "cloud_only" in held:
        saving = held["cloud_only"] - r["expected_pv"]
        out.append(_("Against the best cloud-only plan signed now and kept in every scenario "
                     "(expected PV %(cloud)s) it saves %(saving)s.",
                     cloud=money(held["cloud_only"]), saving=money(saving))
                   if saving >= 0 else
                   _("Against the best cloud-only plan signed now and kept in every scenario "
                     "(expected PV %(cloud)s) it costs %(more)s more.",
                     cloud=money(held["cloud_only"]), more=money(-saving)))
    return out
