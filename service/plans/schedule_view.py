"""What the plan page shows of a schedule (issue 14): the decisions in words, the purchase
orders, cash by quarter and by year against the yearly budget, the contracts held, and the
staged optimum compared with the proposed schedule and the best static strategy.

Every figure is read from the plan document; this module only arranges it for the page.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from models.scenario import OWNED_TYPE, Scenario
from models.schedule_words import (cash_words, decisions_from_json, horizon_sale_words,
                                   schedule_words)
from service.plans import chart_text
from service.i18n import N_, _, formats, sentences
from service.i18n.labels import strategy_label

SCHEDULED = ("staged", "proposed")
ACTIONS = {"buy": N_("buy"), "sell": N_("sell"), "sign": N_("sign")}


@dataclass
class OrderRow:
    month: str
    action: str        # buy | sell | sign
    what: str
    quantity: int
    amount: Optional[float]   # cash paid in the order's month [currency]; None: shown above
    paid: str          # when the rest is paid, in words
    received: Optional[float] = None   # a sale's resale value [currency]

    @property
    def action_text(self) -> str:
        return _(ACTIONS[self.action]) if self.action in ACTIONS else self.action


@dataclass
class YearRow:
    year: str
    amount: float                  # purchases + upfront payments: what the budget limits
    budget: Optional[float] = None
    purchases: float = 0.0
    upfront: float = 0.0
    proceeds: float = 0.0          # servers sold, at resale value

    @property
    def net(self) -> float:
        return self.amount - self.proceeds

    @property
    def headroom(self) -> Optional[float]:
        return None if self.budget is None else self.budget - self.amount

    @property
    def within(self) -> Optional[bool]:
        return None if self.budget is None else self.amount <= self.budget * (1 + 1e-9) + 1e-6


@dataclass
class ScheduleView:
    name: str
    label: str
    words: list[str]
    orders: list[OrderRow]
    quarters: list[tuple[str, float]]
    years: list[YearRow]
    budget: Optional[float] = None
    detailed: bool = True     # purchases, upfront payments and sale proceeds apart
    chart_data: dict = field(default_factory=dict)   # the page's JSON block for its charts
    texts: dict = field(default_factory=dict)        # chart key -> ChartText

    @property
    def has_chart(self) -> bool:
        return self.chart_data.get("timeline") is not None


@dataclass
class HeldRow:
    kind: str          # "commitment" | "servers"
    name: str
    quantity: int
    start: str
    end: str
    price: float
    payment: str
    currency: str      # the price's own: a dollar contract in a won plan says USD


@dataclass
class CompareRow:
    name: str
    label: str
    pv_cost: float
    difference: float          # PV cost minus the cheapest row's [currency]
    capex: dict[str, float] = field(default_factory=dict)   # purchases and upfront, by year


@dataclass
class Comparison:
    rows: list[CompareRow]
    years: list[str]
    sentence: str


def label(name: str) -> str:
    return strategy_label(name)


def amount(value: float, currency: str) -> str:
    """An amount in a sentence: whole units and the currency's code ("2,500,000 USD")."""
    return f"{formats.number(value, 0)} {currency}"


def add_months(month: str, n: int) -> str:
    return str(np.datetime64(month, "M") + n)


def order_rows(strategy: dict, terms: dict[str, int], currency: str) -> list[OrderRow]:
    out = []
    for o in strategy["purchase_orders"]:   # each signing carries its own upfront payment
        month, cash = o["month"], float(o["cash"])
        if o["action"] == "buy":
            paid = f"{month}" if cash > 0 else _("through the financing's payments")
            what = (_("servers") if o.get("type", OWNED_TYPE) == OWNED_TYPE
                    else _("%(type)s servers", type=o["type"]))
        elif o["action"] == "sell":
            booked = o.get("proceeds_month")
            paid = (_("resale received at the end of %(month)s", month=booked) if booked
                    else _("no resale within the plan"))
            what = (_("servers") if o.get("type", OWNED_TYPE) == OWNED_TYPE
                    else _("%(type)s servers", type=o["type"]))
        else:
            term = o.get("term_months", terms.get(o["what"], 0))
            end = add_months(month, term - 1)
            what = _("GPUs of %(offer)s (%(term)s, to %(end)s)", offer=o["what"],
                     term=formats.months(term), end=end)
            payment = o.get("payment", "none")
            if payment == "none":
                paid = _("monthly, %(month)s to %(end)s", month=month, end=end)
            elif payment == "partial":
                paid = _("%(amount)s at signing, the rest monthly to %(end)s",
                         amount=amount(cash, currency), end=end)
            elif payment == "all":
                paid = _("all at signing, %(month)s", month=month)
            else:
                paid = _("monthly to %(end)s", end=end)
        out.append(OrderRow(month, o["action"], what, int(o["quantity"]), cash, paid,
                            o.get("proceeds")))
    return out


