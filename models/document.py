"""The plan document (design 9.3): plain JSON-ready dicts, the contract of every view.

Figures keep the engine's precision (views round at the edge). Sentences appear twice: as
English text, and as ``*_messages`` (template and typed parameters) for views in other
languages (models/messages.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from models.capacity import Capacity
from models.costs import COST_LINES, CREDIT_LINES
from models.messages import Message
from models.breakeven import BreakevenSection, Charts
from models.explain import Explanation
from models.ledger import Ledger
from models.plan_state import PlanState
from models.profile import PlanCalendar, UsageProfile
from models.scenario import Scenario, scenario_document
from models.robust_document import expected_entry, robust_fields
from models.schedule_words import schedule_json
from models.schedules import cash_by_period, purchase_orders
from models.server_counts import servers_bought, servers_held
from models.strategy_result import StrategyResult
from models.uncertainty import UncertaintySection

DISTRIBUTION_NOTE = ("Each range is triangular (or log-normal) with the base case as its mode, "
                     "not its median, so P50 can differ from the deterministic saving.")
# The rules the figures follow, as the plan document states them (views translate these
# texts: service/i18n/extract.py gives them to the catalogs).
RULES = {
    "horizon_end": {
        "liquidate": "Servers are sold at their resale value and loans paid off at the end of "
                     "the last month; every commitment payment still owed is counted in its "
                     "month and discounted (a commitment cannot be exited).",
        "prorate": "The horizon is a window on a going concern: commitment payments after the "
                   "last month are left out and an upfront payment counts in proportion to its "
                   "months inside the horizon; servers are sold at their resale value at the "
                   "end."},
    "data": "Stored terabytes and egress are charged every month for every strategy, split "
            "between cloud and owned prices in proportion to the month's gross GPU-hours on "
            "owned servers; a month with no work keeps its data by the servers if any are "
            "online, else in the cloud.",
    "cost_per_useful_gpu_hour": "Levelized: PV cost / PV of useful GPU-hours (each month's "
                                "useful GPU-hours discounted like an end-of-month payment); "
                                "the nominal figure is total cost / useful GPU-hours.",
    "normal_and_failure_cost": "normal_cost_pv is the PV cost of the same capacity if nothing "
                               "failed or was interrupted (spot sessions billed at their full "
                               "length, not cut short); failure_cost_pv is what failures and "
                               "interruptions add (overhead GPU-hours at the price of the "
                               "source that ran them, restarts, the billing of spot sessions "
                               "cut short); they sum to pv_cost.",
    "utilization_breakeven": "Marginal: crossings of screening curves for the next server "
                             "bought (on top of the servers held), without storage, egress, "
                             "setup fee or support minimum, owned and cloud compared over the "
                             "months that server is online. All-in: the utilization of "
                             "one server at which owning it costs what the cloud option does "
                             "on a flat profile, every charge included (against spot: all "
                             "work interruptible, spot for the share it can take and on "
                             "demand for the rest; against a commitment: as many committed "
                             "GPUs as one server holds).",
    "breakeven_difference": "Marginal and all-in figures can disagree because they answer "
                            "different questions: the marginal one prices one more server on "
                            "top of those held, over its own online months, without data "
                            "charges, setup fee or support minimum; the all-in one prices a "
                            "single server alone over the horizon with every charge, and a "
                            "charge that does not grow with use (data kept on owned storage "
                            "instead of in the cloud, the setup fee) moves its breakeven a "
                            "long way.",
}



@dataclass
class Plan:
    """A plan, or the part of it computed so far (``stage``).

    ``static``: every strategy but the staged schedule, the recommendation among them, the
    breakevens and the explanation; ``staged``: the staged schedule too (the recommendation,
    breakevens and explanation redone); ``complete``: the uncertainty section too, and the
    ledger (models/ledger.py) the workbook is written from.
    """

    scenario: Scenario
    profile: UsageProfile
    calendar: PlanCalendar
    strategies: dict[str, StrategyResult]
    recommendation: str
    warnings: list[Message]
    breakeven: BreakevenSection
    charts: Charts
    explanation: Explanation
    uncertainty: Optional[UncertaintySection] = None
    input_warnings: list[Message] = field(default_factory=list)  # from reading the usage
    robust: Optional[Any] = None    # models.robust.RobustResult (issue 27), with the staged stage
    stage: str = "complete"
    ledger: Optional[Ledger] = None
    document: dict = field(default_factory=dict)   # plan_document(plan): built with the plan

    @property
    def all_warnings(self) -> list[Message]:
        """Warnings from reading the usage, then the engine's."""
        return self.input_warnings + self.warnings


