"""Plain-text rendering of a plan for the terminal, in the language of ``buyrent --lang``."""
from __future__ import annotations

import math

from babel.numbers import get_currency_precision
from wcwidth import wcswidth

from models.document import plan_document
from models.plan_sections import Plan
from models.schedule_words import horizon_sale_words
from models.scenario import OWNED_TYPE
from service.i18n import DEFAULT, _, current_locale, formats, robust_words, sentences
from service.i18n.labels import PERIODS, offer_name, option_word, strategy_label


def rate(x: float, currency: str = "USD") -> str:
    """A cost per GPU-hour: four decimals, none in a currency without a minor unit (won)."""
    digits = 4 if get_currency_precision(currency) else 0
    return formats.number(x, digits) if x is not None and math.isfinite(x) else "-"


def width(text: str) -> int:
    """Terminal columns of a text: Hangul and other wide characters take two."""
    shown = wcswidth(text)
    return shown if shown >= 0 else len(text)


def strategy_name(name: str) -> str:
    """A strategy as the reader's language names it; its id in English (what --json says)."""
    return name if current_locale() == DEFAULT else strategy_label(name)


def share(x) -> str:
    return "-" if x is None else formats.percent(x)


def cell(text: str, columns: int, left: bool = False) -> str:
    """Pad to a display width (wcwidth: Hangul takes two terminal columns)."""
    pad = " " * max(0, columns - width(text))
    return text + pad if left else pad + text


def fitted(heads: list[tuple[str, int, bool]], cells: list[list[str]]
           ) -> list[tuple[str, int, bool]]:
    """Each column as wide as its widest cell or heading, two spaces before a right-aligned
    one and after a left-aligned one (amounts in won run long, Korean headings too)."""
    return [(h, max(w, width(h) + 2, *(width(c[i]) + 2 for c in cells)), left)
            for i, (h, w, left) in enumerate(heads)]


def row(cells: list[str], heads: list[tuple[str, int, bool]]) -> str:
    return "".join(cell(text, width, left) for text, (_h, width, left) in zip(cells, heads))


def plan_table(plan: Plan, source: str) -> str:
    s, cal = plan.scenario, plan.calendar
    cur = s.finance.currency
    doc = plan_document(plan)
    base = plan.strategies["on_demand"].pv_cost
    period = plan.profile.period
    lines = [f"{s.name}",
             _("Usage: %(source)s (%(period)s, %(hours)s GPU-hours in the file)", source=source,
               period=_(PERIODS[period]) if period in PERIODS else period,
               hours=formats.number(plan.profile.gpu_hours, 0)),
             _("Plan: %(first)s .. %(last)s (%(count)s months), discount rate %(rate)s, "
               "%(currency)s, horizon end: %(end)s", first=cal.months[0], last=cal.months[-1],
               count=len(cal.months), rate=formats.percent(s.finance.discount_rate_annual),
               currency=cur, end=option_word(s.finance.horizon_end)),
             ""]
    heads = [(_("strategy"), 13, True), (_("servers bought"), 8, False),
             (_("committed"), 11, False),
             (_("PV cost"), 14, False), (_("normal PV"), 14, False),
             (_("failure PV"), 12, False), (_("total cost"), 14, False),
             (_("levelized/h"), 12, False), (_("nominal/h"), 11, False),
             (_("owned util"), 11, False), (_("PV saving"), 14, False)]
    cells = []
    for name, r in plan.strategies.items():
        # servers bought, as on the cards and the workbook's Summary (the held ones apart)
        bought = doc["strategies"][name]["servers_bought"]
        servers = by_type(bought) if isinstance(bought, dict) else str(bought)
        if r.capacity is not None:
            committed = " + ".join(_("%(gpus)s GPUs %(offer)s", gpus=v,
                                       offer=offer_name(k, s.commitments))
                                     for k, v in r.capacity.committed.items() if v) or "-"
        else:   # a schedule: the most GPUs committed at once
            most = int(r.committed_gpus_by_month.max(initial=0))
            committed = f"<={most}" if most else "-"
        cells.append((name, [strategy_name(name), servers, committed,
                             formats.number(r.pv_cost, 0), formats.number(r.normal_cost_pv, 0),
                             formats.number(r.failure_cost_pv, 0),
                             formats.number(r.total_cost, 0),
                             rate(r.cost_per_useful_gpu_hour, cur),
                             rate(r.cost_per_useful_gpu_hour_nominal, cur),
                             share(r.owned_utilization), formats.number(base - r.pv_cost, 0)]))
    heads = fitted(heads, [c for _n, c in cells])
    header = row([h for h, _w, _l in heads], heads)
    lines += [header, "-" * width(header)]
    for name, line_cells in cells:
        mark = " *" if name == plan.recommendation else " !" if plan.strategies[name].breaches \
            else ""
        lines.append(row(line_cells, heads) + mark)
    held = doc["strategies"]["on_demand"]["servers_held"]
    if formats.server_total(held):
        lines += ["", _("Servers held at the plan's start, in every strategy and not counted as "
                        "bought: %(held)s", held=formats.servers(held))]
    lines += ["", _("Cost per useful GPU-hour: levelized = PV cost / PV of useful GPU-hours; "
                    "nominal = total cost / useful GPU-hours."),
              "", _("Recommended (*): %(strategy)s", strategy=strategy_name(plan.recommendation)),
              sentences.explanation(doc)]
    broken = [name for name, r in plan.strategies.items() if r.breaches]
    if broken:
        lines += ["", _("Breaks the scenario's limits (!), so never recommended:")]
        lines += [f"- {strategy_name(name)}: " + " ".join(
            sentences.breach_text(b, cur) for b in doc["strategies"][name]["breaches"])
            for name in broken]
    for name in ("staged", "proposed"):
        if doc["strategies"].get(name, {}).get("schedule"):
            lines += [""] + schedule_lines(name, doc["strategies"][name], cur)
    if robust_words.robust_entry(doc):
        lines += [""] + robust_lines(robust_words.robust_entry(doc), cur)
    lines += [""] + breakeven_lines(doc)
    warnings = [text for text, _ok in sentences.document_warnings(doc)]
    if warnings:
        lines += ["", _("Warnings:")] + [f"- {w}" for w in warnings]
    return "\n".join(lines)


