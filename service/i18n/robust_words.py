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
    return sum(moved(decisions, "buy").values())


def moved(decisions: list[dict], action: str) -> dict[str, int]:
    """Servers a list of schedule entries buys or sells, per server type.

    Parameters
    ----------
    decisions : list of dict
        Schedule entries of the plan document (models/schedules.py schedule_json).
    action : {"buy", "sell"}
        Purchases or sales.

    Returns
    -------
    dict
        Type id to servers [servers], in the order met, nonzero only; the key "" holds the
        servers of a plan without server types (``buy_servers``, ``sell_servers``).

    Examples
    --------
    >>> moved([{"buy_servers": 0, "buy": {"b200": 2}}, {"buy_servers": 0,
    ...        "buy": {"b200": 3, "h100": 1}}], "buy")
    {'b200': 5, 'h100': 1}
    """
    out: dict[str, int] = {}
    for d in decisions:
        if d.get(f"{action}_servers"):
            out[""] = out.get("", 0) + d[f"{action}_servers"]
        for k, n in (d.get(action) or {}).items():
            if n:
                out[k] = out.get(k, 0) + n
    return out


def servers_text(counts: dict[str, int]) -> str:
    """Servers per type in words, the type named as the engine's schedule words name it
    ("{n} {type} servers", models/schedules.py TYPE_WORDS): "5 b200 servers, 1 h100
    server"; "5 servers" for a plan without server types."""
    return ", ".join(
        ngettext("%(count)s server", "%(count)s servers", n, count=n) if not k else
        ngettext("%(count)s %(type)s server", "%(count)s %(type)s servers", n, count=n, type=k)
        for k, n in counts.items())


def signed(decisions: list[dict]) -> dict[str, int]:
    """GPUs a list of schedule entries signs, per offer [GPUs], nonzero only."""
    out: dict[str, int] = {}
    for d in decisions:
        for k, g in d["commit"].items():
            if g:
                out[k] = out.get(k, 0) + g
    return out


def signed_text(schedule: list[dict]) -> str:
    """GPUs a scenario's schedule signs per offer, now and later together: "48 GPUs 3y" (-
    for none); the robust card's GPUs are the most of these (models/robust_document.py)."""
    return ", ".join(_("%(gpus)s GPUs %(offer)s", gpus=g, offer=k)
                     for k, g in signed(schedule).items()) or "-"


def listed(items: list[str]) -> str:
    """Phrases joined as a list: "a", "a and b", "a, b and c"."""
    if len(items) < 2:
        return "".join(items)
    # not the catalog's "%(first)s and %(last)s": its Korean joins nouns, these are actions
    return _("%(earlier)s and %(last)s", earlier=", ".join(items[:-1]), last=items[-1])


def actions(decisions: list[dict], until: bool = False) -> list[str]:
    """What a list of schedule entries does, one phrase per action: the servers bought and
    sold per type, the GPUs signed per offer; with ``until`` each says the last month it
    happens in ("buy 6 h100 servers by 2029-01").

    Parameters
    ----------
    decisions : list of dict
        Schedule entries of the plan document.
    until : bool
        Whether each phrase names its last month.

    Returns
    -------
    list of str
        Purchases, sales, then commitments, in the current language.
    """
    out = []
    for action, counts in (("buy", moved(decisions, "buy")), ("sell", moved(decisions, "sell"))):
        if counts:
            text = (_("buy %(servers)s", servers=servers_text(counts)) if action == "buy" else
                    _("sell %(servers)s", servers=servers_text(counts)))
            last = max(d["month"] for d in decisions if moved([d], action))
            out.append(_("%(action)s by %(month)s", action=text, month=last) if until else text)
    for offer, gpus in signed(decisions).items():
        text = _("sign %(gpus)s GPUs %(offer)s", gpus=gpus, offer=offer)
        last = max(d["month"] for d in decisions if d["commit"].get(offer))
        out.append(_("%(action)s by %(month)s", action=text, month=last) if until else text)
    return out


def schedule_text(schedule: list[dict]) -> str:
    """A scenario's purchases (+) and sales (-) per type in one line: "2027-01 +5 b200 -16 h100,
    2028-01 +2 b200"; "2027-01 +5" without server types (- for none)."""
    def part(sign: str, counts: dict[str, int]) -> list[str]:
        return [f"{sign}{n}" + (f" {k}" if k else "") for k, n in counts.items()]

    out = [" ".join([d["month"]] + part("+", moved([d], "buy")) + part("-", moved([d], "sell")))
           for d in schedule if moved([d], "buy") or moved([d], "sell")]
    return ", ".join(out) or "-"


# the paths a plan without demand scenarios gets from its growth range (models/robust.py)
RANGE_NAMES = {"low": N_("low growth"), "likely": N_("most likely growth"),
               "high": N_("high growth")}


def scenario_name(r: dict, name: str) -> str:
    """A demand scenario's name as the reader sees it: the user's own, or for the paths of
    the growth range their words in the reader's language."""
    if r.get("scenarios_from_range") and name in RANGE_NAMES:
        return _(RANGE_NAMES[name])
    return name


def decision_now(r: dict) -> str:
    """The decision now in a sentence, then each scenario's later decisions: "Decide now
    (through 2027-12): buy 5 b200 servers and sell 16 h100 servers in 2027-07. Later, by
    demand scenario: slow (10 % a year): sell 5 b200 servers by 2028-07; fast (100 % a year):
    buy 6 b200 servers by 2029-01 and sign 48 GPUs 3y by 2028-01."

    Parameters
    ----------
    r : dict
        The plan document's ``robust`` section.

    Returns
    -------
    str
        The sentence, in the current language: purchases and sales per server type (no type
        without server types), GPUs signed per offer.
    """
    until = r["decide_now_until"]
    now = [_("%(actions)s in %(month)s", actions=listed(actions([d])), month=d["month"])
           for d in r["common"] if actions([d])]
    text = _("Decide now (through %(until)s): %(now)s.", until=until,
             now="; ".join(now) or _("buy nothing and commit nothing"))
    later = [_("%(name)s (%(growth)s a year): %(actions)s",
               name=scenario_name(r, q["name"]), growth=formats.percent(q["growth_annual"], 0),
               actions=listed(actions([d for d in q["schedule"] if d["month"] > until],
                                      until=True)) or _("nothing more"))
             for q in r["scenarios"]]
    return text + " " + _("Later, by demand scenario: %(paths)s.", paths="; ".join(later))


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