def demand_summary(ctx: PlanState) -> dict[str, float]:
    """The demand as laid over the plan, for the profile section of the document.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (demand and tables).

    Returns
    -------
    dict
        ``plan_hours`` [h], ``plan_gpu_hours`` and ``plan_gross_gpu_hours`` (with failure
        overhead) [GPU-hours], ``plan_peak_gpus`` [GPUs], ``plan_interruptible_share``
        [fraction], ``months_with_no_work`` [months].

    Notes
    -----
    plan_gpu_hours = sum_h d_h, plan_peak_gpus = max_h d_h, plan_interruptible_share = sum_h
    interruptible_h / sum_h d_h (0 without demand), plan_gross_gpu_hours = sum_m gross_m,
    months_with_no_work = #{m : gross_m <= 0}, with d_h = steady_h + interruptible_h [GPUs].
    """
    total = ctx.demand.total
    return {"plan_hours": int(ctx.calendar.total_hours),
            "plan_gpu_hours": float(total.sum()),
            "plan_peak_gpus": float(total.max()) if total.size else 0.0,
            "plan_interruptible_share": float(ctx.demand.interruptible.sum() / total.sum())
            if total.sum() > 0 else 0.0,
            "plan_gross_gpu_hours": float(ctx.tables.gross.totals.sum()),
            "months_with_no_work": int(np.sum(ctx.tables.gross.totals <= 0))}

def num(x: float) -> Optional[float]:
    """A figure for JSON: NaN and infinity become None.

    Parameters
    ----------
    x : float or None
        The figure.

    Returns
    -------
    float or None
        ``x`` as a float when finite.

    Examples
    --------
    >>> num(2.5), num(float("nan")), num(None)
    (2.5, None, None)
    """
    return float(x) if x is not None and math.isfinite(x) else None


def month_rows(ctx: PlanState, r: StrategyResult) -> list[dict[str, Any]]:
    """The monthly table of a strategy (design 5.1, 9.3).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (calendar, demand by month).
    r : StrategyResult
        Strategy to tabulate.

    Returns
    -------
    list of dict
        One row per month of the horizon, then per month after it in which payments are still
        owed (``after_horizon``: true): ``hours`` [h], demand and GPU-hours by source and
        overhead [GPU-hours], ``servers_online`` [servers], ``committed_gpus`` [GPUs],
        ``servers_online_by_type`` with server types [servers by type id],
        ``owned_utilization`` [fraction], every cost and credit line, ``total_cost``,
        ``cumulative_cost`` and ``discounted_cumulative_cost`` [currency; costs and credits
        both positive, total = costs - credits].
    """
    rows = []
    cumulative, discounted = r.cumulative, r.discounted_cumulative
    book, H = ctx.book, ctx.horizon
    for m, month in enumerate(book.labels[:len(r.total_by_month)]):
        inside = m < H
        row: dict[str, Any] = {
            "month": month, "after_horizon": not inside, "hours": float(book.hours[m]),
            "demand_gpu_hours": float(ctx.tables.useful_by_month[m]) if inside else 0.0,
            "owned_gpu_hours": float(r.owned_gpu_hours_by_month[m]) if inside else 0.0,
            "committed_gpu_hours": float(r.committed_gpu_hours_by_month[m]) if inside else 0.0,
            "spot_gpu_hours": float(r.spot_gpu_hours_by_month[m]) if inside else 0.0,
            "on_demand_gpu_hours": float(r.on_demand_gpu_hours_by_month[m]) if inside else 0.0,
            "overhead_gpu_hours": float(r.volumes.overhead[m]) if inside else 0.0,
            "servers_online": float(r.servers_online[m]) if inside else 0.0,
            "committed_gpus": float(r.committed_gpus_by_month[m]) if inside else 0.0,
            "owned_utilization": float(r.utilization_by_month[m]) if inside else 0.0,
        }
        if r.servers_online_by_type is not None:   # a fleet of server types (issue 26)
            row["servers_online_by_type"] = {k: float(x[m]) if inside else 0.0
                                             for k, x in r.servers_online_by_type.items()}
        for name in COST_LINES + CREDIT_LINES:
            row[name] = float(r.lines[name][m])
        row["total_cost"] = float(r.total_by_month[m])
        row["cumulative_cost"] = float(cumulative[m])
        row["discounted_cumulative_cost"] = float(discounted[m])
        rows.append(row)
    return rows