def plan_years(doc: dict, cash_by_year: dict[str, float]) -> list[str]:
    """Every calendar year of the plan's months, and later years that still have payments."""
    return sorted({m[:4] for m in doc["months"]} | set(cash_by_year))


def year_rows(doc: dict, cash: dict, budget: Optional[float]) -> list[YearRow]:
    """Each year's purchases, upfront payments and sale proceeds (documents cached before the
    proceeds were written show purchases and upfront payments together)."""
    detail = cash.get("by_year_detail") or {}
    rows = []
    for y in plan_years(doc, {**cash["by_year"], **detail}):
        d = detail.get(y, {})
        rows.append(YearRow(y, float(cash["by_year"].get(y, 0.0)), budget,
                            d.get("purchases", 0.0), d.get("upfront_payments", 0.0),
                            d.get("sale_proceeds", 0.0)))
    return rows


def schedule_views(doc: dict, charts: dict) -> list[ScheduleView]:
    """A view for the staged strategy and for a proposed schedule, when the plan has them."""
    names = [n for n in SCHEDULED if doc["strategies"].get(n, {}).get("schedule")]
    if not names:
        return []
    scenario = Scenario.model_validate(doc["scenario"])
    currency = scenario.finance.currency
    terms = {o.id: o.term_months for o in scenario.commitments}
    budget = scenario.staging.capital_budget_per_year
    timelines = charts.get("schedules") or {}
    views = []
    for name in names:
        s = doc["strategies"][name]
        decisions = decisions_from_json(s["schedule"])
        words = [sentences.render(m)
                 for m in schedule_words(scenario, decisions, doc["months"][0])]
        words += [sentences.render(m) for m in cash_words(s["cash"], currency)]
        # a purchase the horizon rule sells again within a year: why it pays (issue 39)
        words += [sentences.render(m)
                  for m in horizon_sale_words(s.get("purchase_orders") or [], currency)]
        # the optimum is held to the budget; a proposed schedule is shown against it
        years = year_rows(doc, s["cash"], budget)
        view = ScheduleView(name, label(name), words, order_rows(s, terms, currency),
                            sorted(s["cash"]["by_quarter"].items()), years, budget,
                            detailed="by_year_detail" in s["cash"])
        t = timelines.get(name)
        view.chart_data = {"timeline": t, "cash": {
            "strategy": label(name), "years": [y.year for y in years],
            "amounts": [y.amount for y in years], "budget": budget, "currency": currency}}
        view.chart_data.update(chart_words(t, label(name), currency))
        view.texts = {"cash_budget": chart_text.cash_budget(years, currency, budget)}
        if t is not None:
            view.texts["timeline"] = chart_text.timeline(t, name)
        views.append(view)
    return views


def cohort_label(name: str, held: bool) -> str:
    """A cohort series of static/js/app.js's timeline in words: schedule_charts names it
    "held OFFER" or "OFFER from YYYY-MM" (cached with the plan, language-free)."""
    if held and name.startswith("held "):
        return _("held %(offer)s", offer=name[len("held "):])
    offer, sep, month = name.rpartition(" from ")
    if sep:
        return _("committed %(offer)s from %(month)s", offer=offer, month=month)
    return name


def chart_words(t: Optional[dict], strategy: str, currency: str) -> dict[str, Any]:
    """Titles, axes and series names of a schedule's two charts in the page's language."""
    quantile = f"P{(t or {}).get('quantile', 0.9) * 100:.0f}"
    text = {"timeline": _("Capacity by month: %(strategy)s", strategy=strategy),
            "cash_budget": _("Cash by year: %(strategy)s", strategy=strategy),
            "month": _("month"), "year": _("year"), "gpus": _("GPUs"),
            "owned": _("owned servers"), "spot": _("spot (average)"),
            "on_demand": _("on demand (average)"), "demand_peak": _("demand peak"),
            "demand_quantile": _("demand %(quantile)s", quantile=quantile),
            "demand_average": _("demand average"),
            "cash": _("purchases and upfront payments"), "budget": _("yearly budget")}
    names = {f"cohort:{c['name']}": cohort_label(c["name"], c["held"])
             for c in (t or {}).get("cohorts", [])}
    return {"text": text, "names": names}


