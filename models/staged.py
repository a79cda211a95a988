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
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.capacity import (Capacity, CapacityPlan, CommitmentCohort, ServerCohort,
                             combined, commitment_chain, server_chain, schedule_plan)
from models.costs import (commitment_schedule, cost_lines, present_value, server_schedule)
from models.dispatch import Volumes
from models.fleet import fleet_types
from models.highs import proves, solve_mip
from models.limits import LOOP_MILPS, node_limit
from models.optimize import best_capacity, optimizer_state
from models.refusals import Refusal
from models.scenario import MAX_SERVERS, Decision, Scenario
from models.strategies import PlanContext

MAX_ROUNDS = 60
LOOSE_GAP = 1e-4   # relative gap of the loop rounds that only place tangents (then exact)
KEEP_CUTS = 3      # tangents kept per month and function after the first LP (strongest_cuts)
# HiGHS's root heuristics (RINS, RENS, reduced-cost fixing) spent two thirds of each solve's LP
# iterations on these problems, where rounding already finds the optimum at the root: without
# them the bench scenario's search takes 0.19 s instead of 0.30 s (bench/staged.py 0.36 s
# instead of 0.52 s), with the same schedules.
# Strong branching (HiGHS's default until a variable's pseudocost is reliable after 8
# branchings) took two thirds of the LP iterations of a fleet's staged MILPs, whose gaps are
# tiny from the root: branching on pseudocosts from the first node proves the same optima in
# half the time (bench/staged.py --types 3: 5.7 s -> 2.3 s).
HIGHS_OPTIONS = {"presolve": False, "mip_heuristic_effort": 0.0,
                 "mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False,
                 "mip_heuristic_run_root_reduced_cost": False, "mip_pscost_minreliable": 0}
# Work limits, never wall time (models.highs.node_limit): the samples prove their optimum in
# a few hundred nodes, but extreme inputs the schema allows (prices 10^12 apart) scale the MILP
# so badly that HiGHS could search for hours. At the limit the best schedule found is kept,
# with its distance to HiGHS's lower bound as the gap, the same on every machine and load.


class StagedError(Refusal):
    """A staged optimum that cannot be proven (the conditions of the method do not hold)."""


