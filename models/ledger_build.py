"""The ledger of a plan (models/ledger.py), built once from the engine's state.

What a plan's workbook writes month by month: plan-wide vectors, each strategy's volumes, cost
lines, tax items and cohorts (models/ledger_cohorts.py says which cohorts and where their inputs
live), the capacity timelines of scheduled strategies (models/ledger_timeline.py) and the
Assumptions sheet's derived values.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from models.cohort_costs import cohort_items
from models.costs import data_share, deductible_by_month
from models.finance import monthly_rate
from models.ledger import (COMMIT_ITEMS, SERVER_ITEMS, TYPE_PARAMS, CohortRow, Ledger,
                           PathLedger, ProfileRows, StrategyLedger)
from models.ledger_cohorts import schedule_rows, sells_servers, strategy_cohorts
from models.ledger_timeline import demand_lines, timeline
from models.plan_state import PlanState
from models.prices import UPFRONT_SHARE, PriceBook
from models.profile import UsageProfile
from models.strategy_result import StrategyResult

SCHEDULED = ("staged", "proposed")


def plan_ledger(ctx: PlanState, strategies: dict[str, StrategyResult],
                profile: UsageProfile, robust=None) -> Ledger:
    """Every month-by-month figure of a plan that its workbook writes.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (price book, demand, position).
    strategies : dict of str to StrategyResult
        The plan's strategies, by name.
    profile : UsageProfile
        The usage as read from the file.
    robust : models.robust.RobustResult, optional
        The robust plan: each path's schedule costed on its own demand (``Ledger.robust``).

    Returns
    -------
    Ledger
        Plan-wide vectors over the price book's months, each strategy's ledger, the derived
        values of the Assumptions sheet, the timelines of scheduled strategies and the robust
        plan's paths.

    Notes
    -----
    steady_m = sum_{h in m} steady_h and interruptible_m likewise [GPU-hours]; peak_m = max_{h in m}
    (steady_h + interruptible_h) [GPUs]; each strategy's :func:`strategy_ledger`.
    """
    book, cal, H = ctx.book, ctx.calendar, ctx.horizon
    month_of_hour = cal.month_of_hour()
    steady = np.bincount(month_of_hour, ctx.demand.steady, minlength=H)
    inter = np.bincount(month_of_hour, ctx.demand.interruptible, minlength=H)
    peak = np.zeros(H)
    np.maximum.at(peak, month_of_hour, ctx.demand.total)
    ledgers = {name: strategy_ledger(ctx, r) for name, r in strategies.items()}
    lines = demand_lines(ctx)
    timelines = {name: timeline(ctx, r, lines) for name, r in strategies.items()
                 if name in SCHEDULED and r.schedule}
    return Ledger(
        horizon=H, labels=tuple(book.labels), hours=np.asarray(book.hours, float),
        end=book.end[:, 0].copy(), start=book.start[:, 0].copy(),
        cloud_trend=book.cloud_trend[:, 0].copy(), power=book.power[:, 0].copy(),
        staff_factor=np.asarray(book.staff_factor, float),
        fx_owned=_fx(book, "owned"), fx_cloud=_fx(book, "cloud"),
        useful=np.asarray(ctx.tables.useful_by_month, float),
        gross=np.asarray(ctx.tables.gross.totals, float), steady=steady, interruptible=inter,
        peak=peak, useful_pv=ctx.useful_pv, calc=assumption_values(book),
        profile=profile_rows(profile), strategies=ledgers, timelines=timelines,
        robust=path_ledgers(robust) if robust is not None else ())


def path_ledgers(robust) -> tuple[PathLedger, ...]:
    """Each demand path of a robust plan, its schedule costed by the engine on its demand.

    Parameters
    ----------
    robust : models.robust.RobustResult
        The robust plan, with each path's context.

    Returns
    -------
    tuple of PathLedger
        In the paths' order; each strategy ledger is named ``robust`` and its decision rows
        are every decision point, as the staged plan's.
    """
    return tuple(
        PathLedger(name=q.name, probability=float(q.probability),
                   growth_annual=float(q.growth_annual),
                   useful=np.asarray(c.tables.useful_by_month, float),
                   gross=np.asarray(c.tables.gross.totals, float), useful_pv=float(c.useful_pv),
                   strategy=strategy_ledger(c, r))
        for q, c, r in zip(robust.paths, robust.contexts, robust.path_results()))


def strategy_ledger(ctx: PlanState, r: StrategyResult) -> StrategyLedger:
    """One strategy's ledger: volumes, cost lines, tax items and cohorts.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        The strategy, costed.

    Returns
    -------
    StrategyLedger
        Its sheet's numbers; a schedule's sheet runs over every month of the price book, so an
        edited decision's payments still have their months.

    Notes
    -----
    Figures from the strategy's result (PV, total, normal and failure PV, costs per useful
    GPU-hour); servers_max = max_m servers online_m, committed_max = max_m committed GPUs_m; rows
    = the price book's months for a schedule, else the months with payments.
    """
    book, H = ctx.book, ctx.horizon
    rows = book.months if r.schedule else len(r.total_by_month)
    items = cohort_items(book, r.plan)
    paid = len(r.total_by_month)
    sales = sells_servers(r.schedule)
    cohorts = strategy_cohorts(ctx, r, rows)
    static = r.capacity
    figures = {
        "pv_cost": r.pv_cost, "total_cost": r.total_cost, "normal_cost_pv": r.normal_cost_pv,
        "failure_cost_pv": r.failure_cost_pv,
        "cost_per_useful_gpu_hour": _finite(r.cost_per_useful_gpu_hour),
        "cost_per_useful_gpu_hour_nominal": _finite(r.cost_per_useful_gpu_hour_nominal),
        "owned_utilization": r.owned_utilization, "uses_cloud": 1.0 if r.uses_cloud else 0.0,
        "servers_max": float(r.servers),
        "committed_max": float(r.committed_gpus_by_month.max(initial=0))}
    return StrategyLedger(
        name=r.name, rows=rows, static_servers=static.server_count if static else 0,
        static_committed=dict(static.committed) if static else {},
        static_servers_by_type={t.id: int(static.counts(ctx.scenario).get(t.id, 0)) if static
                                else 0 for t in ctx.scenario.server_types},
        is_static=static is not None,
        owned_h=r.owned_gpu_hours_by_month, committed_h=r.committed_gpu_hours_by_month,
        spot_h=r.spot_gpu_hours_by_month, od_h=r.on_demand_gpu_hours_by_month,
        overhead_h=np.asarray(r.volumes.overhead, float),
        servers_online=np.asarray(r.servers_online, float),
        committed_gpus=np.asarray(r.committed_gpus_by_month, float),
        data_share=np.asarray(data_share(r.plan, r.volumes, H, False), float),
        lines={k: np.asarray(v, float) for k, v in r.lines.items()},
        total=np.asarray(r.total_by_month, float),
        discounted=np.asarray(r.discounted_by_month, float),
        deductible=np.asarray(deductible_by_month(book, r.plan, r.lines), float),
        prepaid=_item(items, "prepaid", paid), taxable_gain=_item(items, "gains", paid),
        figures=figures, cohort_totals=cohort_totals(cohorts, rows), cohorts=tuple(cohorts),
        schedule_rows=tuple(schedule_rows(ctx, r)) if r.schedule else (), sales=sales,
        owned_h_by_type={k: np.asarray(v, float) for k, v in
                         (r.owned_gpu_hours_by_type or {}).items()})


def cohort_totals(cohorts: list[CohortRow], rows: int) -> dict[str, np.ndarray]:
    """Each monthly column summed over the cohorts.

    Parameters
    ----------
    cohorts : list of CohortRow
        A strategy's cohorts.
    rows : int
        Months of its sheet [months].

    Returns
    -------
    dict of str to numpy.ndarray
        By the keys of ``SERVER_ITEMS`` and ``COMMIT_ITEMS`` [servers, GPUs or currency,
        (rows,)].

    Notes
    -----
    T_k(m) = sum_c monthly_c[k](m) over the cohorts c, for each column k [servers, GPUs or
    currency].
    """
    out = {key: np.zeros(rows) for key in SERVER_ITEMS + COMMIT_ITEMS}
    for c in cohorts:
        for key, values in c.monthly.items():
            out[key] += values
    return out


def _item(items: dict, key: str, rows: int) -> np.ndarray:
    value = items.get(key)
    return np.zeros(rows) if value is None else np.asarray(value[:rows, 0], float)


def _finite(x: float) -> Optional[float]:
    return float(x) if math.isfinite(x) else None


def assumption_values(book: PriceBook) -> dict[str, float]:
    """The engine's values of the Assumptions sheet's derived cells, by defined name.

    Parameters
    ----------
    book : PriceBook
        Prices of the plan.

    Returns
    -------
    dict of str to float
        Monthly discount rate, VAT divisor, billing factors, spot base price, financing and
        conversion flags, busy power per GPU, each offer's first rate and upfront share; in a
        fleet each type's ``TYPE_PARAMS`` (``calc_type_<i>_<field>``, in the field's unit), its
        busy power above idle per GPU with PUE [kW per GPU] and its conversion flag
        (``calc_fx_type_<i>``).

    Notes
    -----
    calc_monthly_rate = (1 + r)^(1/12) - 1; calc_busy_kw_per_gpu = (P_max - P_idle) / G x PUE [kW
    per GPU], G the GPUs per server; calc_commit_i_base = :meth:`models.prices.PriceBook.offer_base`
    of offer i; the VAT divisor, billing factors and spot base price as the price book holds them.
    """
    s = book.scenario
    o = s.owned
    out = {"calc_monthly_rate": monthly_rate(s.finance.discount_rate_annual),
           "calc_vat": book.vat, "calc_rounding": book.od_billing,
           "calc_spot_rounding": float(book.spot_billing[0]),
           "calc_spot_base": float(book.spot_base[0] * book.vat),
           "calc_loan": 1.0 if o.financing.kind == "loan" else 0.0,
           "calc_fx_owned": 1.0 if s.converts("owned") else 0.0,
           "calc_fx_cloud": 1.0 if s.converts("cloud") else 0.0,
           "calc_busy_kw_per_gpu": (o.power_kw_max - o.power_kw_idle) / o.gpus_per_server * o.pue}
    for i, offer in enumerate(s.commitments, start=1):
        out[f"calc_commit_{i}_base"] = float(book.offer_base(offer)[0])
        out[f"calc_commit_{i}_upfront_share"] = UPFRONT_SHARE[offer.payment]
    for i, t in enumerate(s.server_types, start=1):   # a fleet (issue 26): each type's values
        kind = book.for_type(t.id).scenario.owned
        p = f"calc_type_{i}_"
        for name in TYPE_PARAMS:
            out[p + name] = float(getattr(t if name == "resale_drop_at_successor" else kind,
                                          name))
        out[p + "busy_kw_per_gpu"] = ((kind.power_kw_max - kind.power_kw_idle)
                                      / kind.gpus_per_server * kind.pue)
        out[f"calc_fx_type_{i}"] = 1.0 if book.for_type(t.id).converts("owned") else 0.0
    return out


def profile_rows(profile: UsageProfile) -> ProfileRows:
    """The usage as ingested, for the Profile sheet.

    Parameters
    ----------
    profile : UsageProfile
        The usage as read.

    Returns
    -------
    ProfileRows
        Period, starts ('YYYY-MM-DDTHH'), steady and interruptible GPU-hours, teams.
    """
    return ProfileRows(profile.period, tuple(str(t) for t in profile.starts),
                       np.asarray(profile.steady, float),
                       np.asarray(profile.interruptible, float), float(profile.gpu_hours),
                       {str(k): float(v) for k, v in profile.teams.items()})


def _fx(book: PriceBook, market: str) -> np.ndarray:
    """The price book's rate of a market by month, ones where it is not converted."""
    fx = book.fx[market]
    return np.ones(book.months) if fx is None else fx[:, 0].copy()
