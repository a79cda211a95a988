"""The recommendation in plain language, generated from the plan's numbers (issue 4).

Sentences are :class:`models.messages.Message` templates, so every view can show them in its
reader's language; :attr:`Explanation.text` is the English.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.finance import never_dearer
from models.limit_words import breach_words
from models.messages import Message, Money, Months, Number, Percent
from models.plan_state import PlanState
from models.scenario import OWNED_TYPE, Scenario
from models.scenario_owned import type_owned
from models.schedule_words import cash_words, grouped_schedule_words
from models.schedules import cash_by_period
from models.strategy_result import StrategyResult
from models.uncertainty import UncertaintySection

FRAGILE = 0.02


@dataclass
class Explanation:
    parts: list[Message]
    fragile: bool
    runner_up: Optional[str]

    @property
    def text(self) -> str:
        """The whole explanation in English, one sentence after the other."""
        return " ".join(m.text for m in self.parts)


def runner_up(strategies: dict[str, StrategyResult], chosen: str) -> Optional[str]:
    """The cheapest strategy with another capacity than the chosen one.

    Parameters
    ----------
    strategies : dict of str to StrategyResult
        Strategies priced, by name.
    chosen : str
        Name of the recommended strategy.

    Returns
    -------
    str or None
        Name of the runner-up; None when every strategy holds the chosen capacity.
    """
    best = strategies[chosen]
    others = [(n, r) for n, r in strategies.items()
              if not same_capacity(r, best) and not r.breaches]   # a forbidden plan is no rival
    return min(others, key=lambda item: item[1].pv_cost)[0] if others else None


def same_capacity(a: StrategyResult, b: StrategyResult) -> bool:
    """Whether two strategies are the same plan in effect.

    Parameters
    ----------
    a : StrategyResult
        One strategy.
    b : StrategyResult
        The other.

    Returns
    -------
    bool
        The same servers and commitments month by month (zero commitments count as none) and
        the same spot use (spot allowed but never used is none).
    """
    return (np.array_equal(a.servers_online, b.servers_online)
            and np.array_equal(a.committed_gpus_by_month, b.committed_gpus_by_month)
            and np.allclose(a.spot_gpu_hours_by_month, b.spot_gpu_hours_by_month,
                            rtol=1e-12, atol=1e-9))


def capacity_parts(s: Scenario, r: StrategyResult) -> list[Message]:
    """A static strategy's capacity as sentences: servers, commitments, spot, on demand.

    Parameters
    ----------
    s : Scenario
        The scenario (GPUs per server, offers).
    r : StrategyResult
        Static strategy to describe.

    Returns
    -------
    list of Message
        One sentence per part of the capacity; none for a strategy that holds nothing.
    """
    cap = r.capacity
    parts: list[Message] = []
    s = s.as_fleet()
    kinds = {k.id: k for k in s.server_types}
    for type_id, n in (cap.counts(s).items() if cap is not None else ()):
        if not n:
            continue
        # one sentence per server type, with how busy its GPUs are; the owned servers
        # section's own type (a scenario without server types) is just "servers"
        owned = type_owned(s.owned, kinds[type_id])
        params = {"servers": n, "type": type_id, "gpus": n * owned.gpus_per_server,
                  "util": Percent(r.owned_utilization_by_type[type_id])}
        named = type_id != OWNED_TYPE
        # one server is one server ("Buy 1 b200 servers" was issue 37's)
        if n == 1:
            parts.append(Message("Buy 1 {type} server ({gpus} GPUs) for the base load, busy "
                                 "{util} of its installed GPU-hours.", params) if named else
                         Message("Buy 1 server ({gpus} GPUs) for the base load, busy {util} "
                                 "of its installed GPU-hours.", params))
        else:
            parts.append(Message("Buy {servers} {type} servers ({gpus} GPUs) for the base "
                                 "load, busy {util} of their installed GPU-hours.", params)
                         if named else
                         Message("Buy {servers} servers ({gpus} GPUs) for the base load, busy "
                                 "{util} of their installed GPU-hours.", params))
    for offer in s.commitments:
        gpus = cap.committed.get(offer.id, 0) if cap is not None else 0
        if not gpus:
            continue
        params = {"gpus": gpus, "term": Months(offer.term_months), "offer": offer.id}
        parts.append({
            "none": Message("Commit {gpus} GPUs for {term} (offer {offer}, paid monthly).",
                            params),
            "partial": Message("Commit {gpus} GPUs for {term} (offer {offer}, half paid "
                               "upfront).", params),
            "all": Message("Commit {gpus} GPUs for {term} (offer {offer}, paid upfront).",
                           params)}[offer.payment])
    if r.spot_gpu_hours_by_month.sum() > 0:
        parts.append(Message("Run interruptible work on spot."))
    if r.on_demand_gpu_hours_by_month.sum() > 0:
        parts.append(Message("Burst on demand.") if parts else
                     Message("Run everything on demand."))
    return parts


def explanation(ctx: PlanState, strategies: dict[str, StrategyResult], chosen: str,
                payback: Optional[int], uncertainty: Optional[UncertaintySection] = None
                ) -> Explanation:
    """The recommendation as sentences, and whether it is fragile (runner-up within 2 %).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (scenario, calendar, wastes).
    strategies : dict of str to StrategyResult
        Every strategy priced, by name; ``"on_demand"`` among them.
    chosen : str
        Name of the recommended strategy.
    payback : int or None
        Payback month of the chosen strategy, 1-based [months]; None if it does not pay back
        or is never dearer than on demand (the sentence says which).
    uncertainty : UncertaintySection, optional
        The plan's Monte Carlo: the probability that the judged plan beats the best cloud-only
        plan is said beside the savings.

    Returns
    -------
    Explanation
        The sentences (a static capacity, then its PV saving against on demand [currency] and
        its share [fraction], payback, the saving against the best cloud-only plan and the
        Monte Carlo's median saving and chances of costing more and less than it; a schedule
        comes after those savings, its purchases grouped; fragility, spot and currency
        notes), whether the runner-up is within ``FRAGILE`` of the chosen PV cost, and the
        runner-up's name.

    Notes
    -----
    saving = PV(on_demand) - PV(chosen), share = saving / PV(on_demand); fragile when the
    runner-up's gap = (PV(runner-up) - PV(chosen)) / PV(chosen) <= ``FRAGILE`` (0.02) [fraction].
    """
    s = ctx.scenario
    cur = s.finance.currency
    r = strategies[chosen]
    schedule: list[Message] = []
    scheduled = bool(r.schedule) or r.capacity is None   # a schedule, also one of no decision
    if scheduled:
        # a schedule is said after its saving and grouped by kind (issue 39, item 5): ten
        # purchases came before the saving; the schedule's own list has each one
        schedule = grouped_schedule_words(s, r.schedule, ctx.calendar.months[0])
        schedule += cash_words(cash_by_period(ctx.book.labels, r), cur)
        if r.spot_gpu_hours_by_month.sum() > 0:
            schedule.append(Message("Run interruptible work on spot."))
        if r.on_demand_gpu_hours_by_month.sum() > 0:
            schedule.append(Message("Burst on demand."))
        parts = []
    else:
        parts = capacity_parts(s, r) or [Message("No capacity is needed.")]
    base = strategies["on_demand"]
    saving = base.pv_cost - r.pv_cost
    months = Months(ctx.horizon)
    if chosen != "on_demand" and base.pv_cost > 0:
        params = {"saving": Money(saving, cur), "share": Percent(saving / base.pv_cost),
                  "months": months}
        if r.capital_outlay() <= 0:
            parts.append(Message("PV saving {saving} ({share}) over {months} against on "
                                 "demand; nothing is invested up front, so payback is n/a.",
                                 params))
        elif payback:
            parts.append(Message("PV saving {saving} ({share}) over {months} against on "
                                 "demand; pays back in month {payback}.",
                                 {**params, "payback": payback}))
        elif never_dearer(r.cumulative[:ctx.horizon], base.cumulative[:ctx.horizon]):
            parts.append(Message("PV saving {saving} ({share}) over {months} against on "
                                 "demand; it never costs more than on demand in any month, so "
                                 "there is nothing to pay back.", params))
        else:
            parts.append(Message("PV saving {saving} ({share}) over {months} against on "
                                 "demand; does not pay back within the horizon.", params))
    parts += cloud_only_sentences(strategies, chosen, cur, uncertainty)
    if scheduled:
        parts += schedule or [Message("No capacity is needed.")]
    parts += limit_sentences(strategies, chosen, cur)
    fragile = False
    other = runner_up(strategies, chosen)
    if other is not None and r.pv_cost > 0:
        gap = (strategies[other].pv_cost - r.pv_cost) / r.pv_cost
        if gap <= FRAGILE:
            fragile = True
            parts.append(Message("The answer is fragile: {other} costs only {gap} more (PV "
                                 "{pv}), within the accuracy of the inputs.",
                                 {"other": other, "gap": Percent(gap, 1),
                                  "pv": Money(strategies[other].pv_cost, cur)}))
    parts += spot_sentences(ctx) + currency_sentences(ctx)
    return Explanation(parts, fragile, other)


def cloud_only_sentences(strategies: dict[str, StrategyResult], chosen: str, currency: str,
                         uncertainty: Optional[UncertaintySection] = None) -> list[Message]:
    """The recommendation against the best cloud-only plan, beside its saving against on demand.

    Parameters
    ----------
    strategies : dict of str to StrategyResult
        Every strategy priced, ``cloud_only`` among them.
    chosen : str
        Name of the recommended strategy.
    currency : str
        ISO 4217 code of the reporting currency.
    uncertainty : UncertaintySection, optional
        The Monte Carlo, when the plan has one.

    Returns
    -------
    list of Message
        Its PV saving against ``cloud_only`` [currency] and share [fraction] (none when it is
        that plan), then from the Monte Carlo: for the recommendation its median, P10 and P90
        saving against ``cloud_only`` [currency] and the shares of draws in which it costs
        more and less than ``cloud_only`` [fraction]; for the best plan that buys servers
        (when the recommendation buys none) the share in which it costs less.

    Notes
    -----
    saving = PV(cloud_only) - PV(chosen) [currency] and share = saving / PV(cloud_only)
    [fraction]; the Monte Carlo figures as :func:`models.uncertainty.summary` holds them.
    """
    r, cloud = strategies[chosen], strategies["cloud_only"]
    out = []
    if chosen not in ("cloud_only", "on_demand") and not same_capacity(r, cloud) \
            and cloud.pv_cost > 0 and not cloud.breaches:   # no saving against a forbidden plan
        saving = cloud.pv_cost - r.pv_cost
        out.append(Message("Against the best cloud-only plan (PV {pv}) it saves {saving} "
                           "({share}).", {"pv": Money(cloud.pv_cost, currency),
                                          "saving": Money(saving, currency),
                                          "share": Percent(saving / cloud.pv_cost)}))
    if uncertainty is not None and uncertainty.judged != "cloud_only":
        u = uncertainty.summary
        params = {"probability": Percent(u["probability_buy_cheaper"]),
                  "draws": Number(uncertainty.draws)}
        if uncertainty.judged_is_recommended:
            # the same two plans as the saving above, each held as decided while the
            # assumptions move: the headline's base-case figure beside its spread (issue 39)
            out.append(Message("Over {draws} Monte Carlo draws of the assumptions, with both "
                               "plans held as decided, its median saving against the best "
                               "cloud-only plan is {median} (P10 {p10}, P90 {p90}); it costs "
                               "more than that plan in {losing} of the draws and less in "
                               "{probability}.",
                               {**params, "median": Money(u["saving_p50"], currency),
                                "p10": Money(u["saving_p10"], currency),
                                "p90": Money(u["saving_p90"], currency),
                                "losing": Percent(u["probability_buy_dearer"])}))
        else:
            out.append(Message("It buys no servers; the best plan that does ({judged}) costs "
                               "less than the best cloud-only plan in {probability} of "
                               "{draws} Monte Carlo draws.",
                               {**params, "judged": uncertainty.judged}))
    return out


def limit_sentences(strategies: dict[str, StrategyResult], chosen: str, currency: str
                    ) -> list[Message]:
    """Why a cheaper strategy is not the recommendation: it breaks the scenario's limits.

    Parameters
    ----------
    strategies : dict of str to StrategyResult
        Every strategy priced, its ``breaches`` found (models/plan_limits.py).
    chosen : str
        Name of the recommended strategy.
    currency : str
        ISO 4217 code of the reporting currency.

    Returns
    -------
    list of Message
        For each strategy cheaper than the recommendation that breaks a limit, one sentence
        with its PV and each limit it breaks: what it needs, when, and what the scenario
        allows [currency a year, servers, kW].
    """
    out = []
    for name, r in strategies.items():
        if not r.breaches or r.pv_cost >= strategies[chosen].pv_cost:
            continue
        out.append(Message("{strategy} would cost less (PV {pv}) but breaks the scenario's "
                           "limits, so it is not recommended:",
                           {"strategy": name, "pv": Money(r.pv_cost, currency)}))
        out += [breach_words(b, currency) for b in r.breaches]
    return out


def currency_sentences(ctx: PlanState) -> list[Message]:
    """How a plan in two currencies was converted (one literal sentence per market).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (scenario, first month).

    Returns
    -------
    list of Message
        One sentence naming the rate [reporting currency per foreign unit] at the first month
        and its trend [fraction per year]; none for a plan in one currency.
    """
    s = ctx.scenario
    foreign = s.foreign_currency()
    if foreign is None:
        return []
    fx = s.fx
    params = {"reporting": s.finance.currency, "foreign": foreign,
              "rate": Number(fx.rate, 4 if fx.rate < 10 else 2),
              "month": ctx.calendar.months[0], "trend": Percent(fx.trend_annual, 1)}
    # one literal Message each, so that the catalog extracts all three
    if s.converts("cloud") and s.converts("owned"):
        return [Message("Figures are in {reporting}; owned costs and cloud prices in {foreign} "
                        "are converted at {rate} {reporting} per {foreign} in {month}, "
                        "changing {trend} a year, each payment at its month's rate.", params)]
    if s.converts("cloud"):
        return [Message("Figures are in {reporting}; cloud prices in {foreign} are converted "
                        "at {rate} {reporting} per {foreign} in {month}, changing {trend} a "
                        "year, each payment at its month's rate.", params)]
    if not s.converts("owned"):   # only signed contracts are in the foreign currency
        return [Message("Figures are in {reporting}; the contracts held in {foreign} are "
                        "converted at {rate} {reporting} per {foreign} in {month}, changing "
                        "{trend} a year, each payment at its month's rate.", params)]
    return [Message("Figures are in {reporting}; owned costs in {foreign} are converted at "
                    "{rate} {reporting} per {foreign} in {month}, changing {trend} a year, "
                    "each payment at its month's rate.", params)]


def spot_sentences(ctx: PlanState) -> list[Message]:
    """What checkpoints, lost work and restarts cost interruptible work on spot, as a sentence.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (demand and spot waste).

    Returns
    -------
    list of Message
        One sentence when spot is infeasible or wastes 5 % or more of billed time; none
        otherwise or without interruptible work.
    """
    s, sw = ctx.scenario, ctx.spot_waste
    if ctx.demand.interruptible.sum() <= 0:
        return []
    nodes = s.spot.nodes_per_job
    if not sw.feasible:
        return [Message("Spot is infeasible for the interruptible work: a gang of {nodes} nodes "
                        "is interrupted every {minutes} minutes on average, so checkpoints, "
                        "lost work and restarts would take all of its billed time; it runs on "
                        "demand instead.",
                        {"nodes": nodes, "minutes": Number(sw.mtbi_hours * 60, 1)})]
    if sw.fraction >= 0.05:
        return [Message("Spot wastes {waste} of billed time for gangs of {nodes} nodes on "
                        "checkpoints, lost work and restarts.",
                        {"waste": Percent(sw.fraction), "nodes": nodes})]
    return []