def capacity_json(plan: Plan, capacity: Optional[Capacity]) -> dict[str, Any]:
    """A static decision as JSON.

    Parameters
    ----------
    plan : Plan
        The plan (its offers).
    capacity : Capacity or None
        The decision.

    Returns
    -------
    dict
        ``servers`` [servers; by type id with server types], ``committed_gpus`` by offer
        [GPUs] and ``uses_spot``; empty for None.
    """
    if capacity is None:
        return {}
    s = plan.scenario
    counts = capacity.counts(s)
    return {"servers": ({t.id: int(counts.get(t.id, 0)) for t in s.server_types}
                        if s.server_types else int(capacity.servers)),
            "committed_gpus": {o.id: int(capacity.committed.get(o.id, 0))
                               for o in plan.scenario.commitments},
            "uses_spot": capacity.use_spot}


def schedule_document(plan: Plan, ctx: PlanState, r: StrategyResult) -> dict[str, Any]:
    """A scheduled strategy's decisions, purchase orders and cash by period.

    Parameters
    ----------
    plan : Plan
        Plan holding the offers and the price book.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).
    r : StrategyResult
        A staged or scheduled strategy.

    Returns
    -------
    dict
        ``schedule``, ``purchase_orders`` and ``cash`` [currency] (models/schedules.py), most
        ``servers`` online [servers], most GPUs signed by offer in one decision
        (``committed_gpus``) [GPUs] and ``uses_spot``.
    """
    labels = ctx.book.labels
    return {"schedule": schedule_json(r.schedule),
            "purchase_orders": purchase_orders(plan.scenario, r.schedule, labels, r,
                                               ctx.book),
            "cash": cash_by_period(labels, r, ctx.book), **schedule_holdings(plan, r)}


def schedule_holdings(plan: Plan, r: StrategyResult) -> dict[str, Any]:
    """What a schedule holds at its most.

    Parameters
    ----------
    plan : Plan
        Plan holding the offers.
    r : StrategyResult
        A staged or scheduled strategy.

    Returns
    -------
    dict
        Most ``servers`` online [servers; by type id with server types], most GPUs signed by
        offer in one decision (``committed_gpus``) [GPUs] and ``uses_spot``.

    Notes
    -----
    servers = max_m servers online_m (per type: max_m n_i(m)) [servers]; committed_gpus[o] =
    max_d commit_d[o] over the decisions d [GPUs].
    """
    servers: Any = int(r.servers)
    if r.servers_online_by_type is not None:
        servers = {k: int(x.max(initial=0.0)) for k, x in r.servers_online_by_type.items()}
    return {"servers": servers, "committed_gpus": {
                o.id: int(max((d.commit.get(o.id, 0) for d in r.schedule), default=0))
                for o in plan.scenario.commitments},
            "uses_spot": r.plan.use_spot}


