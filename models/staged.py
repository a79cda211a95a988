"""The staged plan: when to buy servers and when to sign commitments (issue 14).

Decisions fall every ``staging.decision_interval_months`` from the plan's first month (and at
the end of a useful life or a commitment term, so that every static plan is one of the
schedules). At each: buy whole servers (they take work after the lead time and retire at the
end of their useful life), sell servers if allowed, sign whole blocks of any offer.

Method
------
The PV cost of a schedule is linear in its decisions except for the dispatch: given a month's
sorted demand, its dispatch cost is

    cost_m = const_m + F_m(L2_m) + G_m(L1_m),
    F_m(x) = (c_own - c_int) A_m(x) + (c_int - c_od) B_m(x),   G_m(x) = -c_own A_m(x),

with L1 the committed level, L2 the committed-plus-owned level, A and B the sums of
min(gross demand, x) and min(steady demand, x) over the month's hours (concave), and c the PV
of a GPU-hour owned, on demand, or interruptible overflow (spot for its share, on demand for
the rest). When owned work costs no more than interruptible overflow and that no more than on
demand (c_own <= c_int <= c_od) and owned work costs something (c_own >= 0), F and G are
convex. The schedule of least PV is then a mixed-integer program with an epigraph variable per
month and function, solved by HiGHS (scipy ``milp``) with cutting planes: tangents of F and G
are added where the solution's epigraph value falls short of the true cost, until none does.
Every tangent is a valid lower bound of a convex function, so each MILP is a relaxation; at the
last one the solution's true cost equals the relaxation's optimum, which proves it optimal.
All coefficients are PVs of unit decisions read off the cost kernel (models/costs.py), the
rules every other strategy is priced with.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.capacity import (CapacityPlan, CommitmentCohort, ServerCohort, combined,
                             schedule_plan)
from models.costs import (commitment_schedule, cost_lines, present_value, server_schedule)
from models.dispatch import Volumes
from models.highs import solve_mip
from models.optimize import best_capacity, optimizer_state
from models.scenario import MAX_SERVERS, Decision, Scenario
from models.strategies import PlanContext

MAX_ROUNDS = 60
KEEP_CUTS = 3      # tangents kept per month and function after the first LP (strongest_cuts)
# HiGHS's root heuristics (RINS, RENS, reduced-cost fixing) spent two thirds of each solve's LP
# iterations on these problems, where rounding already finds the optimum at the root: without
# them the bench scenario's search takes 0.19 s instead of 0.30 s (bench/staged.py 0.36 s
# instead of 0.52 s), with the same schedules.
HIGHS_OPTIONS = {"presolve": False, "mip_heuristic_effort": 0.0,
                 "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
                 "mip_heuristic_run_root_reduced_cost": False}
# Wall-clock limits: the samples solve in under a second, but extreme inputs the schema allows
# (prices 10^12 apart) scale the MILP so badly that HiGHS can search for hours. At the limit
# the best schedule found is kept, with its distance to HiGHS's lower bound as the gap.
MILP_SECONDS = 20.0
TOTAL_SECONDS = 40.0


class StagedError(ValueError):
    """A staged optimum that cannot be proven (the conditions of the method do not hold)."""


def decision_months(s: Scenario, horizon: int) -> list[int]:
    """Month indices of the decision points (design 5.3).

    Parameters
    ----------
    s : Scenario
        The scenario (decision interval, useful life, offer terms).
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    list of int
        0-based month indices, ascending: every interval, and the ends of useful lives and of
        terms counted from month 0 [months].
    """
    months = set(range(0, horizon, s.staging.decision_interval_months))
    months |= set(range(0, horizon, s.owned.useful_life_months))
    for offer in s.commitments:
        months |= set(range(0, horizon, offer.term_months))
    return sorted(months)


@dataclass
class StagedResult:
    decisions: tuple[Decision, ...]
    plan: CapacityPlan
    objective: float           # PV of the proven optimum [currency]
    rounds: int                # cutting-plane rounds
    cuts: int
    use_spot: bool
    notes: list[str] = field(default_factory=list)
    gap: float = 0.0           # proven distance to the optimum [currency]; 0: optimal
    timed_out: bool = False    # stopped at TOTAL_SECONDS with the best schedule found


@dataclass
class Problem:
    """The pieces of the MILP that do not change between cutting-plane rounds."""

    columns: list[tuple]          # what each variable is: ("buy", d), ("commit", k, d), ...
    cost: np.ndarray              # objective coefficient per variable
    upper: np.ndarray             # upper bound per variable
    integer: np.ndarray
    l1: sp.csr_matrix             # (H, nvars): new committed level by month, per variable
    l2: sp.csr_matrix             # (H, nvars): new committed-plus-owned level by month
    held_l1: np.ndarray           # the position's levels by month
    held_l2: np.ndarray
    rows: list                    # (coefficients, lo, hi) of the budget and hall constraints
    base: float                   # PV every schedule pays (position, data at cloud prices)
    z: int                        # index of the first epigraph variable (z_m, then w_m)

    def upper_finite(self) -> np.ndarray:
        """The decision variables' upper bounds, 0 for the others.

        Returns
        -------
        numpy.ndarray
            Bounds [servers or blocks, (nvars,)].
        """
        out = np.where(np.isfinite(self.upper), self.upper, 0.0)
        out[self.z:] = 0.0
        return out


def staged_optimum(ctx: PlanContext) -> StagedResult:
    """The schedule of least PV cost (exact; see the module notes).

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (position, staging limits, offers).

    Returns
    -------
    StagedResult
        Decisions, their cohorts, the PV of the optimum [currency] and the proven gap to it
        [currency; 0: optimal]. With spot first; without spot only when that cannot be solved.

    Raises
    ------
    StagedError
        The conditions of the method do not hold, with spot or without.
    """
    # With spot cheaper than on demand in every month (what the convexity check asks), spot
    # for interruptible overflow never costs more than none: the variant without spot is only
    # solved when the one with spot cannot be.
    try:
        return solve(ctx, use_spot=True)
    except StagedError as first:
        if ctx.demand.interruptible.sum() <= 0:
            raise
        try:
            return solve(ctx, use_spot=False)
        except StagedError as second:
            raise StagedError(f"{first}; without spot: {second}") from None


def month_costs(ctx: PlanContext, use_spot: bool) -> tuple[np.ndarray, ...]:
    """PV per demand-unit GPU-hour owned, interruptible overflow and on demand, by month.

    Parameters
    ----------
    ctx : PlanContext
        Context whose optimizer coefficients are read.
    use_spot : bool
        Whether spot takes its share of interruptible overflow.

    Returns
    -------
    c_own : numpy.ndarray
        Owned [currency per GPU-hour of demand units, (months,)].
    c_int : numpy.ndarray
        Interruptible overflow: spot for its share, on demand for the rest [currency per
        GPU-hour of demand units, (months,)].
    c_od : numpy.ndarray
        On demand [currency per GPU-hour of demand units, (months,)].
    """
    lc, _ = optimizer_state(ctx)
    s = ctx.scenario
    sw, fw = ctx.spot_waste.fraction, ctx.tables_failure_waste
    share = s.spot.availability if (use_spot and sw < 1) else 0.0
    spot_per_left = share * (1.0 - fw) / (1.0 - sw) if share else 0.0
    c_own, c_od = lc.owned_unit_pv, lc.on_demand_unit_pv
    c_int = spot_per_left * lc.spot_unit_pv + (1.0 - share) * c_od
    return c_own, c_int, c_od


def check_convex(c_own, c_int, c_od) -> np.ndarray:
    """The months in which G (the committed level's cost) is concave.

    Parameters
    ----------
    c_own : numpy.ndarray
        PV of an owned GPU-hour by month [currency per GPU-hour].
    c_int : numpy.ndarray
        PV of an interruptible overflow GPU-hour by month [currency per GPU-hour].
    c_od : numpy.ndarray
        PV of an on-demand GPU-hour by month [currency per GPU-hour].

    Returns
    -------
    numpy.ndarray
        True in a month where owned work costs less than nothing (owned data far cheaper than
        cloud data) [bool, (months,)].

    Raises
    ------
    StagedError
        F is not convex: owned work dearer than overflow, or spot dearer than on demand, in some
        month.
    """
    tol = 1e-12 * max(1.0, float(np.max(np.abs(c_od))))
    if (c_own > c_int + tol).any():
        raise StagedError("a busy owned GPU-hour costs more than cloud overflow in some month: "
                          "the staged optimum cannot be proven")
    if (c_int > c_od + tol).any():
        raise StagedError("spot costs more than on demand in some month")
    return c_own < -tol


def unit_pv(ctx: PlanContext, plan: CapacityPlan, base: float) -> float:
    """PV of a set of cohorts on top of the position, no volume, linear terms only.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (price book, position).
    plan : CapacityPlan
        Cohorts to price.
    base : float
        PV of the position alone [currency].

    Returns
    -------
    float
        PV added by the cohorts [currency].
    """
    H, book = ctx.horizon, ctx.book
    gross = ctx.tables.gross.totals.reshape(-1, 1)
    zero = np.zeros((H, 1))
    idle = Volumes(zero, zero, zero, zero, zero, zero, gross)
    lines = cost_lines(book, combined(ctx.position, plan), idle, linear=True)
    return float(present_value(book, lines)[0]) - base


def build_problem(ctx: PlanContext, use_spot: bool) -> Problem:
    """The MILP's variables, costs, bounds, capacity levels and limit rows.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (decision months, limits, position).
    use_spot : bool
        Whether the schedule may use spot.

    Returns
    -------
    Problem
        The parts that do not change between cutting-plane rounds: one variable per purchase,
        sale and signed block at each decision point (PV per unit [currency]), then the
        epigraph and level variables of each month.
    """
    s, H = ctx.scenario, ctx.horizon
    o, theta_c = s.owned, s.on_demand.relative_throughput
    lc, _ = optimizer_state(ctx)
    per_server = ctx.owned_per_server()
    months = decision_months(s, H)
    peak = float(ctx.tables.gross.peak.max(initial=0.0))
    n_hi = min(math.ceil(peak / per_server) + 1, MAX_SERVERS)
    if s.staging.max_servers is not None:
        n_hi = min(n_hi, s.staging.max_servers)
    columns, cost, upper = [], [], []
    l1: list[dict[int, float]] = []
    l2: list[dict[int, float]] = []
    capex, upfront = [], []

    def column(kind: tuple, c: float, hi: float, levels1: dict, owned: dict,
               paid: float = 0.0) -> None:
        """A variable: its PV per unit, bound, committed and owned capacity by month."""
        columns.append(kind)
        cost.append(c)
        upper.append(hi)
        l1.append(levels1)
        l2.append(owned)
        capex.append(paid)

    base = lc.base_pv
    for d in months:   # servers bought at d
        cohort = ServerCohort(1, d, d + o.lead_time_months, min(d + o.useful_life_months, H))
        online = range(max(cohort.online, 0), cohort.sold)
        paid = float(server_schedule(ctx.book, cohort)["capex"][:, 0].sum())
        column(("buy", d), unit_pv(ctx, CapacityPlan((cohort,)), base), n_hi, {},
               {m: per_server for m in online}, paid)
    for offer in s.commitments:
        block = offer.block_gpus
        for d in months:
            cohort = CommitmentCohort(offer.id, block, d, offer.term_months)
            active = range(d, min(d + offer.term_months, H))
            levels = {m: block * theta_c for m in active}
            paid = float(block * commitment_schedule(ctx.book, CommitmentCohort(
                offer.id, 1, d, offer.term_months))["upfront"][:, 0].sum())
            column(("commit", offer.id, d), unit_pv(ctx, CapacityPlan((), (cohort,)), base),
                   math.ceil(peak / (block * theta_c)) + 1, levels, {}, paid)
    if s.staging.allow_sales:
        held = [("held", i, c) for i, c in enumerate(ctx.position.servers)]
        bought = [("bought", d, ServerCohort(1, d, d + o.lead_time_months,
                                             min(d + o.useful_life_months, H)))
                  for d in months]
        for kind, key, c in held + bought:
            one = ServerCohort(1, c.bought, c.online, c.sold, c.price, c.install)
            keep = unit_pv(ctx, CapacityPlan((one,)), base)
            for d in months:
                if c.bought < d < c.sold:
                    early = ServerCohort(1, c.bought, c.online, d, c.price, c.install)
                    gone = range(max(d, c.online, 0), c.sold)
                    column(("sell", kind, key, d), unit_pv(ctx, CapacityPlan((early,)), base)
                           - keep, c.count if kind == "held" else n_hi, {},
                           {m: -per_server for m in gone})
    n = len(columns)
    for m in range(H):   # epigraphs: z_m of F_m(L2_m), then w_m of G_m(L1_m)
        column(("z", m), 1.0, np.inf, {}, {})
    for m in range(H):
        column(("w", m), 1.0, np.inf, {}, {})
    for which in ("l1", "l2"):       # the levels themselves, so that a cut has two entries
        for m in range(H):
            column((which, m), 0.0, np.inf, {}, {})

    def matrix(levels: list[dict[int, float]]) -> sp.csr_matrix:
        r, c, v = [], [], []
        for j, entries in enumerate(levels):
            for m, value in entries.items():
                r.append(m)
                c.append(j)
                v.append(value)
        return sp.csr_matrix((v, (r, c)), shape=(H, len(levels)))

    L1 = matrix(l1)
    L2 = matrix(l2) + L1
    rows = limit_rows(ctx, columns, np.array(capex), L2 - L1, per_server)
    rows += sale_rows(ctx, columns)
    integer = np.array([1 if k[0] in ("buy", "commit", "sell") else 0 for k in columns])
    held_l1 = ctx.committed_capacity(0.0)
    held_l2 = held_l1 + ctx.owned_capacity(0)
    # level rows: l1_m - (new committed level) = held, l2_m - (new committed + owned) = held
    ident = sp.csr_matrix((np.ones(H), (np.arange(H), np.arange(H))), shape=(H, H))
    first_l1 = n + 2 * H
    pad = lambda at: sp.hstack([sp.csr_matrix((H, at)), ident,  # noqa: E731
                                sp.csr_matrix((H, len(columns) - at - H))]).tocsr()
    rows.append((pad(first_l1) - L1, held_l1, held_l1))
    rows.append((pad(first_l1 + H) - L2, held_l2, held_l2))
    return Problem(columns, np.array(cost), np.array(upper, dtype=float), integer, L1, L2,
                   held_l1, held_l2, rows, base, n)


def limit_rows(ctx: PlanContext, columns: list[tuple], paid: np.ndarray,
               owned: sp.csr_matrix, per_server: float) -> list:
    """The capital budget per calendar year and the hall limit as constraint rows.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (``staging`` limits).
    columns : list of tuple
        What each variable is.
    paid : numpy.ndarray
        Purchase or upfront cash per unit of each variable [currency, (nvars,)].
    owned : scipy.sparse.csr_matrix
        Owned capacity by month per variable [GPUs of demand units, (months, nvars)].
    per_server : float
        Capacity of one server [GPUs of demand units].

    Returns
    -------
    list of tuple
        (coefficients, lo, hi): cash per year <= ``capital_budget_per_year`` [currency],
        servers online per month <= ``max_servers`` [servers].
    """
    s, H = ctx.scenario, ctx.horizon
    rows = []
    budget = s.staging.capital_budget_per_year
    if budget is not None:
        years = {}
        first = np.datetime64(ctx.calendar.months[0], "M")
        for j, kind in enumerate(columns):
            if kind[0] in ("buy", "commit") and paid[j] > 0:
                year = int(str(first + kind[-1])[:4])
                years.setdefault(year, np.zeros(len(columns)))[j] = paid[j]
        rows += [(coef, -np.inf, budget) for coef in years.values()]
    if s.staging.max_servers is not None:
        held = ctx.position.servers_online(H)
        servers = owned / per_server          # servers online by month, per variable
        for m in range(H):
            coef = servers.getrow(m).toarray().ravel()
            rows.append((coef, -np.inf, s.staging.max_servers - held[m]))
    return rows


def sale_rows(ctx: PlanContext, columns: list[tuple]) -> list:
    """Servers sold from a cohort, over all decision points, are at most those it has.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (servers of the position).
    columns : list of tuple
        What each variable is.

    Returns
    -------
    list of tuple
        (coefficients, lo, hi) per cohort sold from [servers].
    """
    rows = []
    cohorts = {(k[1], k[2]) for k in columns if k[0] == "sell"}
    for kind, key in sorted(cohorts, key=str):
        coef = np.zeros(len(columns))
        for j, k in enumerate(columns):
            if k[0] == "sell" and (k[1], k[2]) == (kind, key):
                coef[j] = 1.0
            elif kind == "bought" and k == ("buy", key):
                coef[j] = -1.0
        hi = ctx.position.servers[key].count if kind == "held" else 0.0
        rows.append((coef, -np.inf, hi))
    return rows


def solve(ctx: PlanContext, use_spot: bool) -> StagedResult:
    """The cutting-plane loop: MILPs with tangents of F and G added until each month's cut is tight.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan to schedule.
    use_spot : bool
        Spot allowed for interruptible overflow.

    Returns
    -------
    StagedResult
        The schedule found, re-costed by the engine, with its objective and gap [currency].

    Raises
    ------
    StagedError
        The method's conditions do not hold, or a MILP does not solve.
    """
    c_own, c_int, c_od = month_costs(ctx, use_spot)
    concave = check_convex(c_own, c_int, c_od)
    prob = build_problem(ctx, use_spot)
    gross, steady = ctx.tables.gross, ctx.tables.steady
    H = ctx.horizon
    alpha, beta, gamma = c_own - c_int, c_int - c_od, c_own
    constant = float(c_od @ steady.totals + c_int @ (gross.totals - steady.totals))

    def f(levels: np.ndarray) -> np.ndarray:        # F_m at each month's level
        return alpha * gross.sum_min(levels) + beta * steady.sum_min(levels)

    def f_slope(levels: np.ndarray) -> np.ndarray:  # a subgradient of F_m
        return alpha * (gross.sorted > levels[:, None]).sum(axis=1) + \
            beta * (steady.sorted > levels[:, None]).sum(axis=1)

    def g(levels: np.ndarray) -> np.ndarray:
        return -gamma * gross.sum_min(levels)

    def g_slope(levels: np.ndarray) -> np.ndarray:
        return -gamma * (gross.sorted > levels[:, None]).sum(axis=1)

    cuts: list = []   # (month, which, slope, intercept): epigraph >= intercept + slope x

    def add_cuts(levels2: np.ndarray, levels1: np.ndarray, only=None) -> int:
        added = 0
        for which, x, fn, slope in (("z", levels2, f, f_slope), ("w", levels1, g, g_slope)):
            value, s_ = fn(x), slope(x)
            for m in range(H) if only is None else only[which]:
                if which == "w" and concave[m]:
                    continue        # a tangent of a concave function is no lower bound
                cuts.append((m, which, float(s_[m]), float(value[m] - s_[m] * x[m])))
                added += 1
        return added

    # where G is concave, its chord over the committed levels it can take is its convex
    # envelope: a valid lower bound, exact at both ends (no new commitment, or the most)
    top = prob.held_l1 + np.asarray(prob.l1 @ prob.upper_finite(), dtype=float).ravel()
    low_g, high_g = g(prob.held_l1), g(top)
    for m in np.flatnonzero(concave):
        width = top[m] - prob.held_l1[m]
        slope = (high_g[m] - low_g[m]) / width if width > 0 else 0.0
        cuts.append((m, "w", float(slope), float(low_g[m] - slope * prob.held_l1[m])))

    # start from tangents at deciles of each month's demand and at the levels of the best
    # static plan and its neighbours (the staged optimum is rarely far from it)
    shortest = int(ctx.calendar.hours.min())
    for q in np.linspace(0.0, 1.0, 11):
        level = np.quantile(gross.sorted[:, -shortest:], q, axis=1)
        add_cuts(level, level)
    static = ctx.capacity_plan(best_capacity(ctx)[0])
    theta_c = ctx.scenario.on_demand.relative_throughput
    s1 = static.committed_gpus(H) * theta_c
    s2 = s1 + static.servers_online(H) * ctx.owned_per_server()
    for k in (-2, -1, 0, 1, 2):
        add_cuts(np.maximum(s2 + k * ctx.owned_per_server(), 0.0),
                 np.maximum(s1 + k * 8 * theta_c, 0.0))
    nvar = len(prob.cost)
    cuts = strongest_cuts(prob, cuts, nvar, concave)
    rounds = 0
    deadline = time.monotonic() + TOTAL_SECONDS
    timed_out, dual = False, -math.inf
    while True:
        rounds += 1
        left = deadline - time.monotonic()
        x, timed_out, dual = solve_milp(prob, cuts, nvar, max(min(MILP_SECONDS, left), 1.0))
        timed_out = timed_out or time.monotonic() >= deadline
        l1 = prob.held_l1 + prob.l1 @ x
        l2 = prob.held_l2 + prob.l2 @ x
        true_f, true_g = f(l2), g(l1)
        z, w = x[prob.z:prob.z + H], x[prob.z + H:prob.z + 2 * H]
        scale = 1e-9 * max(1.0, float(np.abs(true_f).sum() + np.abs(true_g).sum()) / H)
        short = {"z": np.flatnonzero(z < true_f - scale),
                 "w": np.flatnonzero((w < true_g - scale) & ~concave)}
        if timed_out or not (short["z"].size or short["w"].size) or rounds >= MAX_ROUNDS:
            break
        add_cuts(l2, l1, short)
    objective = float(prob.base + constant + prob.cost[:prob.z] @ x[:prob.z]
                      + true_f.sum() + true_g.sum())
    bound = float(prob.base + constant + (dual if timed_out else prob.cost @ x))
    decisions = to_decisions(ctx, prob, x)
    plan = schedule_plan(ctx.scenario, decisions, ctx.calendar.months[0], H, ctx.position,
                         use_spot)
    notes = [] if rounds < MAX_ROUNDS else [f"stopped after {MAX_ROUNDS} cutting-plane rounds"]
    if timed_out:
        notes.append(f"stopped at the {TOTAL_SECONDS:.0f} s time limit")
    result = StagedResult(decisions, plan, objective, rounds, len(cuts), use_spot, notes)
    unproven = concave.any() or rounds >= MAX_ROUNDS or timed_out
    result.gap = max(objective - bound, 0.0) if unproven else 0.0
    result.timed_out = timed_out
    if timed_out and not math.isfinite(result.gap):
        result.gap = abs(objective)
    return result


def strongest_cuts(prob: Problem, cuts: list, nvar: int, concave: np.ndarray,
                   keep: int = KEEP_CUTS) -> list:
    """The tangents that bound each month's epigraph most tightly near the LP optimum.

    Any subset of valid tangents still makes each MILP a relaxation, and the loop adds the
    tangent at every level where the kept ones fall short, so the proof of the optimum is
    unchanged. Fewer rows make every MILP of the loop cheaper (about 2,000 rows become 500).

    Parameters
    ----------
    prob : Problem
        The fixed parts of the MILP.
    cuts : list of tuple
        (month, "z" or "w", slope, intercept) of each starting tangent.
    nvar : int
        Number of variables.
    concave : numpy.ndarray
        Months whose G is concave: their chords are kept whole [bool, (months,)].
    keep : int, default KEEP_CUTS
        Tangents kept per month and function.

    Returns
    -------
    list of tuple
        For each month and function, the ``keep`` tangents highest at the level of the LP
        relaxation's optimum.
    """
    x, _, _ = solve_milp(prob, cuts, nvar, relax=True)
    H = prob.l1.shape[0]
    levels = {"z": x[prob.z + 3 * H:prob.z + 4 * H], "w": x[prob.z + 2 * H:prob.z + 3 * H]}
    groups: dict = {}
    for cut in cuts:
        m, which, slope, intercept = cut
        groups.setdefault((m, which), []).append((intercept + slope * levels[which][m], cut))
    out = []
    for (m, which), group in groups.items():
        if which == "w" and concave[m]:
            out += [cut for _, cut in group]
        else:
            group.sort(key=lambda item: -item[0])
            out += [cut for _, cut in group[:keep]]
    return out


def solve_milp(prob: Problem, cuts: list, nvar: int, seconds: float = MILP_SECONDS,
               relax: bool = False) -> tuple[np.ndarray, bool, float]:
    """One MILP of the cutting-plane loop, solved to a proven optimum within a time limit.

    Parameters
    ----------
    prob : Problem
        The fixed parts of the MILP.
    cuts : list of tuple
        (month, "z" or "w", slope, intercept) of each tangent so far.
    nvar : int
        Number of variables.
    seconds : float, default MILP_SECONDS
        Time limit [s].
    relax : bool, default False
        Solve the LP relaxation (every variable continuous) instead.

    Returns
    -------
    x : numpy.ndarray
        The solution, integers rounded.
    timed_out : bool
        Whether the time limit stopped it.
    bound : float
        HiGHS's lower bound of the objective [currency]; -inf when not reported.

    Raises
    ------
    StagedError
        HiGHS found no solution.
    """
    H = prob.l1.shape[0]
    months = np.array([cut[0] for cut in cuts])
    is_z = np.array([cut[1] == "z" for cut in cuts])
    slope = np.array([cut[2] for cut in cuts])
    k = np.arange(len(cuts))
    epigraph = np.where(is_z, prob.z + months, prob.z + H + months)
    level = np.where(is_z, prob.z + 3 * H + months, prob.z + 2 * H + months)
    # epigraph_m - slope x level_m >= intercept: two entries a cut
    A = sp.csr_matrix((np.r_[np.ones(len(cuts)), -slope], (np.r_[k, k], np.r_[epigraph, level])),
                      shape=(len(cuts), nvar))
    lower = np.where(np.isinf(prob.upper), -np.inf, 0.0)
    rows = [A] + [coef if sp.issparse(coef) else sp.csr_matrix(coef.reshape(1, -1))
                  for coef, _, _ in prob.rows]
    row_lower = np.concatenate([np.array([cut[3] for cut in cuts], float)] +
                               [np.broadcast_to(lo_, (r.shape[0],)) for r, (_, lo_, _)
                                in zip(rows[1:], prob.rows)])
    row_upper = np.concatenate([np.full(len(cuts), np.inf)] +
                               [np.broadcast_to(hi_, (r.shape[0],)) for r, (_, _, hi_)
                                in zip(rows[1:], prob.rows)])
    # Without presolve (HIGHS_OPTIONS): on these problems it costs more than it saves
    # (bench/staged.py 0.46 s against 1.38 s), and HiGHS 1.12's repair of a presolved solution
    # printed a stray line (ERGO-Code/HiGHS#2783) that would land in the CLI's output.
    result = solve_mip(prob.cost, 0 * prob.integer if relax else prob.integer, lower,
                       prob.upper, sp.vstack(rows, format="csr"), row_lower, row_upper,
                       {"mip_rel_gap": 0.0, "time_limit": float(seconds), **HIGHS_OPTIONS})
    if result.x is None:
        raise StagedError(f"the staged MILP did not solve: {result.status}")
    x = result.x.copy()
    ints = prob.integer.astype(bool)
    x[ints] = np.round(x[ints])
    return x, result.timed_out, result.bound


def to_decisions(ctx: PlanContext, prob: Problem, x: np.ndarray) -> tuple[Decision, ...]:
    """A MILP solution as a schedule.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (first month, offers, position).
    prob : Problem
        The MILP's parts (what each variable is).
    x : numpy.ndarray
        The solution.

    Returns
    -------
    tuple of models.scenario.Decision
        One decision per month with any: servers bought and sold (with ``sell_from``) [servers]
        and GPUs signed per offer [GPUs].
    """
    first = np.datetime64(ctx.calendar.months[0], "M")
    by_month: dict[int, dict] = {}
    for j, kind in enumerate(prob.columns):
        if kind[0] not in ("buy", "commit", "sell") or x[j] < 0.5:
            continue
        d = kind[-1]
        entry = by_month.setdefault(d, {"buy": 0, "sell": 0, "from": {}, "commit": {}})
        count = int(x[j])
        if kind[0] == "buy":
            entry["buy"] += count
        elif kind[0] == "commit":
            offer = next(o for o in ctx.scenario.commitments if o.id == kind[1])
            entry["commit"][kind[1]] = entry["commit"].get(kind[1], 0) + count * offer.block_gpus
        else:
            cohort = (ctx.position.servers[kind[2]].bought if kind[1] == "held" else kind[2])
            label = str(first + cohort)
            entry["sell"] += count
            entry["from"][label] = entry["from"].get(label, 0) + count
    return tuple(Decision(month=str(first + d), buy_servers=e["buy"], sell_servers=e["sell"],
                          sell_from=e["from"], commit=e["commit"])
                 for d, e in sorted(by_month.items()))