def by_type(counts: dict) -> str:
    """Servers per type as a table cell: ``4 h100+2 b200``; ``0`` for none (issue 26); the one
    type of a scenario without server types (``owned``, issue 36) not named: ``4``."""
    return "+".join(str(n) if k == OWNED_TYPE else f"{n} {k}"
                    for k, n in counts.items() if n) or "0"


def schedule_lines(name: str, strategy: dict, currency: str) -> list[str]:
    """The decisions of a scheduled strategy as a table, then its cash by year."""
    cells = []
    for d in strategy["schedule"]:
        commits = ", ".join(_("%(gpus)s GPUs %(offer)s", gpus=g, offer=k)
                            for k, g in d["commit"].items()) or "-"
        buy = by_type(d["buy"]) if "buy" in d else str(d["buy_servers"])
        sell = by_type(d["sell"]) if "sell" in d else str(d["sell_servers"])
        cells.append([d["month"], buy, sell, "  " + commits])
    # servers per type ("2 b200+1 h100") widen the buy and sell columns
    wide = [max([6] + [len(c[i]) + 2 for c in cells]) for i in (1, 2)]
    heads = [(_("month"), 9, True), (_("buy"), wide[0], False), (_("sell"), wide[1], False),
             ("  " + _("commit"), 0, True)]
    out = [_("Schedule of %(strategy)s (servers bought take work after the lead time):",
             strategy=strategy_name(name)),
           "  " + row([h for h, _w, _l in heads], heads)]
    out += ["  " + row(c, heads) for c in cells]
    cash = strategy["cash"]["by_year"]
    if cash:
        out.append("  " + _("purchases and upfront payments by year [%(currency)s]: %(years)s",
                            currency=currency,
                            years=", ".join(f"{y} {formats.number(v, 0)}"
                                            for y, v in cash.items())))
    detail = strategy["cash"].get("by_year_detail") or {}
    if detail:
        heads = [(_("year"), 6, True), (_("purchases"), 14, False), (_("upfront"), 14, False),
                 (_("sale proceeds"), 15, False), (_("net"), 15, False)]
        cells = [[y, *(formats.number(d[k], 0) for k in ("purchases", "upfront_payments",
                                                        "sale_proceeds", "net"))]
                 for y, d in sorted(detail.items())]
        heads = fitted(heads, cells)
        out += ["  " + _("cash by year [%(currency)s] (sale proceeds: every server sold at "
                         "its resale value, in the month it is booked):", currency=currency),
                "    " + row([h for h, _w, _l in heads], heads)]
        out += ["    " + row(c, heads) for c in cells]
    # why a purchase close to the end pays: the horizon rule sells it again (issue 39)
    out += ["  " + sentences.render(m)
            for m in horizon_sale_words(strategy.get("purchase_orders") or [], currency)]
    return out