def strategy_document(plan: Plan, ctx: PlanState, r: StrategyResult) -> dict[str, Any]:
    """One strategy of the plan document (design 9.3).

    Parameters
    ----------
    plan : Plan
        Plan the strategy belongs to.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).
    r : StrategyResult
        Strategy to document.

    Returns
    -------
    dict
        Its capacity or schedule; ``pv_cost``, ``normal_cost_pv``, ``failure_cost_pv``,
        ``total_cost`` [currency]; costs per useful GPU-hour, levelized and nominal [currency
        per GPU-hour, None when undefined]; ``owned_utilization`` [fraction]; ``gpu_hours`` by
        source [GPU-hours]; ``cost_lines`` summed over the months [currency]; ``monthly``
        (:func:`month_rows`); with ``profile.job_gpu_hours``, ``cost_per_job`` [currency per
        job].

    Notes
    -----
    gpu_hours[source] = sum_m GPU-hours_m of the source; cost_lines[l] = sum_m l_m [currency];
    cost_per_job: levelized = J x PV / U_pv, nominal = J x total / U, normal_levelized = J x
    normal PV / U_pv, with J = ``profile.job_gpu_hours`` [GPU-hours], U and U_pv the useful
    GPU-hours and their PV [GPU-hours] (None where undefined).
    """
    job = plan.scenario.profile.job_gpu_hours
    out = {
        **(capacity_json(plan, r.capacity) if r.capacity is not None
           else schedule_document(plan, ctx, r)),
        "pv_cost": r.pv_cost,
        "normal_cost_pv": r.normal_cost_pv,
        "failure_cost_pv": r.failure_cost_pv,
        "total_cost": r.total_cost,
        "cost_per_useful_gpu_hour": num(r.cost_per_useful_gpu_hour),
        "cost_per_useful_gpu_hour_nominal": num(r.cost_per_useful_gpu_hour_nominal),
        "owned_utilization": r.owned_utilization,
        "uses_cloud": r.uses_cloud,
        "breaches": [b.to_json() for b in r.breaches],
        "gpu_hours": {"owned": float(r.owned_gpu_hours_by_month.sum()),
                      "committed": float(r.committed_gpu_hours_by_month.sum()),
                      "spot": float(r.spot_gpu_hours_by_month.sum()),
                      "on_demand": float(r.on_demand_gpu_hours_by_month.sum()),
                      "overhead": float(r.volumes.overhead.sum())},
        "cost_lines": {name: float(values.sum()) for name, values in r.lines.items()},
        "monthly": month_rows(ctx, r),
    }
    if job is not None:
        levelized = r.cost_per_useful_gpu_hour
        normal = r.normal_cost_pv / r.useful_pv if r.useful_pv > 0 else math.nan
        out["cost_per_job"] = {"job_gpu_hours": job, "levelized": num(job * levelized),
                               "nominal": num(job * r.cost_per_useful_gpu_hour_nominal),
                               "normal_levelized": num(job * normal)}
    return out


def messages_json(messages: list[Message]) -> list[dict[str, Any]]:
    """Messages in their JSON-ready form.

    Parameters
    ----------
    messages : list of Message
        The sentences.

    Returns
    -------
    list of dict
        :meth:`models.messages.Message.as_json` of each.
    """
    return [m.as_json() for m in messages]


def breakeven_document(plan: Plan) -> dict[str, Any]:
    """The breakeven section of the plan document (design 5.2).

    Parameters
    ----------
    plan : Plan
        Plan with its breakeven section.

    Returns
    -------
    dict
        Marginal and all-in utilization breakevens [fraction of a year's hours], payback months
        (nominal and discounted, 1-based) [months], price ties [currency per GPU-hour for on
        demand, currency per server], each breakeven's direction, the reasons a breakeven is
        missing (English and as messages) and the basis of each utilization figure.
    """
    b = plan.breakeven
    return {"utilization": b.utilization, "utilization_all_in": b.utilization_all_in,
            "commitment_vs_on_demand": b.commitment_vs_on_demand,
            "payback_month": b.payback_month,
            "payback_month_discounted": b.payback_month_discounted,
            "on_demand_price": b.on_demand_price, "server_price": b.server_price,
            "directions": {k: d.as_json() for k, d in b.directions.items()},
            "reasons": {k: m.text for k, m in b.reasons.items()},
            "reason_messages": {k: m.as_json() for k, m in b.reasons.items()},
            "basis": {"utilization": "marginal", "utilization_all_in": "all-in"}}


def uncertainty_document(plan: Plan, u: UncertaintySection) -> dict[str, Any]:
    """The uncertainty section of the plan document (design 5.4).

    Parameters
    ----------
    plan : Plan
        Plan (its offers, for the capacities).
    u : UncertaintySection
        Tornado and Monte Carlo results.

    Returns
    -------
    dict
        Draws and seed, the judged and baseline plans (the tornado judges the same two:
        ``tornado_judged``, ``tornado_baseline``), whether the judged plan is the
        recommendation, ``deterministic_saving`` and the saving percentiles [currency; > 0: the
        judged plan is cheaper], ``deterministic_note`` when the former lies outside P10 to P90
        (and its message), the distribution note, ``probability_beats_cloud_only`` of each plan
        the draws judge [fraction], regret, the proposed and staged results when present, and
        the tornado.
    """
    note = u.deterministic_note
    beats = {u.judged: u.summary["probability_buy_cheaper"]}
    if u.staged:
        beats["staged"] = u.staged["probability_beats_cloud_only"]
    if u.proposed:
        beats["proposed"] = u.proposed["probability_buy_cheaper"]
    return {"draws": u.draws, "seed": u.seed, "judged": u.judged,
            "judged_plan": judged_json(plan, u.judged, u.judged_capacity),
            "judged_is_recommended": u.judged_is_recommended,
            "baseline": u.baseline, "baseline_plan": capacity_json(plan, u.baseline_capacity),
            "deterministic_saving": u.deterministic_saving, **u.summary,
            "deterministic_note": note.text if note else None,
            "deterministic_note_message": note.as_json() if note else None,
            "distribution_note": DISTRIBUTION_NOTE,
            "probability_beats_cloud_only": beats,
            "regret": u.regret, **({"proposed": u.proposed} if u.proposed else {}),
            **({"staged": u.staged} if u.staged else {}),
            "tornado_judged": u.judged, "tornado_baseline": u.tornado_baseline,
            "tornado": u.tornado}