def decision_months(s: Scenario, horizon: int, first_month: Optional[str] = None) -> list[int]:
    """Month indices of the decision points (design 5.3).

    Parameters
    ----------
    s : Scenario
        The scenario (decision interval, useful life, offer terms).
    horizon : int
        Months of the horizon [months].
    first_month : str, optional
        The plan's first month, ``'YYYY-MM'``: with server types, each type's useful lives and
        the month it becomes available are decision points too.

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
    if s.server_types and first_month is not None:
        for kind in fleet_types(s, first_month):   # each type's lives, and its first month
            months |= set(range(0, horizon, kind.owned.useful_life_months))
            if 0 < kind.first < horizon:
                months.add(kind.first)
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
    limited: bool = False      # stopped at its work limit with the best schedule found
    capacity: Optional[Capacity] = None   # the decision of a static fleet problem
    values: dict = field(default_factory=dict)   # decision column -> its value in the optimum
    # the last MILP's solution, every variable (the robust plan stacks the paths' solutions)
    solution: Optional[np.ndarray] = field(default=None, repr=False)


@dataclass
class Problem:
    """The pieces of the MILP that do not change between cutting-plane rounds.

    Variables: the decisions (``columns[:z]``), then blocks of one variable a month: the
    epigraphs z (F of the top level), w (G of the committed level), the levels l1 (committed)
    and l2 (committed plus every owned type), then, for a fleet of T server types, T - 1
    epigraphs of the levels between types and those levels (issue 26).
    """

    columns: list[tuple]          # what each variable is: ("buy", type, d), ("commit", k, d), ...
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
    middle: list = field(default_factory=list)       # (H, nvars) levels between types
    held_middle: list = field(default_factory=list)  # the position's levels between types
    fixed: dict = field(default_factory=dict)        # variable index -> the value it is held at
    paid: Optional[np.ndarray] = None   # purchase or upfront cash per unit of each decision

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

    def epigraph(self, which, m):
        """Index of the epigraph variable of a function in a month.

        Parameters
        ----------
        which : str or int
            ``"z"`` (the top level), ``"w"`` (the committed level) or a middle level k >= 1.
        m : int or numpy.ndarray
            Month index, or indices [months].

        Returns
        -------
        int or numpy.ndarray
            Variable index, or indices.
        """
        H = self.l1.shape[0]
        if which == "z":
            return self.z + m
        if which == "w":
            return self.z + H + m
        return self.z + 4 * H + (which - 1) * H + m

    def level(self, which, m):
        """Index of the level variable a function is taken at in a month.

        Parameters
        ----------
        which : str or int
            ``"z"``, ``"w"`` or a middle level k >= 1 (as :meth:`epigraph`).
        m : int or numpy.ndarray
            Month index, or indices [months].

        Returns
        -------
        int or numpy.ndarray
            Variable index, or indices.
        """
        H = self.l1.shape[0]
        if which == "z":
            return self.z + 3 * H + m
        if which == "w":
            return self.z + 2 * H + m
        return self.z + 4 * H + len(self.middle) * H + (which - 1) * H + m

    def levels(self, x: np.ndarray) -> dict:
        """Every function's level by month at a solution.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of the MILP.

        Returns
        -------
        dict
            ``"w"`` the committed level, ``"z"`` the top, k the level after the k-th type of
            the merit order [GPUs of the reference type, (months,)].
        """
        out = {"w": self.held_l1 + self.l1 @ x, "z": self.held_l2 + self.l2 @ x}
        for k, (mat, held) in enumerate(zip(self.middle, self.held_middle), start=1):
            out[k] = held + mat @ x
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


def type_costs(ctx: PlanContext) -> list[np.ndarray]:
    """PV of a GPU-hour of work on each owned type, in the merit order (issue 26).

    Parameters
    ----------
    ctx : PlanContext
        Context whose optimizer coefficients are read.

    Returns
    -------
    list of numpy.ndarray
        One array per type, first to take work first [currency per GPU-hour of the reference
        type, (months,)]; the one owned cost of a scenario without server types.

    Raises
    ------
    StagedError
        A later type of the merit order costs less than an earlier one in some month (the cost
        of owned work would not be convex in the levels).
    """
    lc, _ = optimizer_state(ctx)
    if lc.owned_unit_pv_by_type is None:
        return [lc.owned_unit_pv]
    out = [lc.owned_unit_pv_by_type[ctx.fleet[i].id] for i in ctx.merit]
    tol = 1e-12 * max(1.0, float(np.max(np.abs(lc.on_demand_unit_pv))))
    for a, b in zip(out, out[1:]):
        if (a > b + tol).any():
            raise StagedError("the server types' costs of a GPU-hour of work cross over the "
                              "months (power prices in two currencies): the staged optimum "
                              "cannot be proven")
    return out


def build_problem(ctx: PlanContext, use_spot: bool, static: bool = False, servers: bool = True
                  ) -> Problem:
    """The MILP's variables, costs, bounds, capacity levels and limit rows.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (decision months, limits, position).
    use_spot : bool
        Whether the schedule may use spot.
    static : bool, default False
        The static problem of a fleet instead (issue 26): one variable per server type (its
        servers from month 1, replaced at each life's end while the type is sold) and per offer
        (its GPUs from month 1, renewed), no sale, and no ``staging`` limit (as every static
        strategy).
    servers : bool, default True
        False: no new server in the static problem (its server variables are bounded by 0).

    Returns
    -------
    Problem
        The parts that do not change between cutting-plane rounds: one variable per purchase
        (per type), sale and signed block at each decision point (PV per unit [currency]),
        then the epigraph and level variables of each month.
    """
    s, H = ctx.scenario, ctx.horizon
    theta_c = s.on_demand.relative_throughput
    lc, _ = optimizer_state(ctx)
    months = decision_months(s, H, ctx.calendar.months[0])
    peak = float(ctx.tables.gross.peak.max(initial=0.0))
    kinds = [ctx.fleet[i] for i in ctx.merit]          # merit order
    rank = {k.id: r for r, k in enumerate(kinds)}

    def n_hi(kind) -> int:
        hi = min(math.ceil(peak / kind.per_server) + 1, MAX_SERVERS)
        if s.staging.max_servers is not None and not static:
            hi = min(hi, s.staging.max_servers)
        return hi

    columns, cost, upper, capex = [], [], [], []
    l1: list[dict[int, float]] = []
    owned: list[tuple[int, dict[int, float]]] = []   # (merit rank, capacity by month)

    def column(kind: tuple, c: float, hi: float, levels1: dict, rank_: int = 0,
               capacity: Optional[dict] = None, paid: float = 0.0) -> None:
        """A variable: its PV per unit, bound, committed and owned capacity by month."""
        columns.append(kind)
        cost.append(c)
        upper.append(hi)
        l1.append(levels1)
        owned.append((rank_, capacity or {}))
        capex.append(paid)

    base = lc.base_pv
    if static:
        for kind in ctx.fleet:
            chain = server_chain(s, 1, H, kind)
            if not chain or chain[0].bought != 0:
                continue                           # not sold in the first month
            online = CapacityPlan(chain).servers_online(H)
            column(("chain", kind.id), unit_pv(ctx, CapacityPlan(chain), base),
                   n_hi(kind) if servers else 0, {},
                   rank[kind.id], {m: kind.per_server * online[m] for m in range(H)
                                   if online[m]})
        for offer in s.commitments:
            block = offer.block_gpus
            chain = commitment_chain(s, offer.id, block, H)
            levels = {m: block * theta_c for m in range(H)}
            column(("renew", offer.id), unit_pv(ctx, CapacityPlan((), chain), base),
                   math.ceil(peak / (block * theta_c)) + 1, levels)
    else:
        for kind in ctx.fleet:       # servers of each type bought at d
            o = kind.owned
            for d in months:
                if not kind.can_buy(d):
                    continue
                cohort = ServerCohort(1, d, d + o.lead_time_months,
                                      min(d + o.useful_life_months, H), type=kind.id)
                online = range(max(cohort.online, 0), cohort.sold)
                paid = float(server_schedule(ctx.book, cohort)["capex"][:, 0].sum())
                column(("buy", kind.id, d), unit_pv(ctx, CapacityPlan((cohort,)), base),
                       n_hi(kind), {}, rank[kind.id], {m: kind.per_server for m in online},
                       paid)
        for offer in s.commitments:
            block = offer.block_gpus
            for d in months:
                cohort = CommitmentCohort(offer.id, block, d, offer.term_months)
                active = range(d, min(d + offer.term_months, H))
                levels = {m: block * theta_c for m in active}
                paid = float(block * commitment_schedule(ctx.book, CommitmentCohort(
                    offer.id, 1, d, offer.term_months))["upfront"][:, 0].sum())
                column(("commit", offer.id, d), unit_pv(ctx, CapacityPlan((), (cohort,)), base),
                       math.ceil(peak / (block * theta_c)) + 1, levels, paid=paid)
        if s.staging.allow_sales:
            by_id = {k.id: k for k in ctx.fleet}
            held = [("held", i, c) for i, c in enumerate(ctx.position.servers)]
            bought = [("bought", (k.id, d), ServerCohort(
                1, d, d + k.owned.lead_time_months, min(d + k.owned.useful_life_months, H),
                type=k.id)) for k in ctx.fleet for d in months if k.can_buy(d)]
            for kind, key, c in held + bought:
                per_server = by_id[c.type].per_server
                one = ServerCohort(1, c.bought, c.online, c.sold, c.price, c.install, c.type)
                keep = unit_pv(ctx, CapacityPlan((one,)), base)
                for d in months:   # never in month 0: a sale is booked the month before
                    if max(c.bought, 0) < d < c.sold:
                        early = ServerCohort(1, c.bought, c.online, d, c.price, c.install,
                                             c.type)
                        gone = range(max(d, c.online, 0), c.sold)
                        column(("sell", kind, key, d),
                               unit_pv(ctx, CapacityPlan((early,)), base) - keep,
                               c.count if kind == "held" else n_hi(by_id[c.type]), {},
                               rank[c.type], {m: -per_server for m in gone})
    n = len(columns)
    T = len(kinds)
    for m in range(H):   # epigraphs: z_m of F_m(L2_m), then w_m of G_m(L1_m)
        column(("z", m), 1.0, np.inf, {})
    for m in range(H):
        column(("w", m), 1.0, np.inf, {})
    for which in ("l1", "l2"):       # the levels themselves, so that a cut has two entries
        for m in range(H):
            column((which, m), 0.0, np.inf, {})
    for k in range(1, T):            # a fleet: epigraphs and levels between types
        for m in range(H):
            column(("y", k, m), 1.0, np.inf, {})
    for k in range(1, T):
        for m in range(H):
            column(("lk", k, m), 0.0, np.inf, {})

    def matrix(levels: list[dict[int, float]]) -> sp.csr_matrix:
        r, c, v = [], [], []
        for j, entries in enumerate(levels):
            for m, value in entries.items():
                r.append(m)
                c.append(j)
                v.append(value)
        return sp.csr_matrix((v, (r, c)), shape=(H, len(levels)))

    L1 = matrix(l1)
    by_rank = [matrix([cap if r == k else {} for r, cap in owned]) for k in range(T)]
    L2 = sum(by_rank[1:], by_rank[0]) + L1
    per_type = {kinds[k].id: by_rank[k] for k in range(T)}
    rows = [] if static else limit_rows(ctx, columns, np.array(capex), per_type)
    rows += sale_rows(ctx, columns)
    integer = np.array([1 if k[0] in ("buy", "commit", "sell", "chain", "renew") else 0
                        for k in columns])
    held_l1 = ctx.committed_capacity(0.0)
    held_types = (ctx.owned_levels(ctx.position) if s.server_types else
                  {None: ctx.owned_capacity(0)})
    held_rank = [held_types[k.id] for k in kinds]
    held_l2 = held_l1 + sum(held_rank[1:], held_rank[0])
    middle, held_middle, level, held_level = [], [], L1, held_l1
    for k in range(T - 1):
        level, held_level = level + by_rank[k], held_level + held_rank[k]
        middle.append(level.tocsr())
        held_middle.append(held_level)
    prob = Problem(columns, np.array(cost), np.array(upper, dtype=float), integer, L1, L2,
                   held_l1, held_l2, rows, base, n, middle, held_middle,
                   paid=np.array(capex, dtype=float))
    # level rows: l_m - (new level) = held, for the committed, the top and every middle level
    ident = sp.csr_matrix((np.ones(H), (np.arange(H), np.arange(H))), shape=(H, H))
    pad = lambda at: sp.hstack([sp.csr_matrix((H, at)), ident,  # noqa: E731
                                sp.csr_matrix((H, len(columns) - at - H))]).tocsr()
    rows.append((pad(prob.level("w", 0)) - L1, held_l1, held_l1))
    rows.append((pad(prob.level("z", 0)) - L2, held_l2, held_l2))
    for k in range(1, T):
        rows.append((pad(prob.level(k, 0)) - middle[k - 1], held_middle[k - 1],
                     held_middle[k - 1]))
    return prob


def limit_rows(ctx: PlanContext, columns: list[tuple], paid: np.ndarray, owned: dict) -> list:
    """The capital budget per calendar year and the hall limits as constraint rows.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (``staging`` limits).
    columns : list of tuple
        What each variable is.
    paid : numpy.ndarray
        Purchase or upfront cash per unit of each variable [currency, (nvars,)].
    owned : dict
        Type id (None without server types) to owned capacity by month per variable [GPUs
        of the reference type, (months, nvars)].

    Returns
    -------
    list of tuple
        (coefficients, lo, hi): cash per year <= ``capital_budget_per_year`` [currency],
        servers online per month <= ``max_servers`` [servers], their power at maximum draw x
        PUE per month <= ``max_power_kw`` [kW].
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
    kinds = {k.id: k for k in ctx.fleet}
    held = ctx.position.servers_online_by_type(H)
    for limit, weight in ((s.staging.max_servers, lambda k: 1.0),
                          (s.staging.max_power_kw, lambda k: k.owned.power_kw_max * k.owned.pue)):
        if limit is None:
            continue
        # servers online by month, per variable, weighted (1, or kW each)
        coef = sum((owned[t] * (weight(kinds[t]) / kinds[t].per_server) for t in owned),
                   sp.csr_matrix((H, len(columns))))
        before = sum((held.get(t, np.zeros(H)) * weight(kinds[t]) for t in owned), np.zeros(H))
        coef = sp.csr_matrix(coef)
        for m in range(H):
            rows.append((coef.getrow(m).toarray().ravel(), -np.inf, limit - before[m]))
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
            elif kind == "bought" and k == ("buy", *key):
                coef[j] = -1.0
        hi = ctx.position.servers[key].count if kind == "held" else 0.0
        rows.append((coef, -np.inf, hi))
    return rows


def solve(ctx: PlanContext, use_spot: bool, static: bool = False, servers: bool = True,
          fixed: Optional[dict] = None, block: Optional["Block"] = None,
          loose: bool = False) -> StagedResult:
    """The cutting-plane loop: MILPs with tangents of each month's convex functions added until
    each month's cut is tight.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan to schedule.
    use_spot : bool
        Spot allowed for interruptible overflow.
    static : bool, default False
        Solve the static problem of a fleet instead (:func:`build_problem`); the result's
        ``capacity`` is the decision.
    servers : bool, default True
        False: the static problem without new servers.
    fixed : dict, optional
        Decisions held at given values: column (``("buy", type, d)`` ...) to its count
        (issue 27: the later decisions re-optimized under fixed first ones).
    block : Block, optional
        A block built before (for ``ctx`` and ``use_spot``) to solve and keep: its tangents,
        tight at this optimum when it returns, start the robust plan's extensive form.
    loose : bool, default False
        Solve the rounds that only place tangents to ``LOOSE_GAP`` before the exact ones.

    Returns
    -------
    StagedResult
        The schedule found, re-costed by the engine, with its objective and gap [currency].

    Raises
    ------
    StagedError
        The method's conditions do not hold, or a MILP does not solve.

    Notes
    -----
    With the owned types in merit order, c_1 <= ... <= c_T their PV per GPU-hour of work,
    L_0 the committed level and L_k the level after the k-th type, a month's dispatch cost is
    const + G(L_0) + sum_k H_k(L_k) + F(L_T) with G(x) = -c_1 A(x), H_k(x) = (c_k - c_{k+1})
    A(x) and F as in the module notes with c_own = c_T: each convex (A is concave), so each
    gets an epigraph variable and tangents. One type is the module's F and G.
    """
    block = block or Block(ctx, use_spot, static, servers, fixed)
    prob = block.prob
    rounds = 0
    per_milp = node_limit(block.nvar)
    budget, used = LOOP_MILPS * per_milp, 0       # nodes over every round of the loop
    limited, dual = False, -math.inf
    # loose: rounds that only place tangents are solved to a small gap; once none falls short
    # the MILP is solved exactly, and the loop ends at an exact solution with no shortfall
    # (one plan's own MILPs gain nothing from it: bench/staged.py 0.94 s either way)
    rel_gap = LOOSE_GAP if loose else 0.0
    while True:
        rounds += 1
        x, limited, dual, nodes = solve_milp(prob, block.cuts, block.nvar,
                                             max(min(per_milp, budget - used), 1),
                                             rel_gap=rel_gap)
        used += nodes
        true, short = block.shortfalls(x)
        tight = not any(v.size for v in short.values())
        if not limited and not tight and used >= budget:
            limited = True          # the loop's nodes spent before its tangents were placed
        if tight and rel_gap > 0 and not limited:
            rel_gap = 0.0
            continue
        if limited or tight or rounds >= MAX_ROUNDS:
            break
        block.add_cuts(prob.levels(x), short)
    objective = block.objective(x, true)
    bound = float(prob.base + block.constant + (dual if limited else prob.cost @ x))
    capacity = None
    H = ctx.horizon
    if static:
        capacity = to_capacity(ctx, prob, x, use_spot)
        decisions = ()
        plan = ctx.capacity_plan(capacity)
    else:
        decisions = to_decisions(ctx, prob, x)
        plan = schedule_plan(ctx.scenario, decisions, ctx.calendar.months[0], H, ctx.position,
                             use_spot)
    notes = [] if rounds < MAX_ROUNDS else [f"stopped after {MAX_ROUNDS} cutting-plane rounds"]
    if limited:
        notes.append(f"stopped at its work limit ({budget:,} branch-and-bound nodes)")
    result = StagedResult(decisions, plan, objective, rounds, len(block.cuts), use_spot, notes)
    result.capacity = capacity
    result.values = {k: float(x[j]) for j, k in enumerate(prob.columns[:prob.z])}
    unproven = block.concave.any() or rounds >= MAX_ROUNDS or limited
    # a bound within half a cent proves the schedule even where a work limit stopped HiGHS
    result.gap = max(objective - bound, 0.0) if unproven and not proves(bound, objective) \
        else 0.0
    result.limited = limited
    result.solution = x
    if limited and not math.isfinite(result.gap):
        result.gap = abs(objective)
    return result


class Block:
    """One demand's MILP and tangents: the state of the cutting-plane loop of one plan.

    :func:`solve` runs one; the robust plan (models/robust.py, issue 27) stacks one per
    demand scenario into one MILP. Each month's convex functions (module notes; with types, the
    levels between them) get epigraph variables bounded by tangents.
    """

    def __init__(self, ctx: PlanContext, use_spot: bool, static: bool = False,
                 servers: bool = True, fixed: Optional[dict] = None):
        """Build the MILP's fixed parts and the starting tangents.

        Parameters
        ----------
        ctx : PlanContext
            Context of the plan (its demand, prices, position and limits).
        use_spot : bool
            Spot allowed for interruptible overflow.
        static : bool, default False
            The static problem of a fleet (:func:`build_problem`).
        servers : bool, default True
            False: the static problem without new servers.
        fixed : dict, optional
            Column to the value it is held at.

        Raises
        ------
        StagedError
            The method's conditions do not hold.
        """
        c_own, c_int, c_od = month_costs(ctx, use_spot)
        costs = type_costs(ctx)
        check_convex(costs[-1], c_int, c_od)
        concave = costs[0] < -1e-12 * max(1.0, float(np.max(np.abs(c_od))))
        prob = build_problem(ctx, use_spot, static, servers)
        if fixed:
            prob.fixed = {j: float(fixed[k]) for j, k in enumerate(prob.columns) if k in fixed}
        self.ctx, self.prob, self.concave = ctx, prob, concave
        gross, steady = ctx.tables.gross, ctx.tables.steady
        H = ctx.horizon
        T = len(costs)
        alpha, beta, gamma = costs[-1] - c_int, c_int - c_od, costs[0]
        self.constant = float(c_od @ steady.totals + c_int @ (gross.totals - steady.totals))

        def above(table, levels: np.ndarray) -> np.ndarray:   # hours above each month's level
            return (table.sorted > levels[:, None]).sum(axis=1)

        funcs = {"z": (lambda x: alpha * gross.sum_min(x) + beta * steady.sum_min(x),
                       lambda x: alpha * above(gross, x) + beta * above(steady, x)),
                 "w": (lambda x: -gamma * gross.sum_min(x), lambda x: -gamma * above(gross, x))}
        for k in range(1, T):
            step = costs[k - 1] - costs[k]
            funcs[k] = ((lambda x, step=step: step * gross.sum_min(x)),
                        (lambda x, step=step: step * above(gross, x)))
        order = ["z", "w", *range(1, T)]
        self.funcs, self.order = funcs, order
        # a static problem's months share their levels' expressions: one epigraph a group
        # makes its MILPs 3x faster; a schedule's few shared months save fewer rows than the
        # weaker relaxation costs (one summed tangent a group, not one a month:
        # bench/staged.py 0.9 s -> 1.5 s), so a schedule keeps one epigraph a month
        self.owner = (month_groups(prob, order, concave) if static else
                      {which: np.arange(H) for which in order})
        self.reps = {which: np.flatnonzero(self.owner[which] == np.arange(H))
                     for which in order}
        for which in order:     # a group's epigraph is its first month's; the others are 0
            prob.upper[prob.epigraph(which,
                                     np.flatnonzero(self.owner[which] != np.arange(H)))] = 0.0
        self.cuts: list = []   # (month, which, slope, intercept): epigraph >= intercept + slope x

        # where G is concave, its chord over the committed levels it can take is its convex
        # envelope: a valid lower bound, exact at both ends (no new commitment, or the most)
        g = funcs["w"][0]
        top = prob.held_l1 + np.asarray(prob.l1 @ prob.upper_finite(), dtype=float).ravel()
        low_g, high_g = g(prob.held_l1), g(top)
        for m in np.flatnonzero(concave):
            width = top[m] - prob.held_l1[m]
            slope = (high_g[m] - low_g[m]) / width if width > 0 else 0.0
            self.cuts.append((m, "w", float(slope), float(low_g[m] - slope * prob.held_l1[m])))

        # start from tangents at deciles of each month's demand and at the levels of the best
        # static plan and its neighbours (the staged optimum is rarely far from it)
        shortest = int(ctx.calendar.hours.min())
        for q in np.linspace(0.0, 1.0, 11):
            level = np.quantile(gross.sorted[:, -shortest:], q, axis=1)
            self.add_cuts({which: level for which in order})
        if not static:
            theta_c = ctx.scenario.on_demand.relative_throughput
            unit = ctx.fleet[ctx.merit[0]].per_server
            # a fleet: the best plan of its first type (any levels are valid tangent points;
            # the fleet's own static optimum costs more time than it saves)
            static_plan_ = ctx.capacity_plan(best_capacity(ctx)[0])
            s1 = static_plan_.committed_gpus(H) * theta_c
            owned = list(ctx.owned_levels(static_plan_).values()) if ctx.scenario.server_types \
                else [static_plan_.servers_online(H) * ctx.owned_per_server()]
            for k in (-2, -1, 0, 1, 2):
                levels = {"w": np.maximum(s1 + k * 8 * theta_c, 0.0)}
                running = s1.copy()
                for r, capacity in enumerate(owned, start=1):
                    running = running + capacity
                    levels["z" if r == T else r] = np.maximum(running + k * unit, 0.0)
                self.add_cuts(levels)
        self.nvar = len(prob.cost)
        self.cuts = strongest_cuts(prob, self.cuts, self.nvar, concave)

    def add_cuts(self, levels: dict, only: Optional[dict] = None) -> int:
        """Tangents of each function at the given levels.

        Parameters
        ----------
        levels : dict
            Function (``"z"``, ``"w"``, a middle level k) to its level by month [GPUs of the
            reference type, (months,)].
        only : dict, optional
            Function to the months to add a tangent in; None: every month (group).

        Returns
        -------
        int
            Tangents added.
        """
        H, added = self.ctx.horizon, 0
        for which in self.order:
            fn, slope = self.funcs[which]
            owner = self.owner[which]
            x = levels[which][owner]     # one level per group: its first month's
            value = np.bincount(owner, weights=fn(x), minlength=H)
            s_ = np.bincount(owner, weights=slope(x), minlength=H)
            for m in self.reps[which] if only is None else only[which]:
                if which == "w" and self.concave[m]:
                    continue        # a tangent of a concave function is no lower bound
                self.cuts.append((m, which, float(s_[m]), float(value[m] - s_[m] * x[m])))
                added += 1
        return added

    def shortfalls(self, x: np.ndarray) -> tuple[dict, dict]:
        """Each function's true cost at a solution, and the months whose epigraph falls short.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of this block's variables.

        Returns
        -------
        true : dict
            Function to its cost by month at the solution's levels [currency, (months,)].
        short : dict
            Function to the months (groups) whose epigraph is below the true cost.
        """
        prob, H = self.prob, self.ctx.horizon
        levels = prob.levels(x)
        true = {which: self.funcs[which][0](levels[which]) for which in self.order}
        scale = 1e-9 * max(1.0, float(sum(np.abs(v).sum() for v in true.values())) / H)
        short = {}
        for which in self.order:     # each group's epigraph against its months' true cost
            owner = self.owner[which]
            group_true = np.bincount(owner, weights=true[which], minlength=H)
            size = np.bincount(owner, minlength=H)
            at = self.reps[which]
            short[which] = at[x[prob.epigraph(which, at)] < group_true[at] - scale * size[at]]
        short["w"] = np.array([m for m in short["w"] if not self.concave[m]], dtype=int)
        return true, short

    def objective(self, x: np.ndarray, true: dict) -> float:
        """PV of a solution with every function at its true cost.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of this block's variables.
        true : dict
            Each function's true cost by month at it (:meth:`shortfalls`) [currency].

        Returns
        -------
        float
            The PV of the schedule [currency].
        """
        prob = self.prob
        return float(prob.base + self.constant + prob.cost[:prob.z] @ x[:prob.z]
                     + sum(v.sum() for v in true.values()))


def month_groups(prob: Problem, order: list, concave: np.ndarray) -> dict:
    """Months whose level of a function is the same expression in the decisions share one
    epigraph variable.

    Where two months' levels are the same held level plus the same multiple of every decision
    (a static plan's months after the lead time; months between decision points of a
    schedule), the levels are equal at every solution, and the sum of the months' convex
    functions is one convex function of that level: one epigraph bounded by tangents of the
    sum is exact, and the MILP loses most of its rows (bench/optimize.py --types 3: a fleet's
    static optimum in 1 epigraph per function instead of 60). Concave months stay alone.

    Parameters
    ----------
    prob : Problem
        The MILP's parts (each level's coefficients and held part by month).
    order : list
        The functions (``"z"``, ``"w"``, middle levels k).
    concave : numpy.ndarray
        Months whose G is concave [bool, (months,)].

    Returns
    -------
    dict
        Function to the first month of each month's group [month index, (months,)].
    """
    H = prob.l1.shape[0]
    exprs = {"z": (prob.l2, prob.held_l2), "w": (prob.l1, prob.held_l1)}
    for k, (mat, held) in enumerate(zip(prob.middle, prob.held_middle), start=1):
        exprs[k] = (mat, held)
    out = {}
    for which in order:
        mat, held = exprs[which]
        mat = sp.csr_matrix(mat, copy=True)
        mat.sum_duplicates()
        mat.sort_indices()
        first: dict = {}
        owner = np.arange(H)
        for m in range(H):
            if which == "w" and concave[m]:
                continue
            row = slice(mat.indptr[m], mat.indptr[m + 1])
            key = (float(held[m]), mat.indices[row].tobytes(), mat.data[row].tobytes())
            owner[m] = first.setdefault(key, m)
        out[which] = owner
    return out


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
        (month, "z", "w" or a middle level k, slope, intercept) of each starting tangent.
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
    x, _, _, _ = solve_milp(prob, cuts, nvar, relax=True)
    months = np.arange(prob.l1.shape[0])
    levels = {which: x[prob.level(which, months)] for which in
              ["z", "w", *range(1, len(prob.middle) + 1)]}
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


def solve_milp(prob: Problem, cuts: list, nvar: int, nodes: int | None = None,
               relax: bool = False, rel_gap: float = 0.0
               ) -> tuple[np.ndarray, bool, float, int]:
    """One MILP of the cutting-plane loop, solved to a proven optimum within a work limit.

    Parameters
    ----------
    prob : Problem
        The fixed parts of the MILP.
    cuts : list of tuple
        (month, "z", "w" or a middle level k, slope, intercept) of each tangent so far.
    nvar : int
        Number of variables.
    nodes : int, optional
        Branch-and-bound nodes HiGHS may search; default ``node_limit(nvar)``.
    relax : bool, default False
        Solve the LP relaxation (every variable continuous) instead.
    rel_gap : float, default 0
        HiGHS's relative gap: 0 proves the optimum; a loop round that only places tangents
        may stop near it (LOOSE_GAP).

    Returns
    -------
    x : numpy.ndarray
        The solution, integers rounded.
    limited : bool
        Whether the work limit stopped it.
    bound : float
        HiGHS's lower bound of the objective [currency]; -inf when not reported.
    searched : int
        Branch-and-bound nodes searched.

    Raises
    ------
    StagedError
        HiGHS found no solution.
    """
    A, row_lower, row_upper = assemble(prob, cuts, nvar)
    lower, upper = bounds(prob)
    # Without presolve (HIGHS_OPTIONS): on these problems it costs more than it saves
    # (bench/staged.py 0.46 s against 1.38 s), and HiGHS 1.12's repair of a presolved solution
    # printed a stray line (ERGO-Code/HiGHS#2783) that would land in the CLI's output.
    result = solve_mip(prob.cost, 0 * prob.integer if relax else prob.integer, lower,
                       upper, A, row_lower, row_upper,
                       {"mip_rel_gap": rel_gap,
                        "mip_max_nodes": int(node_limit(nvar) if nodes is None else nodes),
                        **HIGHS_OPTIONS})
    if result.x is None:
        raise StagedError(f"the staged MILP did not solve: {result.status}")
    x = result.x.copy()
    ints = prob.integer.astype(bool)
    x[ints] = np.round(x[ints])
    return x, result.limited, result.bound, result.nodes


def assemble(prob: Problem, cuts: list, nvar: int) -> tuple[sp.csr_matrix, np.ndarray,
                                                           np.ndarray]:
    """The constraint rows of one block: its tangents, then its limit, sale and level rows.

    Parameters
    ----------
    prob : Problem
        The block's fixed parts.
    cuts : list of tuple
        (month, function, slope, intercept) of each tangent.
    nvar : int
        Number of variables.

    Returns
    -------
    rows : scipy.sparse.csr_matrix
        Coefficients, one row per constraint.
    row_lower, row_upper : numpy.ndarray
        Bounds of each row.
    """
    slope = np.array([cut[2] for cut in cuts])
    k = np.arange(len(cuts))
    epigraph = np.array([prob.epigraph(cut[1], cut[0]) for cut in cuts], dtype=int)
    level = np.array([prob.level(cut[1], cut[0]) for cut in cuts], dtype=int)
    # epigraph_m - slope x level_m >= intercept: two entries a cut
    A = sp.csr_matrix((np.r_[np.ones(len(cuts)), -slope], (np.r_[k, k], np.r_[epigraph, level])),
                      shape=(len(cuts), nvar))
    rows = [A] + [coef if sp.issparse(coef) else sp.csr_matrix(coef.reshape(1, -1))
                  for coef, _, _ in prob.rows]
    row_lower = np.concatenate([np.array([cut[3] for cut in cuts], float)] +
                               [np.broadcast_to(lo_, (r.shape[0],)) for r, (_, lo_, _)
                                in zip(rows[1:], prob.rows)])
    row_upper = np.concatenate([np.full(len(cuts), np.inf)] +
                               [np.broadcast_to(hi_, (r.shape[0],)) for r, (_, _, hi_)
                                in zip(rows[1:], prob.rows)])
    return sp.vstack(rows, format="csr"), row_lower, row_upper


def bounds(prob: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Each variable's bounds: decisions from 0 (held ones at their value), levels and
    epigraphs free below.

    Parameters
    ----------
    prob : Problem
        The block's fixed parts.

    Returns
    -------
    lower, upper : numpy.ndarray
        Bounds [the variable's unit, (nvars,)].
    """
    lower = np.where(np.isinf(prob.upper), -np.inf, 0.0)
    upper = prob.upper.copy()
    for j, value in prob.fixed.items():
        lower[j] = upper[j] = value
    return lower, upper


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
        and GPUs signed per offer [GPUs]; with server types, purchases and sales per type
        (``buy``, ``sell``) and ``sell_from`` keyed ``type:YYYY-MM``.
    """
    first = np.datetime64(ctx.calendar.months[0], "M")
    fleet = bool(ctx.scenario.server_types)
    by_month: dict[int, dict] = {}
    for j, kind in enumerate(prob.columns):
        if kind[0] not in ("buy", "commit", "sell") or x[j] < 0.5:
            continue
        d = kind[-1]
        entry = by_month.setdefault(d, {"buy": {}, "sell": {}, "from": {}, "commit": {}})
        count = int(x[j])
        if kind[0] == "buy":
            entry["buy"][kind[1]] = entry["buy"].get(kind[1], 0) + count
        elif kind[0] == "commit":
            offer = next(o for o in ctx.scenario.commitments if o.id == kind[1])
            entry["commit"][kind[1]] = entry["commit"].get(kind[1], 0) + count * offer.block_gpus
        else:
            if kind[1] == "held":
                held = ctx.position.servers[kind[2]]
                cohort, type_id = held.bought, held.type
            else:
                type_id, cohort = kind[2]
            label = str(first + cohort) if not fleet else f"{type_id}:{first + cohort}"
            entry["sell"][type_id] = entry["sell"].get(type_id, 0) + count
            entry["from"][label] = entry["from"].get(label, 0) + count
    if not fleet:
        return tuple(Decision(month=str(first + d), buy_servers=sum(e["buy"].values()),
                              sell_servers=sum(e["sell"].values()), sell_from=e["from"],
                              commit=e["commit"])
                     for d, e in sorted(by_month.items()))
    return tuple(Decision(month=str(first + d), buy=e["buy"], sell=e["sell"],
                          sell_from=e["from"], commit=e["commit"])
                 for d, e in sorted(by_month.items()))


def to_capacity(ctx: PlanContext, prob: Problem, x: np.ndarray, use_spot: bool) -> Capacity:
    """A solution of the static problem of a fleet as a static decision.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (offers).
    prob : Problem
        The static MILP's parts.
    x : numpy.ndarray
        The solution.
    use_spot : bool
        Whether the decision sends interruptible overflow to spot.

    Returns
    -------
    Capacity
        Servers per type and committed GPUs per offer [servers, GPUs].
    """
    blocks = {o.id: o.block_gpus for o in ctx.scenario.commitments}
    servers, committed = {}, {}
    for j, kind in enumerate(prob.columns):
        if kind[0] == "chain" and x[j] >= 0.5:
            servers[kind[1]] = int(x[j])
        elif kind[0] == "renew" and x[j] >= 0.5:
            committed[kind[1]] = int(x[j]) * blocks[kind[1]]
    return Capacity(0, committed, use_spot, servers_by_type=servers)


def fleet_static_optimum(ctx: PlanContext, allow_servers: bool = True) -> StagedResult:
    """The cheapest static decision of a fleet: servers per type sold in the first month and
    commitments per offer, exactly (the static problem of :func:`build_problem`).

    Parameters
    ----------
    ctx : PlanContext
        Context of a plan with ``server_types``.
    allow_servers : bool, default True
        False: no new server (the ``cloud_only`` strategy).

    Returns
    -------
    StagedResult
        The better of the solutions with and without spot (its ``capacity`` is the decision,
        ``objective`` its PV of the linear terms [currency], ``gap`` 0 when proven).

    Raises
    ------
    StagedError
        The conditions of the method do not hold, with spot or without.
    """
    key = ("fleet_static", allow_servers)
    if key in ctx.optimizer_cache:
        return ctx.optimizer_cache[key]
    found = []
    errors = []
    for use_spot in (True, False):
        try:
            found.append(solve(ctx, use_spot, static=True, servers=allow_servers))
        except StagedError as exc:
            errors.append(str(exc))
            continue
        # as in staged_optimum: the spot variant solves only where spot costs no more than
        # on demand in every month, so no decision costs less without spot than with it; the
        # variant without spot is solved only when that one is not proven
        if use_spot and found[-1].gap == 0:
            break
    if not found:
        raise StagedError("; ".join(errors))
    best = min(found, key=lambda r: (round(ctx.pv(r.capacity), 6), not r.use_spot))
    ctx.optimizer_cache[key] = best
    return best


def fleet_optimal(ctx: PlanContext) -> dict:
    """Strategies ``cloud_only`` and ``optimal`` of a fleet (issue 26), costed by the engine.

    Parameters
    ----------
    ctx : PlanContext
        Context of a plan with ``server_types``.

    Returns
    -------
    dict of str to StrategyResult
        Both strategies; ``optimal`` holds servers per type sold in the first month.

    Raises
    ------
    StagedError
        The static problem cannot be proven (see :func:`solve`).
    """
    cloud = fleet_static_optimum(ctx, allow_servers=False).capacity
    optimal = fleet_static_optimum(ctx).capacity
    return {"cloud_only": ctx.evaluate("cloud_only", cloud),
            "optimal": ctx.evaluate("optimal", optimal)}