def robust_lines(r: dict, currency: str) -> list[str]:
    """The robust plan (issue 27): the decision now in a sentence, each demand scenario's PV
    and its servers bought and sold per type, then expected PV, CVaR, EVPI and VSS in words."""
    out = [_("Robust plan over %(n)s demand scenarios (decisions through %(until)s are the "
             "same in every one):", n=len(r["scenarios"]), until=r["decide_now_until"]),
           "  " + robust_words.decision_now(r)]
    if r.get("scenarios_from_range"):
        out.insert(1, "  " + _("(no demand scenarios given: the demand growth range's low end, "
                               "the plan's own growth and the high end, 25 % / 50 % / 25 %)"))
    heads = [(_("scenario"), 12, True), (_("probability"), 12, False),
             (_("growth"), 9, False), (_("PV cost"), 16, False),
             ("  " + _("GPUs signed, now and later"), 0, True),
             ("  " + _("servers bought (+) and sold (-)"), 0, True)]
    cells = [[robust_words.scenario_name(r, q["name"]), formats.percent(q["probability"]),
              formats.percent(q["growth_annual"]), formats.number(q["pv_cost"], 0),
              "  " + robust_words.signed_text(q["schedule"]),
              "  " + robust_words.schedule_text(q["schedule"])] for q in r["scenarios"]]
    heads = fitted(heads, cells)
    out += ["  " + row([h for h, _w, _l in heads], heads).rstrip()]
    out += ["  " + row(c, heads).rstrip() for c in cells]
    out += ["  " + line for line in robust_words.risk_words(r, currency)]
    return out


def breakeven_lines(doc: dict) -> list[str]:
    be = doc["breakeven"]
    offers = doc["scenario"]["commitments"]     # named by their terms, not their ids
    reasons = sentences.breakeven_reasons(be, offers=offers)
    basis_words = {"utilization": _("marginal"), "utilization_all_in": _("all-in")}
    out = [_("Breakevens (owned utilization; marginal: the next server, without data charges, "
             "setup fee and support minimum; all-in: one server alone, with every charge):")]
    for name, value in be["utilization"].items():
        all_in = be["utilization_all_in"].get(name)
        out.append("  " + _("vs %(name)s marginal %(marginal)s  all-in %(all_in)s",
                            name=cell(sentences.side_word(name, offers), 10, left=True),
                            marginal=cell(share(value), 7),
                            all_in=cell(share(all_in), 7)))
        for basis, figure in (("utilization", value), ("utilization_all_in", all_in)):
            key = f"{basis}.{name}"
            if figure is not None and key in be["directions"]:
                text = sentences.direction_text(be["directions"][key], offers=offers)
            elif key in be["reasons"]:
                text = reasons[key]
            else:
                continue
            out.append(f"      {basis_words[basis]}: {text}")
    if "spot" in reasons:            # spot is off: said once, no row against it
        out.append("  " + reasons["spot"])
    if doc["rules"].get("breakeven_difference"):
        out.append("  " + sentences.plain(doc["rules"]["breakeven_difference"]))
    # each tie is a price of its own market, in that market's currency
    for key, market in (("on_demand_price", "cloud"), ("server_price", "owned")):
        value, currency = be[key], doc["currencies"][market]
        if value is None:
            shown = _("none (%(reason)s)", reason=reasons.get(key, ""))
        elif key == "on_demand_price":
            shown = _("%(price)s/GPU-h", price=formats.money(value, currency, "rate"))
        else:
            shown = formats.money(value, currency)
        out.append("  " + (_("on-demand price tie: %(value)s", value=shown)
                           if key == "on_demand_price"
                           else _("server price tie: %(value)s", value=shown)))
    return out