def judged_json(plan: Plan, name: str, capacity) -> dict[str, Any]:
    """The plan the uncertainty section judges, as JSON.

    Parameters
    ----------
    plan : Plan
        The plan (its offers and strategies).
    name : str
        Strategy name, or ``best_with_servers``.
    capacity : Capacity or CapacityPlan
        Its static capacity, or the cohorts of its schedule.

    Returns
    -------
    dict
        :func:`capacity_json` of a static capacity; for a schedule, the most ``servers``
        online [servers], the most GPUs signed by offer in one decision [GPUs], ``uses_spot``
        and ``schedule``: true.
    """
    if isinstance(capacity, Capacity):
        return capacity_json(plan, capacity)
    return {**schedule_holdings(plan, plan.strategies[name]), "schedule": True}


def profile_document(plan: Plan, ctx: PlanState) -> dict[str, Any]:
    """The usage as read from the file (``file_*``) and as laid over the plan (``plan_*``).

    Parameters
    ----------
    plan : Plan
        Plan with its usage.
    ctx : PlanState
        Context of the plan (demand and tables).

    Returns
    -------
    dict
        ``period``, ``file_first_period``, ``file_periods``, ``file_gpu_hours`` [GPU-hours],
        ``file_peak_gpus_per_period_hour`` [GPUs], ``teams`` and the plan's demand summary
        (:func:`demand_summary`).

    Notes
    -----
    file_peak_gpus_per_period_hour = max_p (steady_p + interruptible_p) / hours_p [GPUs], over the
    file's periods p; file_gpu_hours = :attr:`models.profile.UsageProfile.gpu_hours`.
    """
    p = plan.profile
    total = p.steady + p.interruptible
    hours = p.hours()
    return {"period": p.period, "file_first_period": str(p.starts[0]),
            "file_periods": int(len(p.starts)), "file_gpu_hours": p.gpu_hours,
            "file_peak_gpus_per_period_hour": float((total / hours).max()),
            "teams": dict(p.teams), **demand_summary(ctx)}


def currencies_document(s) -> dict[str, Any]:
    """The reporting currency, each market's, and the rate that converts.

    Parameters
    ----------
    s : Scenario
        Scenario of the plan.

    Returns
    -------
    dict
        ``reporting``, ``owned`` and ``cloud`` ISO 4217 codes, and ``fx`` (``foreign``,
        ``rate`` [reporting currency per foreign unit], ``trend_annual`` [fraction per year],
        ``as_of``), None for a plan in one currency. Every figure of the document is in the
        reporting currency.
    """
    foreign = s.foreign_currency()
    return {"reporting": s.finance.currency, "owned": s.market_currency("owned"),
            "cloud": s.market_currency("cloud"),
            "fx": None if foreign is None else {
                "foreign": foreign, "rate": s.fx.rate, "trend_annual": s.fx.trend_annual,
                "as_of": s.fx.as_of}}