def held_rows(doc: dict) -> list[HeldRow]:
    """The position: contracts signed and servers owned before the plan starts."""
    scenario = doc["scenario"]
    position = scenario.get("position") or {}
    reporting = scenario["finance"]["currency"]
    cloud = (scenario.get("cloud_terms") or {}).get("currency") or reporting
    owned = scenario["owned"].get("currency") or reporting
    rows = [HeldRow("commitment", c["id"], c["gpus"], c["start"],
                    add_months(c["start"], c["term_months"] - 1), c["price_per_gpu_hour"],
                    c["payment"], c.get("currency") or cloud)
            for c in position.get("commitments", [])]
    life = scenario["owned"]["useful_life_months"]
    rows += [HeldRow("servers", _("bought %(month)s", month=s['purchased']), s["count"],
                     s["purchased"], add_months(s["purchased"], life - 1), s["price"], "owned",
                     owned)
             for s in position.get("servers", [])]
    return rows


def capex_by_year(strategy: dict) -> dict[str, float]:
    """Purchases and upfront commitment payments by calendar year, from the monthly rows."""
    out: dict[str, float] = {}
    for row in strategy["monthly"]:
        paid = row["capex"] + row["commitment_upfront"]
        if paid:
            out[row["month"][:4]] = out.get(row["month"][:4], 0.0) + paid
    return out


def best_static(doc: dict) -> Optional[str]:
    """The cheapest strategy without a schedule (the robust plan is not one: its figures are
    expectations over several demands, and its schedule may start empty)."""
    static = [n for n, s in doc["strategies"].items() if not s.get("schedule") and n != "robust"]
    return min(static, key=lambda n: doc["strategies"][n]["pv_cost"]) if static else None


def compare_schedules(doc: dict) -> Optional[Comparison]:
    """The staged optimum, the proposed schedule (when there is one) and the best static
    strategy: PV cost, capex by year, and how much the cheapest saves."""
    strategies = doc["strategies"]
    if "staged" not in strategies:
        return None
    names = ["staged"]
    if strategies.get("proposed", {}).get("schedule"):
        names.append("proposed")
    static = best_static(doc)
    if static is not None:
        names.append(static)
    cheapest = min(strategies[n]["pv_cost"] for n in names)
    rows = [CompareRow(n, _("%(strategy)s (best static)", strategy=label(n)) if n == static
                       else label(n),
                       strategies[n]["pv_cost"], strategies[n]["pv_cost"] - cheapest,
                       capex_by_year(strategies[n])) for n in names]
    years = sorted({y for r in rows for y in r.capex} | {m[:4] for m in doc["months"]})
    return Comparison(rows, years, comparison_sentence(rows, doc))


def comparison_sentence(rows: list[CompareRow], doc: dict) -> str:
    currency = doc["scenario"]["finance"]["currency"]
    ranked = sorted(rows, key=lambda r: r.pv_cost)
    best = ranked[0]
    if len(ranked) == 1:
        return _("%(strategy)s: PV cost %(amount)s.", strategy=best.label,
                 amount=amount(best.pv_cost, currency))
    parts = []
    for other in ranked[1:]:
        share = other.difference / other.pv_cost if other.pv_cost else 0.0
        parts.append(_("%(amount)s (%(share)s) less than %(strategy)s",
                       amount=amount(other.difference, currency),
                       share=formats.percent(share, 1), strategy=other.label)
                     if other.difference > 0.005 else
                     _("the same as %(strategy)s", strategy=other.label))
    text = _("%(strategy)s is the cheapest of these schedules at a PV cost of %(amount)s: "
             "%(parts)s.", strategy=best.label, amount=amount(best.pv_cost, currency),
             parts="; ".join(parts))
    budget = doc["scenario"].get("staging", {}).get("capital_budget_per_year")
    if budget is not None:
        for r in rows:
            over = [y for y, v in sorted(r.capex.items()) if v > budget * (1 + 1e-9) + 1e-6]
            if over:
                text += " " + _("%(strategy)s spends more than the yearly budget of "
                                "%(amount)s in %(years)s.", strategy=r.label,
                                amount=amount(budget, currency), years=", ".join(over))
    return text


def page_sections(doc: Optional[dict], charts: Optional[dict]) -> dict[str, Any]:
    """Everything the plan page's schedule sections need (empty without a plan)."""
    if not doc:
        return {"views": [], "held": [], "comparison": None}
    return {"views": schedule_views(doc, charts or {}), "held": held_rows(doc),
            "comparison": compare_schedules(doc)}

