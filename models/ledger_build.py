"""The ledger of a plan (models/ledger.py), built once from the engine's state.

Which cohorts a strategy's sheet shows, and where their inputs live:

- the position: servers owned before the plan (unless a schedule sells servers) and signed
  contracts, one row each;
- a schedule (the staged plan, a proposed schedule): one server cohort per decision row and one
  commitment cohort per decision row and offer (the staged plan's rows are every decision point,
  so a purchase can be added in any of them);
- a static strategy: one server cohort per generation of its chain and one commitment cohort
  per renewal of each offer it commits to;
- a schedule that sells servers: the engine's own server cohorts (a sale splits the cohorts it
  takes from, which are then values, not inputs).

Each cohort's parameters and monthly columns are the cost kernel's own numbers
(models/costs.server_schedule, commitment_schedule), so the sum of a strategy's cohorts is its
cost lines.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from models.capacity import (CommitmentCohort, ServerCohort, commitment_chain, month_index,
                             server_chain)
from models.costs import (cohort_items, commitment_schedule, data_share, server_terms,
                          deductible_by_month, server_schedule)
from models.finance import depreciation_by_age, level_payment, month_hours, monthly_rate
from models.ledger import (COMMIT_ITEMS, SERVER_ITEMS, TYPE_PARAMS, CohortRow, Ledger,
                           PathLedger, ProfileRows, ScheduleRow, StrategyLedger)
from models.plan_state import PlanState
from models.prices import UPFRONT_SHARE, PriceBook
from models.profile import UsageProfile
from models.scenario import Decision
from models.staged_problem import decision_months
from models.strategy_result import StrategyResult

QUANTILE = 0.9   # the demand line a capacity timeline is drawn against (the P90 hour)
SCHEDULED = ("staged", "proposed")
# schedules the engine searched: their sheets list every decision point, where one may be added
SEARCHED = ("staged", "robust")


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
    sales = any(d.sell_servers for d in r.schedule)
    cohorts = strategy_cohorts(ctx, r, rows, sales)
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
        name=r.name, rows=rows, static_servers=static.servers if static else 0,
        static_committed=dict(static.committed) if static else {},
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


def schedule_rows(ctx: PlanState, r: StrategyResult) -> list[ScheduleRow]:
    """The decision rows of a schedule: for the staged plan every decision point and every
    month it decided something in; for a proposed schedule its own decisions.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (first month, decision points).
    r : StrategyResult
        A strategy with a schedule.

    Returns
    -------
    list of ScheduleRow
        Rows in month order; commitments name every offer for the staged plan (a row where an
        offer can be signed), only the offers decided for a proposed schedule.
    """
    first_label = ctx.calendar.months[0]
    first = np.datetime64(first_label, "M")
    by_month = {d.month: d for d in r.schedule}
    offers = [o.id for o in ctx.scenario.commitments]
    searched = r.name in SEARCHED
    if searched:
        months = {str(first + m) for m in decision_months(ctx.scenario, ctx.horizon)}
        months |= set(by_month)
    else:
        months = set(by_month)
    out = []
    for month in sorted(months):
        d = by_month.get(month) or Decision(month=month)
        commit = ({o: int(d.commit.get(o, 0)) for o in offers} if searched
                  else {o: int(v) for o, v in d.commit.items()})
        by_type = {}
        if ctx.scenario.server_types:   # a fleet: the one-type shorthand is the first type's
            by_type = {"buy_by_type": _by_type(d.buy_servers, d.buy, ctx.scenario),
                       "sell_by_type": _by_type(d.sell_servers, d.sell, ctx.scenario)}
        out.append(ScheduleRow(month, month_index(month, first_label), int(d.buy_servers),
                               int(d.sell_servers), commit, **by_type))
    return out


def _by_type(shorthand: int, by_type: dict, s) -> dict[str, int]:
    """A fleet decision's servers by type id, every type named (0 where it decides none); the
    one-type shorthand (``buy_servers``, ``sell_servers``) counts for the first type
    (models.capacity.schedule_plan)."""
    out = {t.id: int(by_type.get(t.id, 0)) for t in s.server_types}
    out[s.server_types[0].id] += int(shorthand)
    return out


def strategy_cohorts(ctx: PlanState, r: StrategyResult, rows: int, sales: bool
                     ) -> list[CohortRow]:
    """Every cohort row of a strategy's sheet (module docstring: which, and from where).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        The strategy.
    rows : int
        Months of its sheet [months].
    sales : bool
        Whether its schedule sells servers.

    Returns
    -------
    list of CohortRow
        Server cohorts first, then commitment cohorts.
    """
    s, book, H = ctx.scenario, ctx.book, ctx.horizon
    o = s.owned
    first = ctx.calendar.months[0]
    servers: list[CohortRow] = []
    commits: list[CohortRow] = []
    offer_index = {offer.id: i for i, offer in enumerate(s.commitments, start=1)}
    position = ctx.position
    # with sales, or a fleet of server types (issue 26), the engine's own cohorts (each with
    # its type and dates) are the rows
    sales = sales or bool(s.server_types)
    if sales:
        servers += [server_row(book, "engine", held_row(s, first, c) if s.server_types else None,
                               c, rows) for c in r.plan.servers]
    else:
        held = iter(position.servers)
        for j, h in enumerate(s.position.servers, start=1):
            bought = month_index(h.purchased, first)
            if min(bought + o.useful_life_months, H) <= 0:
                continue          # retired before the plan: not a cohort of the engine
            servers.append(server_row(book, "position", j, next(held), rows))
    kept = iter(position.commitments)
    for j, c in enumerate(s.position.commitments, start=1):
        if month_index(c.start, first) + c.term_months <= 0:
            continue
        commits.append(commit_row(book, "position", j, next(kept), rows, offer_index))
    if r.schedule:
        for row in schedule_rows(ctx, r):
            m = row.index
            if not sales:
                servers.append(server_row(book, "decision", row.month, ServerCohort(
                    row.buy, m, m + o.lead_time_months, min(m + o.useful_life_months, H)),
                    rows))
            for offer in s.commitments:
                if offer.id in row.commit:
                    commits.append(commit_row(book, "decision", row.month, CommitmentCohort(
                        offer.id, row.commit[offer.id], m, offer.term_months), rows,
                        offer_index))
    elif r.capacity is not None:
        for k, c in enumerate(server_chain(s, r.capacity.servers, H) if not s.server_types
                              else (), start=1):
            servers.append(server_row(book, "chain", k, c, rows))
        for offer in s.commitments:
            chain = commitment_chain(s, offer.id, r.capacity.committed.get(offer.id, 0), H)
            for k, c in enumerate(chain, start=1):
                commits.append(commit_row(book, "chain", k, c, rows, offer_index))
    return servers + commits


def held_row(s, first: str, c: ServerCohort) -> Optional[int]:
    """The 1-based ``position.servers`` row a fleet's cohort was held as (a sale may have split
    it), None for a purchase of the plan.

    Parameters
    ----------
    s : Scenario
        The scenario.
    first : str
        The plan's first month, 'YYYY-MM'.
    c : ServerCohort
        A cohort of the engine's plan.

    Returns
    -------
    int or None
        The first row of the same type, purchase month, price and install cost.
    """
    if c.price is None:
        return None
    default = s.server_types[0].id if s.server_types else None
    for j, h in enumerate(s.position.servers, start=1):
        if ((h.type or default) == c.type and month_index(h.purchased, first) == c.bought
                and h.price == c.price and h.install_cost == c.install):
            return j
    return None


def server_row(book: PriceBook, origin: str, ref, c: ServerCohort, rows: int) -> CohortRow:
    """A server cohort's parameters and monthly columns (for its whole count).

    Parameters
    ----------
    book : PriceBook
        Prices of the plan.
    origin : str
        Where its inputs are (models.ledger.ORIGINS).
    ref : int or str or None
        Its position row, decision month or chain generation.
    c : ServerCohort
        The cohort.
    rows : int
        Months of the sheet [months].

    Returns
    -------
    CohortRow
        Parameters (price, install, basis [currency per server]; months; resale fraction and
        depreciation taken [fraction]; loan principal and level payment [currency per server])
        and monthly columns [servers or currency, (rows,)], priced as the cohort's type (its
        own book in a fleet).

    Notes
    -----
    basis = price + install, principal = basis (1 - down) (:func:`models.costs.server_terms`);
    pmt = :func:`models.finance.level_payment` (principal, apr, term) with a loan, else 0;
    service = max(sold - online, 0), frac = resale fraction at sold - bought, taken = sum of
    :func:`models.finance.depreciation_by_age` over the service months; columns = count x the
    per-server items of :func:`models.costs.server_schedule`, gain = max(g, 0), loss = max(-g, 0)
    [currency].
    """
    book = book.for_type(c.type)
    s = book.scenario
    o, f = s.owned, s.owned.financing
    prices, install, bases, principals = server_terms(book, c)
    price, basis, principal = float(prices[0]), float(bases[0]), float(principals[0])
    install = float(install)
    loan = f.kind == "loan" and c.bought >= 0
    service = max(c.sold - c.online, 0)
    params = {"count": c.count, "bought": c.bought, "online": c.online, "sold": c.sold,
              "price": price, "install": install, "basis": basis, "span": c.sold - c.bought,
              "service": service, "frac": float(book.resale_fraction(c.sold - c.bought)[0]),
              "taken": float(depreciation_by_age(s.finance.tax_depreciation,
                                                 o.useful_life_months, service).sum()),
              "principal": principal,
              "pmt": level_payment(principal, f.apr, f.term_months) if loan else 0.0}
    sch = server_schedule(book, c)
    per = {"online": sch["online"][:, None], "capex": sch["capex"],
           "loan": sch["loan_payment"], "interest": sch["interest"],
           "maint": sch["maintenance"], "dep": sch["depreciation"], "resale": sch["resale"],
           "gain": np.maximum(sch["gain"], 0.0), "loss": np.maximum(-sch["gain"], 0.0)}
    monthly = {k: c.count * np.asarray(v, float)[:rows, 0] for k, v in per.items()}
    return CohortRow("server", origin, ref, params, monthly, type=c.type)


def commit_row(book: PriceBook, origin: str, ref, c: CommitmentCohort, rows: int,
               offer_index: dict[str, int]) -> CohortRow:
    """A commitment cohort's parameters and monthly columns (for all its GPUs).

    Parameters
    ----------
    book : PriceBook
        Prices of the plan.
    origin : str
        Where its inputs are (models.ledger.ORIGINS).
    ref : int or str
        Its position row, decision month or renewal.
    c : CommitmentCohort
        The cohort.
    rows : int
        Months of the sheet [months].
    offer_index : dict of str to int
        1-based position of each offer in the scenario.

    Returns
    -------
    CohortRow
        Parameters (GPUs; start and term [months]; rate [currency per GPU-hour, ex VAT]; upfront
        share [fraction]; term hours [h]; upfront per GPU [currency]; months of the upfront
        counted) and monthly columns [GPUs or currency, (rows,)].

    Notes
    -----
    upfront = u r H_T per GPU, u the upfront share [fraction], r the rate fixed at signing
    [currency per GPU-hour], H_T = sum of the term's month hours [h]; inside = T under
    ``liquidate``, else min(T, H - start) [months]; columns: gpus_m = gpus while active, upfront,
    monthly and prepaid = gpus x the per-GPU items of :func:`models.costs.commitment_schedule`
    [currency].
    """
    s = book.scenario
    offer = book.offers.get(c.offer)
    rate = float(c.rate) if c.rate is not None else float(book.offer_rate(offer, c.start)[0])
    share = UPFRONT_SHARE[c.payment or offer.payment]
    hours = float(month_hours(book.labels[0], c.start, c.term).sum())
    liquidate = s.finance.horizon_end == "liquidate"
    inside = c.term if liquidate else min(c.term, book.horizon - c.start)
    params = {"gpus": c.gpus, "start": c.start, "term": c.term, "rate": rate, "share": share,
              "hours": hours, "upfront": share * rate * hours, "inside": inside}
    sch = commitment_schedule(book, c)
    active = np.zeros(rows)
    active[max(c.start, 0):max(min(c.start + c.term, book.horizon, rows), 0)] = c.gpus
    monthly = {"gpus": active, "upfront": c.gpus * sch["upfront"][:rows, 0],
               "monthly": c.gpus * sch["monthly"][:rows, 0],
               # a prepayment is deducted over the term only when it was paid in the plan
               # (models/costs.cohort_items): a contract's upfront paid before is sunk
               "prepaid": c.gpus * sch["prepaid_deduction"][:rows, 0] * bool(
                   sch["upfront"].any())}
    return CohortRow("commitment", origin, ref, params, monthly, offer=c.offer,
                     offer_index=offer_index.get(c.offer))


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


def demand_lines(ctx: PlanState) -> dict[str, list[float]]:
    """Peak, P90 and average hourly demand of each month, gross of failure overhead.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (sorted demand).

    Returns
    -------
    dict of str to list of float
        ``peak``, ``p90``, ``mean`` [GPUs, (horizon,)].

    Notes
    -----
    peak_m = max_h gross_h, p90_m = the 0.9 quantile of the month's hourly gross demand, mean_m =
    (sum_h gross_h) / hours_m, over the hours h of month m [GPUs].
    """
    table, hours = ctx.tables.gross, ctx.calendar.hours.astype(int)
    width = table.sorted.shape[1]
    p90 = [float(np.quantile(table.sorted[m, width - n:], QUANTILE)) if n else 0.0
           for m, n in enumerate(hours)]
    mean = (table.totals / np.maximum(hours, 1)).tolist()
    return {"peak": table.peak.tolist(), "p90": p90, "mean": mean}


def timeline(ctx: PlanState, r: StrategyResult, demand: dict[str, list[float]]) -> dict:
    """Capacity of a scheduled strategy by month against demand, for its timeline chart.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        A strategy with a schedule.
    demand : dict
        :func:`demand_lines`.

    Returns
    -------
    dict
        ``months``, ``owned`` (and ``owned_by_type`` for a fleet of server types) and each
        commitment cohort's GPUs (held contracts apart),
        average GPUs on ``spot`` and ``on_demand`` [GPUs of demand], ``servers`` online, the
        ``demand`` lines and their ``quantile``.

    Notes
    -----
    owned_m = servers online_m x w (a fleet: sum_i n_i(m) w_i) [GPUs of demand], w the capacity
    per server; spot_m = spot GPU-hours_m / hours_m and on_demand_m likewise [GPUs].
    """
    H, hours = ctx.horizon, ctx.calendar.hours
    owned = r.servers_online[:H] * ctx.owned_per_server()
    extra = {}
    if r.servers_online_by_type is not None:   # a fleet (issue 26): stacked by type
        per_server = {k.id: k.per_server for k in ctx.fleet}
        by_type = {k: x[:H] * per_server[k] for k, x in r.servers_online_by_type.items()}
        owned = sum(by_type.values(), np.zeros(H))
        extra["owned_by_type"] = {k: x.tolist() for k, x in by_type.items()}
    return {"strategy": r.name, "months": list(ctx.calendar.months), **extra,
            "owned": owned.tolist(), "servers": r.servers_online[:H].tolist(),
            "cohorts": timeline_cohorts(ctx, r),
            "spot": (r.spot_gpu_hours_by_month[:H] / hours).tolist(),
            "on_demand": (r.on_demand_gpu_hours_by_month[:H] / hours).tolist(),
            "demand": demand, "quantile": QUANTILE}


def timeline_cohorts(ctx: PlanState, r: StrategyResult) -> list[dict]:
    """Committed GPUs of each cohort by month; cohorts signed in the same month under the same
    offer are one series, contracts of the position are named 'held <id>'.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        A strategy with a schedule.

    Returns
    -------
    list of dict
        ``name``, ``held``, ``gpus`` [GPUs of demand, (horizon,)], held contracts first.

    Notes
    -----
    series_k(m) = sum of gpus_c x theta_c over the cohorts c of series k active in month m
    (start_c <= m < start_c + term_c), theta_c the cloud's relative throughput [GPUs of demand].
    """
    H, months = ctx.horizon, list(ctx.calendar.months)
    theta = ctx.scenario.on_demand.relative_throughput
    held = set(ctx.position.commitments)
    series: dict[str, np.ndarray] = {}
    is_held: dict[str, bool] = {}
    for c in sorted(r.plan.commitments, key=lambda c: (c not in held, c.start, c.offer)):
        lo, hi = max(c.start, 0), max(min(c.start + c.term, H), 0)
        if hi <= lo:
            continue
        if c in held:
            name = f"held {c.offer}"
        else:
            start = months[c.start] if 0 <= c.start < len(months) else str(c.start)
            name = f"{c.offer} from {start}"
        series.setdefault(name, np.zeros(H))[lo:hi] += c.gpus * theta
        is_held[name] = c in held
    return [{"name": name, "held": is_held[name], "gpus": values.tolist()}
            for name, values in series.items()]


def _fx(book: PriceBook, market: str) -> np.ndarray:
    """The price book's rate of a market by month, ones where it is not converted."""
    fx = book.fx[market]
    return np.ones(book.months) if fx is None else fx[:, 0].copy()