def build_document(plan: Plan, ctx: PlanState) -> dict[str, Any]:
    """The plan document (design 9.3): plain JSON-ready dicts, the contract of every view.

    Parameters
    ----------
    plan : Plan
        The computed plan.
    ctx : PlanState
        Context of the plan (price book, demand, wastes).

    Returns
    -------
    dict
        ``scenario``, ``profile``, ``months``, ``currencies``, ``months_after_horizon``,
        ``rules``, ``strategies`` (each with ``servers_bought`` and ``servers_held``: what
        "servers" means on every card, table and sheet, models/server_counts.py),
        ``savings_vs_on_demand`` (on demand's PV cost minus each
        strategy's [currency]; > 0 when the strategy is cheaper), ``savings_vs_cloud_only``
        (the same against the best cloud-only plan), ``recommendation``, ``waste``
        [fraction of billed time], ``warnings``, ``breakeven``, ``charts``, ``explanation``,
        ``fragile``, ``stage`` (what the plan holds so far: models.plan.STAGES) and, when
        computed, ``uncertainty``. A robust plan (issue 27) is ``strategies.robust``
        (:func:`robust_strategy`); it is never the recommendation (it plans for several
        demands, the others for one), and its savings compare it with on demand and the
        cloud-only plan held fixed over the same demand paths.

    Notes
    -----
    savings_vs_on_demand[s] = PV(on_demand) - PV(s) and savings_vs_cloud_only[s] = PV(cloud_only) -
    PV(s) [currency]; for the robust plan the baselines are their expected PVs held fixed over the
    same demand paths.
    """
    baseline = plan.strategies["on_demand"].pv_cost
    cloud = plan.strategies["cloud_only"].pv_cost
    doc: dict[str, Any] = {
        "scenario": scenario_document(plan.scenario),
        "profile": profile_document(plan, ctx),
        "months": list(ctx.calendar.months),
        "currencies": currencies_document(plan.scenario),
        "months_after_horizon": list(ctx.book.labels[ctx.horizon:]),
        "rules": {"horizon_end": plan.scenario.finance.horizon_end,
                  "horizon_end_text": RULES["horizon_end"][plan.scenario.finance.horizon_end],
                  **{k: v for k, v in RULES.items() if k != "horizon_end"}},
        "strategies": {name: {**strategy_document(plan, ctx, r),
                              "servers_bought": servers_bought(plan.scenario, r),
                              "servers_held": servers_held(ctx)}
                       for name, r in plan.strategies.items()},
        "savings_vs_on_demand": {name: baseline - r.pv_cost
                                 for name, r in plan.strategies.items()},
        "savings_vs_cloud_only": {name: cloud - r.pv_cost
                                  for name, r in plan.strategies.items()},
        "recommendation": plan.recommendation,
        "waste": {"failure": ctx.failure_waste.fraction, "spot": ctx.spot_waste.fraction,
                  "spot_feasible": ctx.spot_waste.feasible,
                  "spot_checkpoint_interval_seconds": num(ctx.spot_waste.interval_seconds)
                  if ctx.spot_waste.feasible else None},
        "warnings": [m.text for m in plan.all_warnings],
        "warning_messages": messages_json(plan.all_warnings),
        "breakeven": breakeven_document(plan),
        "charts": {"screening": plan.charts.screening,
                   "load_duration": plan.charts.load_duration},
        "explanation": plan.explanation.text,
        "explanation_messages": messages_json(plan.explanation.parts),
        "fragile": plan.explanation.fragile,
        "stage": plan.stage,
    }
    if plan.uncertainty is not None:
        doc["uncertainty"] = uncertainty_document(plan, plan.uncertainty)
    if plan.robust is not None:      # issue 27: against the static plans over the same paths
        r = plan.robust
        doc["strategies"]["robust"] = robust_strategy(plan, r)
        for key, name in (("savings_vs_on_demand", "on_demand"),
                          ("savings_vs_cloud_only", "cloud_only")):
            if name in r.held_fixed:
                doc[key]["robust"] = r.held_fixed[name] - doc["strategies"]["robust"]["pv_cost"]
    return doc


def robust_strategy(plan: Plan, r) -> dict[str, Any]:
    """The robust plan's strategy entry (models/robust_document.py): the expectation over
    the demand paths of each path's schedule costed on its own demand, and the robust
    plan's own figures.

    Parameters
    ----------
    plan : Plan
        The plan.
    r : models.robust.RobustResult
        Its robust plan.

    Returns
    -------
    dict
        A strategy entry (:func:`strategy_document`'s keys; ``schedule`` and
        ``purchase_orders`` the here-and-now decisions) with
        :func:`models.robust_document.robust_fields`.
    """
    results = r.path_results()
    entries = [strategy_document(plan, c, x) for c, x in zip(r.contexts, results)]
    orders = [o for o in entries[0]["purchase_orders"] if o["month"] <= r.decide_now_until]
    return {"schedule": schedule_json(r.common), "purchase_orders": orders,
            **expected_entry(entries, [q.probability for q in r.paths], results),
            **robust_fields(r)}


def plan_document(plan: Plan) -> dict[str, Any]:
    """The plan document of a computed plan (built with it by models.plan.Planner).

    Parameters
    ----------
    plan : Plan
        The computed plan.

    Returns
    -------
    dict
        The document (:func:`build_document`).
    """
    return plan.document
