"""The robust plan (issue 27): a staged plan whose first decisions hold for every demand path.

``staging.demand_scenarios`` lists paths demand may take (a growth rate and a probability
each). Decisions in the plan's first ``staging.decide_now_months`` months are made now, the
same in every path (non-anticipativity); later decisions adapt to the path that turns out
(recourse). The problem is the extensive form: one staged MILP (models/staged.py
:class:`Block`) per path, stacked, with equality rows tying the here-and-now decisions
together, minimising

    (1 - w) E[PV] + w CVaR_alpha(PV),
    CVaR_alpha = min over eta of  eta + 1 / (1 - alpha) sum_s p_s max(PV_s - eta, 0)

(Rockafellar-Uryasev: linear with eta and one u_s >= PV_s - eta, u_s >= 0 a path). It is
solved by branch and bound over the here-and-now decisions alone (:func:`solve_decomposed`,
models/robust_search.py): a box bounded by the extensive form's LP relaxation within it, a
point priced by each path's staged optimum with those decisions held. The stacked MILP with
every path's epigraphs given tangents until each is tight (:func:`solve_extensive`) is the
fallback and the tests' independent check. Either way the result is proven optimal (gap 0)
or states its gap. Reported beside it, each path's own staged optimum
(perfect foresight) gives the EVPI, expected PV of the robust plan minus the
probability-weighted PV of those optima, and the base path's staged plan, its here-and-now
decisions fixed and the rest re-optimised per path, gives the VSS, its expected PV minus the
robust plan's: what planning for the spread of paths saves over planning for the base one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.capacity import CapacityPlan, schedule_plan
from models.highs import BoxedLp, proves, solve_mip
from models.limits import LOOP_MILPS, SEARCH_BOXES, SEARCH_POINTS, node_limit
from models.profile import UsageProfile
from models.robust_search import search
from models.scenario import Decision, DemandScenario, Scenario
from models.staged import LOOSE_GAP, MAX_ROUNDS, solve
from models.staged_block import HIGHS_OPTIONS, Block
from models.staged_problem import StagedError, assemble, bounds
from models.staged_result import StagedResult, to_decisions
from models.strategies import PlanContext, StrategyResult
from models.uncertainty import what_if_context

DECISION_KINDS = ("buy", "commit", "sell")
# The stacked MILP's HiGHS options: the staged plan's, with HiGHS's primal heuristics back on.
# One plan's MILP needs none (its LP solutions are near-integral), but a stack of paths tied by
# their first decisions found incumbents only at integral nodes: bench/robust.py --scenarios 9
# took 85 s for its first round to a 1e-4 gap without them, 9 s with them
STACKED_OPTIONS = {k: v for k, v in HIGHS_OPTIONS.items() if not k.startswith("mip_heuristic")}
# a path's own proven optimum less this share is the floor of its cost in the extensive form:
# HiGHS's feasibility tolerances may put a solution's objective a hair under the true optimum
FLOOR_TOLERANCE = 1e-9
ALTERNATIVE_WITHIN = 0.02   # the least-capital alternative's allowance over the least PV
# without demand scenarios of its own, a plan's paths are its demand growth range's ends and
# its own growth, weighted like a three-point estimate (issue 27)
DEFAULT_PATHS = (("low", 0.25), ("likely", 0.5), ("high", 0.25))
GROWTH_RANGE = "profile.growth_annual"
# whether plans without demand scenarios get the growth range's three (the product: always;
# staging.scenarios_from_growth_range opts one plan out). The test suite turns it off outside
# the tests about it (tests/conftest.py): it adds 5-40 s to each of its hundreds of plans.
FROM_RANGE = True


@dataclass
class PathPlan:
    """One demand path of the robust plan: its schedule and what it costs."""

    name: str
    probability: float          # [fraction]
    growth_annual: float        # [fraction per year]
    decisions: tuple[Decision, ...]
    plan: CapacityPlan
    pv_cost: float              # the engine's PV of the schedule on this path [currency]
    objective: float            # the MILP's PV of it [currency]
    foresight_pv: float = math.nan   # this path's own staged optimum [currency]
    fixed_first_pv: float = math.nan  # the base plan's first decisions, the rest re-optimised
    capacity: Optional[np.ndarray] = None     # committed + owned by month [reference GPUs]
    demand_peak: Optional[np.ndarray] = None  # the path's peak hour by month [GPUs]
    demand_mean: Optional[np.ndarray] = None  # its average by month [GPUs]


@dataclass
class Alternative:
    """Plans within ``within`` of the least expected PV with the least capital in year one."""

    paths: list[PathPlan]
    expected_pv: float          # [currency]
    year_one_capital: float     # purchases and upfront payments, first 12 months, expected
    within: float               # [fraction]


@dataclass
class RobustResult:
    """The robust plan: a schedule per path, identical before ``decide_now_until``."""

    paths: list[PathPlan]
    expected_pv: float          # sum_s p_s PV_s, the engine's PV of each path [currency]
    cvar: float                 # CVaR at ``alpha`` of the paths' PVs [currency]
    alpha: float
    weight: float
    evpi: float                 # expected PV minus the foresight optima's [currency]
    vss: float                  # the base path's plan (first decisions fixed) minus this
    # [currency]; both between the MILP's objectives, which the engine's PVs equal when every
    # cost is linear
    base: str                   # name of the base path
    decide_now_months: int
    decide_now_until: str       # last month of the here-and-now decisions, 'YYYY-MM'
    rounds: int
    gap: float                  # proven distance to the optimum of the objective [currency]
    use_spot: bool
    notes: list[str] = field(default_factory=list)
    alternative: Optional[Alternative] = None
    # each path's engine context, in the paths' order (the ledger and the workbook price each
    # path's schedule on its own demand); not part of the plan document
    contexts: list[PlanContext] = field(default_factory=list, repr=False)
    from_range: bool = False    # the paths are the demand growth range's (no scenarios given)
    # the expected PV over the same paths of a static plan decided now and held fixed, by
    # strategy name (on demand, cloud only): what the robust plan's savings compare with
    held_fixed: dict[str, float] = field(default_factory=dict)
    # the stacked MILP's solution (the least-capital alternative starts from it)
    solution: Optional[np.ndarray] = field(default=None, repr=False)
    # the search's priced here-and-now points: each path's staged optimum with them held
    # (the VSS reads the base path's point from it)
    priced: dict = field(default_factory=dict, repr=False)

    def expected_pv_held_fixed(self, capacity) -> float:
        """The expected PV of one static plan on every path.

        Parameters
        ----------
        capacity : Capacity or CapacityPlan
            A static plan, decided now for the plan's own demand.

        Returns
        -------
        float
            sum_s p_s PV_s of it, each path's demand dispatched on it [currency].
        """
        return math.fsum(q.probability * c.pv(capacity)
                         for q, c in zip(self.paths, self.contexts))

    def path_results(self) -> list[StrategyResult]:
        """Each path's schedule costed by the engine on the path's own demand.

        Returns
        -------
        list of StrategyResult
            In the paths' order, named ``"robust"``, each with its path's decisions as its
            ``schedule``; ``pv_cost`` is the path's ``pv_cost``.
        """
        out = []
        for q, c in zip(self.paths, self.contexts):
            r = c.evaluate("robust", q.plan)
            r.schedule = q.decisions
            out.append(r)
        return out

    @property
    def common(self) -> tuple[Decision, ...]:
        """The here-and-now decisions (every path's, identical).

        Returns
        -------
        tuple of Decision
            Decisions up to ``decide_now_until``.
        """
        return tuple(d for d in self.paths[0].decisions if d.month <= self.decide_now_until)


def cvar(pvs: np.ndarray, probabilities: np.ndarray, alpha: float) -> float:
    """CVaR of a discrete distribution of PV costs: the mean of its dearest 1 - alpha.

    Parameters
    ----------
    pvs : numpy.ndarray
        PV of each outcome [currency].
    probabilities : numpy.ndarray
        Their probabilities [fraction], adding up to 1.
    alpha : float
        Level [fraction], < 1.

    Returns
    -------
    float
        min over eta of eta + sum p max(pv - eta, 0) / (1 - alpha) [currency]; the minimum is
        at one of the outcomes (the function is piecewise linear with kinks there).
    """
    pvs, probabilities = np.asarray(pvs, float), np.asarray(probabilities, float)
    return float(min(eta + probabilities @ np.maximum(pvs - eta, 0.0) / (1.0 - alpha)
                     for eta in pvs))


def demand_paths(s: Scenario) -> tuple[tuple[DemandScenario, ...], bool]:
    """The demand paths of a plan: ``staging.demand_scenarios``, else three from the
    uncertainty section's demand growth range.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    tuple
        (paths, from_range). Without scenarios of its own: ``low`` at the growth plus the
        range's low end, ``likely`` at the growth, ``high`` at the growth plus the high end,
        with probabilities 0.25, 0.5 and 0.25 (ends that coincide are one path with their
        probabilities added; an end beyond a demand scenario's growth bounds, -90 % and
        +1000 % a year, is that bound); none when
        ``staging.scenarios_from_growth_range`` is off or the range has no width (both ends
        0).
    """
    if s.staging.demand_scenarios:
        return s.staging.demand_scenarios, False
    g, r = s.profile.growth_annual, s.uncertainty.ranges[GROWTH_RANGE]
    if not (FROM_RANGE and s.staging.scenarios_from_growth_range) or (r.low == 0 and
                                                                       r.high == 0):
        return (), True
    low, high = growth_bounds()
    growths = {"low": min(max(g + r.low, low), high), "likely": g,
               "high": min(max(g + r.high, low), high)}
    merged: dict[float, list] = {}
    for name, probability in DEFAULT_PATHS:
        merged.setdefault(growths[name], [name, 0.0])[1] += probability
    return tuple(DemandScenario(name=name, growth_annual=growth, probability=probability)
                 for growth, (name, probability) in merged.items()), True


def growth_bounds() -> tuple[float, float]:
    """A demand scenario's growth bounds, read off its field (one source of truth).

    Returns
    -------
    tuple of float
        (least, greatest) growth_annual [fraction per year].
    """
    meta = DemandScenario.model_fields["growth_annual"].metadata
    return (next(m.ge for m in meta if getattr(m, "ge", None) is not None),
            next(m.le for m in meta if getattr(m, "le", None) is not None))


def base_path(ctx: PlanContext, paths: tuple[DemandScenario, ...]) -> int:
    """The path the plan's own growth describes, else the likeliest (the first of equals).

    Parameters
    ----------
    ctx : PlanContext
        The plan's context (its ``profile.growth_annual``).
    paths : tuple of DemandScenario
        The demand paths.

    Returns
    -------
    int
        Index of the base path.
    """
    own = ctx.scenario.profile.growth_annual
    for i, p in enumerate(paths):
        if p.growth_annual == own:
            return i
    return int(np.argmax([p.probability for p in paths]))


def path_contexts(ctx: PlanContext, paths: tuple[DemandScenario, ...],
                  profile: Optional[UsageProfile] = None) -> list[PlanContext]:
    """The engine's context of each path: the plan with the path's growth (and its own
    peak-to-average and interruptible share where it sets them).

    Parameters
    ----------
    ctx : PlanContext
        The plan's context.
    paths : tuple of DemandScenario
        The demand paths.
    profile : UsageProfile, optional
        The usage, to lay demand again with each growth (else the plan's demand rescaled).

    Returns
    -------
    list of PlanContext
        One per path, in order.

    Raises
    ------
    StagedError
        A path sets its own demand shape and no profile is given.
    """
    s = ctx.scenario
    out = []
    for p in paths:
        change = {"growth_annual": p.growth_annual}
        change.update({k: getattr(p, k) for k in ("peak_to_average", "interruptible_share")
                       if getattr(p, k) is not None})
        if len(change) > 1 and profile is None:
            raise StagedError(f"demand scenario {p.name}: its own peak-to-average or "
                              "interruptible share needs the usage profile to lay demand again")
        out.append(what_if_context(ctx, s.with_changes(profile=change), profile))
    return out


def robust_optimum(ctx: PlanContext, profile: Optional[UsageProfile] = None,
                   foresight: bool = True, alternative: bool = True,
                   method: str = "decomposition") -> RobustResult:
    """The robust plan over the plan's demand paths (:func:`demand_paths`, module notes),
    with its EVPI and VSS.

    Parameters
    ----------
    ctx : PlanContext
        The plan's context: its paths are :func:`demand_paths`'.
    profile : UsageProfile, optional
        The usage (each path's demand is laid from it with the path's growth).
    foresight : bool, default True
        Also report each path's own optimum and the base plan re-optimised (EVPI, VSS);
        False leaves them NaN (the search still solves each path alone: its floors and
        first points; only the stacked MILP then starts cold).
    alternative : bool, default True
        With ``foresight`` and risk weight 0, also the least-capital plan within 2 %
        (:func:`least_capital`).
    method : {"decomposition", "extensive"}, default "decomposition"
        How the optimum is found: branch and bound over the here-and-now decisions, each
        point priced path by path (:func:`solve_decomposed`), where it applies; or the
        stacked MILP of every path (:func:`solve_extensive`, the fallback, and an
        independent check of the first).

    Returns
    -------
    RobustResult
        Schedules per path, expected PV, CVaR, EVPI, VSS.

    Raises
    ------
    StagedError
        No demand paths, or the staged method's conditions fail on a path.
    """
    s = ctx.scenario
    paths, from_range = demand_paths(s)
    if not paths:
        raise StagedError("no demand scenarios and a demand growth range without width: "
                          "there is no robust plan")
    ctxs = path_contexts(ctx, paths, profile)
    errors = []
    base = base_path(ctx, paths)
    for use_spot in (True, False):
        try:
            blocks = [Block(c, use_spot) for c in ctxs]
        except StagedError as exc:
            errors.append(str(exc))
            continue
        # each path alone first (its foresight optimum, for the EVPI): the tangents it ends
        # with are tight at that path's optimum, near the robust plan's levels, and start the
        # search (bench/robust.py: 30 s -> 13 s); its optimum is a floor under its cost
        alone = ([solve(c, use_spot, block=b, loose=True) for c, b in zip(ctxs, blocks)]
                 if foresight or method == "decomposition" else None)
        result = (solve_decomposed(ctxs, blocks, paths, use_spot, base, alone)
                  if method == "decomposition" else None)
        if result is None:      # not decomposable (module notes of models/robust_search.py)
            result = solve_extensive(ctxs, blocks, paths, use_spot, base,
                                     floors(alone, blocks) if alone is not None else None)
        if alternative and foresight and result.weight == 0 and result.gap == 0:
            least = float(np.dot([q.probability for q in result.paths],
                                 [q.objective for q in result.paths]))
            result.alternative = least_capital(ctxs, blocks, paths, use_spot, least,
                                               start=result.solution)
        break
    else:
        raise StagedError("; ".join(errors))
    if foresight:
        add_foresight(result, ctx, ctxs, alone, blocks, paths)
    result.contexts, result.from_range = ctxs, from_range
    return result


def first_stage(columns: list[tuple], months: int) -> list[int]:
    """Indices of the here-and-now decisions among a block's columns.

    Parameters
    ----------
    columns : list of tuple
        What each variable is (``("buy", type, d)``, ``("commit", offer, d)``,
        ``("sell", kind, key, d)`` ...).
    months : int
        ``staging.decide_now_months`` [months].

    Returns
    -------
    list of int
        Columns of a decision at a month index below ``months``.
    """
    return [j for j, k in enumerate(columns) if k[0] in DECISION_KINDS and k[-1] < months]


@dataclass
class Stacked:
    """The blocks of every path as one MILP: their variables side by side, then any extra
    (CVaR's eta and u), the here-and-now equalities, and every variable's bounds."""

    blocks: list[Block]
    offsets: np.ndarray       # each block's first variable; the last entry: the blocks' end
    nvar: int
    link: sp.csr_matrix       # block s's first-stage decision - block 0's = 0
    integer: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    def part(self, x: np.ndarray, i: int) -> np.ndarray:
        """Block ``i``'s variables in a solution.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of the stacked MILP.
        i : int
            The block (path) index.

        Returns
        -------
        numpy.ndarray
            A view of its variables.
        """
        return x[self.offsets[i]:self.offsets[i + 1]]


def stack(blocks: list[Block], months: int, extra: int = 0) -> Stacked:
    """Stack the paths' blocks, tie their first-stage decisions and bound every variable.

    Parameters
    ----------
    blocks : list of Block
        Each path's block.
    months : int
        ``staging.decide_now_months`` [months].
    extra : int, default 0
        Continuous variables after the blocks' (free below unless bounded by the caller).

    Returns
    -------
    Stacked
        The stacked MILP's fixed parts.

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions.
    """
    columns = blocks[0].prob.columns[blocks[0].prob.decisions]
    for b in blocks[1:]:
        if b.prob.columns[b.prob.decisions] != columns:
            raise StagedError("the demand scenarios' staged problems differ in their decisions")
    offsets = np.concatenate([[0], np.cumsum([b.nvar for b in blocks])]).astype(int)
    nvar = int(offsets[-1]) + extra
    first = first_stage(columns, months)
    r, c, v = [], [], []
    for i in range(1, len(blocks)):
        for j in first:
            row = len(r) // 2
            r += [row, row]
            c += [int(offsets[i]) + j, j]
            v += [1.0, -1.0]
    link = sp.csr_matrix((v, (r, c)), shape=(len(r) // 2, nvar))
    integer = np.zeros(nvar)
    lower, upper = np.full(nvar, -np.inf), np.full(nvar, np.inf)
    for i, b in enumerate(blocks):
        lo, hi = bounds(b.prob)
        lower[offsets[i]:offsets[i + 1]], upper[offsets[i]:offsets[i + 1]] = lo, hi
        integer[offsets[i]:offsets[i + 1]] = b.prob.integer
    return Stacked(blocks, offsets, nvar, link, integer, lower, upper)


def run_loop(st: Stacked, cost: np.ndarray, extra: Optional[tuple] = None,
             nodes: Optional[int] = None, start: Optional[np.ndarray] = None,
             loose: float = LOOSE_GAP, options: Optional[dict] = None, lift: bool = True
             ) -> tuple[np.ndarray, list, int, bool, float]:
    """The cutting-plane loop over a stacked MILP: solve, add tangents where a path's
    epigraph falls short, until none does at an exact solution.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    cost : numpy.ndarray
        Objective coefficients [(nvar,)].
    extra : tuple, optional
        (rows, lower, upper) of constraints beyond the blocks' and the links.
    nodes : int, optional
        Branch-and-bound nodes over every round; default ``LOOP_MILPS`` MILPs' worth
        (:func:`models.highs.node_limit` of the stacked columns).
    start : numpy.ndarray, optional
        A solution feasible in every round (tangents cut nothing off it), given to each MILP
        as its first incumbent.
    loose : float, default LOOSE_GAP
        The relative gap of the rounds that only place tangents.
    options : dict, optional
        HiGHS options; default ``STACKED_OPTIONS``.
    lift : bool, default True
        Start each round from the last solution at its true costs (:func:`lifted`) when it
        meets the round's rows; else from ``start``.

    Returns
    -------
    x : numpy.ndarray
        The last solution.
    checks : list
        Each block's (true costs, shortfalls) at it.
    rounds : int
        MILPs solved.
    limited : bool
        Whether the work limit stopped the loop.
    bound : float
        HiGHS's lower bound of the last MILP [the objective's unit].

    Raises
    ------
    StagedError
        HiGHS found no solution.
    """
    per_milp = node_limit(st.nvar)
    budget, used = (LOOP_MILPS * per_milp if nodes is None else nodes), 0
    rounds, limited = 0, False
    # rounds whose solution only places tangents are solved to a small gap; once none falls
    # short the MILP is solved exactly, and the loop ends at an exact solution with no
    # shortfall (the proof). The stacked MILP's near-ties (a server bought a quarter earlier or
    # later) made each exact round search thousands of nodes: bench/robust.py 13 s -> 8.6 s
    rel_gap = loose
    given = start
    while True:
        rounds += 1
        rows, row_lower, row_upper = stacked_rows(st, extra)
        if start is not None and not feasible(st, rows, row_lower, row_upper, start):
            start = given
        found = solve_mip(cost, st.integer, st.lower, st.upper, rows, row_lower, row_upper,
                          {"mip_rel_gap": rel_gap,
                           "mip_max_nodes": int(max(min(per_milp, budget - used), 1)),
                           **(STACKED_OPTIONS if options is None else options)},
                          start=start)
        if found.x is None:
            raise StagedError(f"the robust MILP did not solve: {found.status}")
        x = found.x.copy()
        ints = st.integer.astype(bool)
        x[ints] = np.round(x[ints])
        used += found.nodes
        limited = found.limited
        checks = [b.shortfalls(st.part(x, i)) for i, b in enumerate(st.blocks)]
        tight = not any(v.size for _, short in checks for v in short.values())
        if not limited and not tight and used >= budget:
            limited = True          # the loop's nodes spent before its tangents were placed
        # the next round starts from this solution at its true costs: feasible whatever
        # tangents are added (each is below the true cost), and as dear as the schedule is
        start = lifted(st, x, checks) if lift else given
        if tight and rel_gap > 0 and not limited:
            rel_gap = 0.0                   # tangents placed: now the exact MILP
            continue
        if limited or rounds >= MAX_ROUNDS or tight:
            break
        for i, (b, (_, short)) in enumerate(zip(st.blocks, checks)):
            if any(v.size for v in short.values()):
                b.add_cuts(b.prob.levels(st.part(x, i)), short)
    return x, checks, rounds, limited, found.bound


def lifted(st: Stacked, x: np.ndarray, checks: list) -> np.ndarray:
    """A stacked solution with every epigraph raised to its function's true cost (a hair
    above, for HiGHS's feasibility tolerance): it satisfies every tangent, present or to come.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    x : numpy.ndarray
        A solution of it.
    checks : list
        Each block's (true costs, shortfalls) at ``x`` (:meth:`Block.shortfalls`).

    Returns
    -------
    numpy.ndarray
        The lifted copy of ``x``.
    """
    y = x.copy()
    for i, (b, (true, _short)) in enumerate(zip(st.blocks, checks)):
        part, H = st.part(y, i), b.ctx.horizon
        for which in b.order:
            at = b.reps[which]
            cost = np.bincount(b.owner[which], weights=true[which], minlength=H)[at]
            j = b.prob.epigraph(which, at)
            part[j] = np.maximum(part[j], cost + 1e-9 * np.abs(cost) + 1e-6)
    return y


def feasible(st: Stacked, rows: sp.csr_matrix, row_lower: np.ndarray, row_upper: np.ndarray,
             x: np.ndarray) -> bool:
    """Whether a point meets a stacked MILP's rows and bounds (HiGHS's 1e-7 tolerance, relative
    to each row's size), so that HiGHS takes it as its first incumbent.

    Parameters
    ----------
    st : Stacked
        The stacked MILP (bounds, integers).
    rows : scipy.sparse.csr_matrix
        Its constraint rows this round.
    row_lower : numpy.ndarray
        The rows' lower bounds.
    row_upper : numpy.ndarray
        The rows' upper bounds.
    x : numpy.ndarray
        The point.

    Returns
    -------
    bool
        True when every row and bound holds and the integers are whole.
    """
    ax = rows @ x
    size = np.maximum(1.0, np.abs(rows).max(axis=1).toarray().ravel() * np.abs(x).max())
    tol = 1e-9 * size
    ints = st.integer.astype(bool)
    return bool(np.all(ax >= row_lower - tol) and np.all(ax <= row_upper + tol)
                and np.all(x >= st.lower - 1e-9) and np.all(x <= st.upper + 1e-9)
                and np.all(x[ints] == np.round(x[ints])))


def path_plans(ctxs: list[PlanContext], st: Stacked, x: np.ndarray, checks: list,
               paths: tuple[DemandScenario, ...], use_spot: bool) -> list[PathPlan]:
    """Each path's schedule of a stacked solution, costed by the engine.

    Parameters
    ----------
    ctxs : list of PlanContext
        Each path's context.
    st : Stacked
        The stacked MILP.
    x : numpy.ndarray
        Its solution.
    checks : list
        Each block's (true costs, shortfalls) at it.
    paths : tuple of DemandScenario
        The paths.
    use_spot : bool
        Whether the blocks allow spot.

    Returns
    -------
    list of PathPlan
        In the paths' order.
    """
    out = []
    for i, (c, b, (true, _)) in enumerate(zip(ctxs, st.blocks, checks)):
        xi = st.part(x, i)
        decisions = to_decisions(c, b.prob, xi)
        plan = schedule_plan(c.scenario, decisions, c.calendar.months[0], c.horizon,
                             c.position, use_spot)
        out.append(path_plan(c, paths[i], decisions, plan, b.objective(xi, true), use_spot))
    return out


def path_plan(c: PlanContext, path: DemandScenario, decisions: tuple[Decision, ...],
              plan: CapacityPlan, objective: float, use_spot: bool) -> PathPlan:
    """One path's schedule costed by the engine, with its capacity and demand by month.

    Parameters
    ----------
    c : PlanContext
        The path's context.
    path : DemandScenario
        The path.
    decisions : tuple of Decision
        Its schedule.
    plan : CapacityPlan
        The schedule's capacity plan.
    objective : float
        The MILP's PV of it [currency].
    use_spot : bool
        Whether spot is allowed.

    Returns
    -------
    PathPlan
        The path's plan.
    """
    s = c.scenario
    owned = (sum(c.owned_levels(plan).values(), np.zeros(c.horizon)) if s.server_types
             else plan.servers_online(c.horizon) * c.owned_per_server())
    capacity = plan.committed_gpus(c.horizon) * s.on_demand.relative_throughput + owned
    return PathPlan(path.name, path.probability, path.growth_annual, decisions, plan,
                    c.pv(plan), objective, capacity=capacity,
                    demand_peak=np.asarray(c.tables.gross.peak, float),
                    demand_mean=c.tables.gross.totals / c.calendar.hours)


def floors(alone: list, blocks: list[Block]) -> list[Optional[float]]:
    """Each path's proven least MILP cost, a floor under its block's cost in the stacked MILP.

    A path's own staged optimum, proven with its block's tangents (gap 0, convex), is the least
    its MILP cost can be for any schedule of the path; tangents added later only raise that
    cost, and the robust plan's schedule of the path is one such schedule. So ``prob.cost @
    x_s >= floor_s`` is valid in the extensive form, and it lifts the LP relaxation from each
    block's weak relaxation to its integer optimum (the stacked MILP's bound starts at the
    wait-and-see value, the EVPI away from the optimum).

    Parameters
    ----------
    alone : list of models.staged.StagedResult
        Each path's own optimum, solved with its block.
    blocks : list of Block
        Each path's block.

    Returns
    -------
    list of float or None
        Per path, the floor of ``prob.cost @ x_s`` [currency] (less 1e-9 of the PV for
        HiGHS's tolerances); None where the optimum is not proven.
    """
    out: list[Optional[float]] = []
    for own, b in zip(alone, blocks):
        if own.gap != 0.0 or own.limited or b.concave.any():
            out.append(None)
            continue
        out.append(own.objective - FLOOR_TOLERANCE * max(1.0, abs(own.objective))
                   - b.prob.base - b.constant)
    return out


@dataclass
class ExtensiveForm:
    """The stacked MILP of every path with the risk objective: what both methods solve."""

    st: Stacked
    cost: np.ndarray            # objective coefficients [(nvar,)]
    extra: Optional[tuple]      # (rows, lower, upper): CVaR's rows and the floors
    constant: float             # the objective's constant: (1 - w) sum_s p_s const_s
    p: np.ndarray               # the paths' probabilities
    alpha: float
    weight: float

    def value(self, pvs: np.ndarray) -> float:
        """The risk objective of the paths' PVs: (1 - w) E[PV] + w CVaR.

        Parameters
        ----------
        pvs : numpy.ndarray
            Each path's PV [currency].

        Returns
        -------
        float
            The objective [currency].
        """
        return ((1.0 - self.weight) * float(self.p @ pvs)
                + self.weight * cvar(pvs, self.p, self.alpha))

    def rows(self) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """Every row at the blocks' present tangents (:func:`stacked_rows`).

        Returns
        -------
        tuple
            (rows, lower, upper).
        """
        return stacked_rows(self.st, self.extra)


def stacked_rows(st: Stacked, extra: Optional[tuple]
                 ) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """A stacked MILP's rows at its blocks' present tangents: each block's, the links, then
    ``extra``.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    extra : tuple or None
        (rows, lower, upper) beyond the blocks' and the links.

    Returns
    -------
    tuple
        (rows, lower, upper).
    """
    parts = [assemble(b.prob, b.cuts, b.nvar) for b in st.blocks]
    diag = sp.block_diag([a for a, _, _ in parts], format="csr")
    diag = sp.hstack([diag, sp.csr_matrix((diag.shape[0], st.nvar - int(st.offsets[-1])))],
                     format="csr")
    zeros = np.zeros(st.link.shape[0])
    rows = sp.vstack([diag, st.link] + ([extra[0]] if extra else []), format="csr")
    lower = np.concatenate([lo for _, lo, _ in parts] + [zeros] + ([extra[1]] if extra else []))
    upper = np.concatenate([hi for _, _, hi in parts] + [zeros] + ([extra[2]] if extra else []))
    return rows, lower, upper


def extensive_form(blocks: list[Block], paths: tuple[DemandScenario, ...], staging,
                   floor: Optional[list[Optional[float]]] = None) -> ExtensiveForm:
    """Stack the paths' blocks with the risk objective and the floors.

    Parameters
    ----------
    blocks : list of Block
        Each path's MILP parts and tangents.
    paths : tuple of DemandScenario
        The paths (their probabilities).
    staging : models.scenario.Staging
        The plan's staging section (decide-now months, risk).
    floor : list of float or None, optional
        Each block's least MILP cost (:func:`floors`), added as rows.

    Returns
    -------
    ExtensiveForm
        The stacked MILP.

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions.
    """
    alpha, w = staging.risk.cvar_alpha, staging.risk.cvar_weight
    p = np.array([q.probability for q in paths])
    S = len(blocks)
    risk = w > 0
    st = stack(blocks, staging.decide_now_months, 1 + S if risk else 0)
    n_x = int(st.offsets[-1])
    cost = np.zeros(st.nvar)
    for i, b in enumerate(blocks):
        cost[st.offsets[i]:st.offsets[i + 1]] = (1.0 - w) * p[i] * b.prob.cost
    consts = np.array([b.prob.base + b.constant for b in blocks])
    extra = None
    if risk:
        eta, u0 = n_x, n_x + 1
        cost[eta] = w
        cost[u0:u0 + S] = w * p / (1.0 - alpha)
        st.lower[u0:u0 + S] = 0.0                   # eta is free; u >= 0
        # u_s + eta - cost_s x_s >= base_s + const_s
        ties = sp.csr_matrix((np.ones(2 * S), (np.repeat(np.arange(S), 2),
                                               np.ravel([[u0 + i, eta] for i in range(S)]))),
                             shape=(S, st.nvar))
        extra = (ties - block_costs(st), consts, np.full(S, np.inf))
    proven = [i for i, f in enumerate(floor or ()) if f is not None]
    if proven:   # cost_s x_s >= floor_s (floors)
        rows = (block_costs(st)[proven], np.array([floor[i] for i in proven]),
                np.full(len(proven), np.inf))
        extra = rows if extra is None else (sp.vstack([extra[0], rows[0]], format="csr"),
                                            np.concatenate([extra[1], rows[1]]),
                                            np.concatenate([extra[2], rows[2]]))
    return ExtensiveForm(st, cost, extra, float((1.0 - w) * (p @ consts)), p, alpha, w)


def solve_extensive(ctxs: list[PlanContext], blocks: list[Block],
                    paths: tuple[DemandScenario, ...], use_spot: bool, base: int,
                    floor: Optional[list[Optional[float]]] = None) -> RobustResult:
    """The robust plan: the stacked MILP of every path with its risk objective.

    Parameters
    ----------
    ctxs : list of PlanContext
        Each path's context.
    blocks : list of Block
        Each path's MILP parts and tangents.
    paths : tuple of DemandScenario
        The paths (names, probabilities).
    use_spot : bool
        Whether the blocks allow spot.
    base : int
        Index of the base path (:func:`base_path`).
    floor : list of float or None, optional
        Each block's least MILP cost (:func:`floors`), added as rows.

    Returns
    -------
    RobustResult
        Without EVPI and VSS (NaN).

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions, or HiGHS finds no solution.
    """
    form = extensive_form(blocks, paths, ctxs[0].scenario.staging, floor)
    st = form.st
    x, checks, rounds, limited, dual = run_loop(st, form.cost, form.extra)
    out = path_plans(ctxs, st, x, checks, paths, use_spot)
    value = form.value(np.array([q.objective for q in out]))
    reached = float(form.cost @ x)
    # HiGHS may call a stacked MILP optimal while its own bound stays far below the solution
    # (a CVaR-only objective with a first incumbent: bound $1.03M under $1.58M, and a schedule
    # $10.93 cheaper existed); a proof needs its bound to meet the solution
    short = math.isfinite(dual) and not proves(form.constant + dual, form.constant + reached)
    bound = form.constant + (float(dual) if limited or short else reached)
    notes = []
    if rounds >= MAX_ROUNDS:
        notes.append(f"stopped after {MAX_ROUNDS} cutting-plane rounds")
    if limited:
        notes.append("stopped at its work limit (branch-and-bound nodes)")
    elif short:
        notes.append("the MILP solver's bound does not meet its solution")
    unproven = (limited or short or rounds >= MAX_ROUNDS
                or any(b.concave.any() for b in blocks))
    gap = max(value - bound, 0.0) if unproven else 0.0
    return robust_result(ctxs, paths, out, form, base, rounds,
                         gap if math.isfinite(gap) else abs(value), use_spot, notes, x)


def robust_result(ctxs: list[PlanContext], paths: tuple[DemandScenario, ...],
                  out: list[PathPlan], form: ExtensiveForm, base: int, rounds: int, gap: float,
                  use_spot: bool, notes: list[str], x: np.ndarray) -> RobustResult:
    """A robust result from each path's plan (EVPI and VSS NaN until :func:`add_foresight`).

    Parameters
    ----------
    ctxs : list of PlanContext
        Each path's context.
    paths : tuple of DemandScenario
        The paths.
    out : list of PathPlan
        Each path's schedule and costs.
    form : ExtensiveForm
        The stacked MILP (probabilities, risk).
    base : int
        Index of the base path.
    rounds : int
        MILPs solved (the stacked MILP) or boxes bounded (the search).
    gap : float
        Proven distance to the optimum [currency].
    use_spot : bool
        Whether the blocks allow spot.
    notes : list of str
        Why the optimum is not proven, if it is not.
    x : numpy.ndarray
        The stacked solution.

    Returns
    -------
    RobustResult
        The result.
    """
    staging = ctxs[0].scenario.staging
    pvs = np.array([q.objective for q in out])
    # reported: the engine's PV of each schedule (the MILP's objective leaves out what is not
    # linear: a setup fee, a support minimum); EVPI and VSS compare objectives
    expected = float(form.p @ [q.pv_cost for q in out])
    until = str(np.datetime64(ctxs[0].calendar.months[0], "M") + staging.decide_now_months - 1)
    return RobustResult(out, expected, cvar(pvs, form.p, form.alpha), form.alpha, form.weight,
                        math.nan, math.nan, paths[base].name, staging.decide_now_months,
                        until, rounds, gap, use_spot, notes, solution=x)


def here_and_now(result: StagedResult, columns: list[tuple], first: list[int]
                 ) -> tuple[int, ...]:
    """A path's own optimum's here-and-now decisions, as a point of the search.

    Parameters
    ----------
    result : models.staged.StagedResult
        The path's staged optimum.
    columns : list of tuple
        The block's columns.
    first : list of int
        The here-and-now columns (:func:`first_stage`).

    Returns
    -------
    tuple of int
        Their values, in ``first``'s order.
    """
    return tuple(int(round(result.values[columns[j]])) for j in first)


def solve_held(ctx: PlanContext, use_spot: bool, block: Block, held: dict[int, float]
               ) -> StagedResult:
    """One path's staged optimum with some decisions held (the block keeps its tangents: they
    bound its costs whatever is held).

    Parameters
    ----------
    ctx : PlanContext
        The path's context.
    use_spot : bool
        Whether the block allows spot.
    block : Block
        The path's block.
    held : dict
        Column index to the value it is held at.

    Returns
    -------
    models.staged.StagedResult
        The optimum of the rest.
    """
    block.prob.fixed = dict(held)
    try:
        return solve(ctx, use_spot, block=block, loose=True)
    finally:
        block.prob.fixed = {}


class Unproven(Exception):
    """The search cannot go on exactly: a path's staged optimum with the here-and-now decisions
    held stopped at its limit, or HiGHS did not solve a box's LP relaxation."""


def solve_decomposed(ctxs: list[PlanContext], blocks: list[Block],
                     paths: tuple[DemandScenario, ...], use_spot: bool, base: int,
                     alone: list[StagedResult]) -> Optional[RobustResult]:
    """The robust plan by branch and bound over the here-and-now decisions
    (models/robust_search.py): a box bounded by the stacked LP relaxation within it, a point
    priced by each path's staged optimum with those decisions held.

    Parameters
    ----------
    ctxs : list of PlanContext
        Each path's context.
    blocks : list of Block
        Each path's block (tangents added by the pricing stay: they are valid everywhere).
    paths : tuple of DemandScenario
        The paths.
    use_spot : bool
        Whether the blocks allow spot.
    base : int
        Index of the base path.
    alone : list of models.staged.StagedResult
        Each path's own optimum (floors under its cost; its here-and-now decisions are the
        first points priced).

    Returns
    -------
    RobustResult or None
        The optimum, its gap 0 unless its work limit stopped the search; ``priced`` holds each
        priced point's path results (the VSS reads the base path's point). A path with
        concave months (a chord, not tangents) is priced with its gap, and the plan states
        it. None where the search does not apply: a here-and-now decision that is not whole,
        a path stopped by its work limit, an LP relaxation HiGHS could not solve.
    """
    if any(own.limited for own in alone):
        return None
    staging = ctxs[0].scenario.staging
    form = extensive_form(blocks, paths, staging, floors(alone, blocks))
    st = form.st
    columns = blocks[0].prob.columns
    first = first_stage(columns[blocks[0].prob.decisions], staging.decide_now_months)
    if not first or not st.integer[first].all():
        return None
    priced: dict[tuple[int, ...], list[StagedResult]] = {}

    def price(point: tuple[int, ...]) -> tuple[float, float]:
        held = dict(zip(first, map(float, point)))
        results = [solve_held(c, use_spot, b, held) for c, b in zip(ctxs, blocks)]
        if any(r.limited for r in results):
            raise Unproven
        priced[point] = results
        pvs = np.array([r.objective for r in results])
        # a path with concave months is bounded, not proven: its PV less its gap bounds it,
        # and the objective grows with every path's PV
        return form.value(pvs), form.value(pvs - np.array([r.gap for r in results]))

    lp: dict = {"tangents": None, "model": None}

    def relaxation(lo: tuple[float, ...], hi: tuple[float, ...]):
        # one LP model while the tangents stay (pricing adds some), re-solved warm per box
        tangents = [len(b.cuts) for b in blocks]
        if lp["tangents"] != tangents:
            lp["tangents"], lp["model"] = tangents, BoxedLp(form.cost, st.lower, st.upper,
                                                            *form.rows())
        found = lp["model"].solve(first, lo, hi)   # block 0's; the links tie the others
        if found.x is None:
            if found.status != "Infeasible":
                raise Unproven      # no bound to trust: the stacked MILP plans instead
            return math.inf, None
        return form.constant + found.bound, found.x[first]

    own = [here_and_now(r, columns, first) for r in alone]
    values = np.array(own, float)
    median = tuple(int(weighted_median(values[:, k], form.p)) for k in range(len(first)))
    try:
        found = search(relaxation, price, st.lower[first], st.upper[first],
                       starts=(own[base], median), boxes=SEARCH_BOXES, points=SEARCH_POINTS)
    except Unproven:
        return None
    if found.point is None:
        raise StagedError("the robust plan found no schedule within its work limit")
    results = priced[found.point]
    out = [path_plan(c, q, r.decisions, r.plan, r.objective, use_spot)
           for c, q, r in zip(ctxs, paths, results)]
    parts = [r.solution for r in results]
    x = np.concatenate(parts + [np.zeros(st.nvar - int(st.offsets[-1]))])
    x = lifted(st, x, [b.shortfalls(part) for b, part in zip(blocks, parts)])
    notes = ["stopped at its work limit (boxes bounded, points priced)"] if found.limited else []
    gap = found.gap if math.isfinite(found.gap) else abs(found.value)
    result = robust_result(ctxs, paths, out, form, base, found.nodes, gap, use_spot, notes, x)
    result.priced = priced
    return result


def weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The least value with at least half the weight at or below it.

    Parameters
    ----------
    values : numpy.ndarray
        The values.
    weights : numpy.ndarray
        Their weights, adding up to 1.

    Returns
    -------
    float
        The weighted median.
    """
    order = np.argsort(values, kind="stable")
    at = int(np.searchsorted(np.cumsum(weights[order]), 0.5 - 1e-12))
    return float(values[order][min(at, len(values) - 1)])


def block_costs(st: Stacked) -> sp.csr_matrix:
    """Each path's MILP cost as a row over the stacked variables: row s is ``prob.cost`` of
    block s at its offset (the CVaR rows, the floors and the expected PV read it).

    Parameters
    ----------
    st : Stacked
        The stacked MILP.

    Returns
    -------
    scipy.sparse.csr_matrix
        (paths, nvar) [currency per unit of each variable].
    """
    rows = [sp.csr_matrix(b.prob.cost.reshape(1, -1)) for b in st.blocks]
    left = [sp.csr_matrix((1, int(st.offsets[i]))) for i in range(len(rows))]
    right = [sp.csr_matrix((1, st.nvar - int(st.offsets[i + 1]))) for i in range(len(rows))]
    return sp.vstack([sp.hstack([a, r, c]) for a, r, c in zip(left, rows, right)],
                     format="csr")


def year_one_costs(st: Stacked, p: np.ndarray) -> np.ndarray:
    """The objective of expected year-one capital over a stacked MILP's variables.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    p : numpy.ndarray
        The paths' probabilities.

    Returns
    -------
    numpy.ndarray
        p_s x the payment of each purchase and commitment in the plan's first 12 months, 0
        elsewhere [currency per unit of the variable; (nvar,)].
    """
    cost = np.zeros(st.nvar)
    for i, b in enumerate(st.blocks):
        prob = b.prob
        year_one = np.array([k[0] in ("buy", "commit") and k[-1] < 12
                             for k in prob.columns[prob.decisions]] + [False] * (b.nvar - prob.decisions.stop))
        cost[st.offsets[i]:st.offsets[i + 1]] = p[i] * np.where(year_one, prob.paid, 0.0)
    return cost


def least_capital(ctxs: list[PlanContext], blocks: list[Block],
                  paths: tuple[DemandScenario, ...], use_spot: bool, expected: float,
                  within: float = ALTERNATIVE_WITHIN, start: Optional[np.ndarray] = None
                  ) -> Optional[Alternative]:
    """The plan with the least capital in its first year among those within ``within`` of
    the least expected PV: what a reviewer short of cash may prefer.

    Year-one capital is each path's purchases and upfront payments in the plan's first 12
    months, weighted by probability (one figure when those months are decided now). The
    expected PV of the paths' schedules stays within (1 + within) x ``expected``: tangents are
    added until every epigraph is tight, so the bound holds for the true costs.

    Parameters
    ----------
    ctxs : list of PlanContext
        Each path's context.
    blocks : list of Block
        Each path's block, with the tangents of the robust plan's search.
    paths : tuple of DemandScenario
        The paths.
    use_spot : bool
        Whether the blocks allow spot.
    expected : float
        The least expected PV (the robust plan's, risk weight 0) [currency].
    within : float, default ALTERNATIVE_WITHIN
        Allowed excess over it [fraction].
    start : numpy.ndarray, optional
        The robust plan's stacked solution (risk weight 0): when it spends nothing in year
        one it is its own alternative and nothing is searched.

    Returns
    -------
    Alternative or None
        Its paths, expected PV and year-one capital; None when HiGHS finds nothing within its work limit.
    """
    staging = ctxs[0].scenario.staging
    p = np.array([q.probability for q in paths])
    st = stack(blocks, staging.decide_now_months)
    cost = year_one_costs(st, p)
    if start is not None and float(cost @ start) <= 0.0:
        # the robust plan spends nothing in year one: no plan spends less, and none within
        # the allowance costs less than it (bench: most cloud-heavy plans; saves the search)
        x = start
        out = path_plans(ctxs, st, x, [b.shortfalls(st.part(x, i)) for i, b in
                                       enumerate(blocks)], paths, use_spot)
        return Alternative(out, float(p @ [q.pv_cost for q in out]), 0.0, within)
    row = p @ block_costs(st)     # the expected PV's variable part
    consts = float(p @ [b.prob.base + b.constant for b in blocks])
    cap = (1.0 + within) * expected - consts
    try:
        # no first incumbent for HiGHS: the robust plan as one made the first round 2-6x
        # slower (bench/robust.py, 3 paths: 2.6 s without it, 4.5-22 s with it)
        x, checks, _rounds, limited, _dual = run_loop(
            st, cost, (sp.csr_matrix(row.reshape(1, -1)), np.array([-np.inf]),
                       np.array([cap])), options=HIGHS_OPTIONS, lift=False)
    except StagedError:
        return None
    if limited:
        return None
    out = path_plans(ctxs, st, x, checks, paths, use_spot)
    return Alternative(out, float(p @ [q.pv_cost for q in out]), float(cost @ x), within)


def add_foresight(result: RobustResult, ctx: PlanContext, ctxs: list[PlanContext],
                  alone: list, blocks: list[Block], paths: tuple[DemandScenario, ...]
                  ) -> None:
    """EVPI and VSS of a robust result, in place (module notes).

    Parameters
    ----------
    result : RobustResult
        The robust plan.
    ctx : PlanContext
        The plan's context (its growth names the base path).
    ctxs : list of PlanContext
        Each path's context, in the result's order.
    alone : list of models.staged.StagedResult
        Each path's own staged optimum, in the same order.
    blocks : list of Block
        Each path's block: its tangents stay valid lower bounds whatever decisions are held
        fixed, so the re-optimisation starts from them (the fixed values are set for it and
        cleared after).
    paths : tuple of DemandScenario
        The demand paths, in the result's order.
    """
    p = np.array([q.probability for q in result.paths])
    months = ctx.scenario.staging.decide_now_months
    columns = blocks[0].prob.columns
    first = first_stage(columns[blocks[0].prob.decisions], months)
    point = here_and_now(alone[base_path(ctx, paths)], columns, first)
    # the search priced the base point first; the stacked MILP did not
    held = result.priced.get(point) or [
        solve_held(c, result.use_spot, block, dict(zip(first, map(float, point))))
        for c, block in zip(ctxs, blocks)]
    for path, own, again in zip(result.paths, alone, held):
        path.foresight_pv = own.objective
        path.fixed_first_pv = again.objective
    own = float(p @ [q.objective for q in result.paths])
    result.evpi = own - float(p @ [q.foresight_pv for q in result.paths])
    result.vss = float(p @ [q.fixed_first_pv for q in result.paths]) - own
