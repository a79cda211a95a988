"""The robust plan's two methods (issue 27): branch and bound over the here-and-now decisions,
each point priced path by path (:func:`solve_decomposed`, models/robust_search.py), and the
stacked MILP of every path with tangents added until each is tight (:func:`solve_extensive`,
the fallback and the tests' independent check)."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from models.plan_state import PlanState
from models.schedule_cohorts import schedule_plan
from models.highs import BoxedLp, proven_gap, proves, solve_mip
from models.limits import LOOP_MILPS, SEARCH_BOXES, SEARCH_POINTS, node_limit
from models.milp_rows import Rows
from models.robust_problem import (ExtensiveForm, Stacked, extensive_form, feasible, floors,
                                   lifted, stacked_rows)
from models.robust_result import PathPlan, RobustResult, cvar, path_plan
from models.robust_search import search
from models.scenario_schedule import DemandScenario
from models.staged import LOOSE_GAP, MAX_ROUNDS, solve
from models.staged_block import HIGHS_OPTIONS, Block
from models.staged_problem import StagedError
from models.staged_result import StagedResult, to_decisions

# The stacked MILP's HiGHS options: the staged plan's, with HiGHS's primal heuristics back on.
# One plan's MILP needs none (its LP solutions are near-integral), but a stack of paths tied by
# their first decisions found incumbents only at integral nodes: bench/robust.py --scenarios 9
# took 85 s for its first round to a 1e-4 gap without them, 9 s with them
STACKED_OPTIONS = {k: v for k, v in HIGHS_OPTIONS.items() if not k.startswith("mip_heuristic")}


def run_loop(st: Stacked, cost: np.ndarray, extra: Optional[Rows] = None,
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
    extra : models.milp_rows.Rows, optional
        Constraints beyond the blocks' and the links.
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

    Notes
    -----
    Each round solves min cost x over the stacked rows
    (:func:`models.robust_problem.stacked_rows`); where path s's epigraph e falls short of its function's true cost at
    the solution's level l*, the tangent e >= f(l*) + f'(l*)(l - l*) is added. Rounds before
    the tangents are placed stop at the relative gap ``loose``; the loop ends at an exact
    solution with none short, or at ``MAX_ROUNDS`` or the node budget.
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


def path_plans(ctxs: list[PlanState], st: Stacked, x: np.ndarray, checks: list,
               paths: tuple[DemandScenario, ...], use_spot: bool) -> list[PathPlan]:
    """Each path's schedule of a stacked solution, costed by the engine.

    Parameters
    ----------
    ctxs : list of PlanState
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

    Notes
    -----
    Path s's schedule is its block's columns ``path[s, :]`` read by
    :func:`models.staged_result.to_decisions`; its objective is the block's PV at them with every
    function at its true cost: objective_s = f_s(x_s).
    """
    out = []
    for i, (c, b, (true, _)) in enumerate(zip(ctxs, st.blocks, checks)):
        xi = st.part(x, i)
        decisions = to_decisions(c, b.prob, xi)
        plan = schedule_plan(c.scenario, decisions, c.calendar.months[0], c.horizon,
                             c.position, use_spot)
        out.append(path_plan(c, paths[i], decisions, plan, b.objective(xi, true), use_spot))
    return out


def solve_extensive(ctxs: list[PlanState], blocks: list[Block],
                    paths: tuple[DemandScenario, ...], use_spot: bool, base: int,
                    floor: Optional[list[Optional[float]]] = None) -> RobustResult:
    """The robust plan: the stacked MILP of every path with its risk objective.

    Parameters
    ----------
    ctxs : list of PlanState
        Each path's context.
    blocks : list of Block
        Each path's MILP parts and tangents.
    paths : tuple of DemandScenario
        The paths (names, probabilities).
    use_spot : bool
        Whether the blocks allow spot.
    base : int
        Index of the base path (:func:`models.robust.base_path`).
    floor : list of float or None, optional
        Each block's least MILP cost (:func:`models.robust_problem.floors`), added as rows.

    Returns
    -------
    RobustResult
        Without EVPI and VSS (NaN).

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions, or HiGHS finds no solution.

    Notes
    -----
    The extensive form of :func:`models.robust_problem.extensive_form` by :func:`run_loop`. It is
    proven (gap = 0) when the loop ended tight, within its limits, every path convex, and HiGHS's
    bound b meets the solution v (:func:`models.highs.proves`); else gap = v - b at the risk
    objective [currency].
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
    gap = proven_gap(bound, value) if unproven else 0.0
    return robust_result(ctxs, paths, out, form, base, rounds,
                         gap if math.isfinite(gap) else abs(value), use_spot, notes, x)


def robust_result(ctxs: list[PlanState], paths: tuple[DemandScenario, ...],
                  out: list[PathPlan], form: ExtensiveForm, base: int, rounds: int, gap: float,
                  use_spot: bool, notes: list[str], x: np.ndarray) -> RobustResult:
    """A robust result from each path's plan (EVPI and VSS NaN until
    :func:`models.robust_alternatives.add_foresight`).

    Parameters
    ----------
    ctxs : list of PlanState
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

    Notes
    -----
    .. math:: E[PV] = \\sum_s p_s PV^{engine}_s, \\quad CVaR = CVaR_\\alpha(PV^{MILP})

    the expected PV from the engine's PV of each schedule, the CVaR from the MILP's.
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
        The here-and-now columns (:func:`models.robust_problem.first_stage`).

    Returns
    -------
    tuple of int
        Their values, in ``first``'s order.

    Notes
    -----
    v_j = round(x*_j) for each j of ``first``, x* the path's optimum.
    """
    return tuple(int(round(result.values[columns[j]])) for j in first)


def solve_held(ctx: PlanState, use_spot: bool, block: Block, held: dict[int, float]
               ) -> StagedResult:
    """One path's staged optimum with some decisions held (the block keeps its tangents: they
    bound its costs whatever is held).

    Parameters
    ----------
    ctx : PlanState
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

    Notes
    -----
    :func:`models.staged.solve` with lower_j = upper_j = held_j for each held column j; the
    bounds are cleared after.
    """
    block.prob.fixed = dict(held)
    try:
        return solve(ctx, use_spot, block=block, loose=True)
    finally:
        block.prob.fixed = {}


class Unproven(Exception):
    """The search cannot go on exactly: a path's staged optimum with the here-and-now decisions
    held stopped at its limit, or HiGHS did not solve a box's LP relaxation."""


def solve_decomposed(ctxs: list[PlanState], blocks: list[Block],
                     paths: tuple[DemandScenario, ...], use_spot: bool, base: int,
                     alone: list[StagedResult]) -> Optional[RobustResult]:
    """The robust plan by branch and bound over the here-and-now decisions
    (models/robust_search.py): a box bounded by the stacked LP relaxation within it, a point
    priced by each path's staged optimum with those decisions held.

    Parameters
    ----------
    ctxs : list of PlanState
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

    Notes
    -----
    With y the here-and-now decisions, a box [lo, hi] of them is bounded by the extensive
    form's LP relaxation with lo <= y <= hi, and a point y is priced exactly as

    .. math:: V(y) = (1 - w) \\sum_s p_s PV^*_s(y) + w\\, CVaR_\\alpha(PV^*(y))

    with PV*_s(y) path s's staged optimum with y held; the search
    (:func:`models.robust_search.search`) starts from the base path's own y and the
    paths' weighted median.
    """
    if any(own.limited for own in alone):
        return None
    staging = ctxs[0].scenario.staging
    form = extensive_form(blocks, paths, staging, floors(alone, blocks))
    st = form.st
    columns = blocks[0].prob.columns
    first, here = st.first, st.here     # a block's here-and-now columns; path 0's, stacked
    if not first or not st.integer[here].all():
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
        found = lp["model"].solve(here, lo, hi)    # path 0's; the links tie the others
        if found.x is None:
            if found.status != "Infeasible":
                raise Unproven      # no bound to trust: the stacked MILP plans instead
            return math.inf, None
        return form.constant + found.bound, found.x[here]

    own = [here_and_now(r, columns, first) for r in alone]
    values = np.array(own, float)
    median = tuple(int(weighted_median(values[:, k], form.p)) for k in range(len(first)))
    try:
        found = search(relaxation, price, st.lower[here], st.upper[here],
                       starts=(own[base], median), boxes=SEARCH_BOXES, points=SEARCH_POINTS)
    except Unproven:
        return None
    if found.point is None:
        raise StagedError("the robust plan found no schedule within its work limit")
    results = priced[found.point]
    out = [path_plan(c, q, r.decisions, r.plan, r.objective, use_spot)
           for c, q, r in zip(ctxs, paths, results)]
    parts = [r.solution for r in results]
    x = np.zeros(st.nvar)                # CVaR's eta and u at 0: lifted only in the blocks
    for i, part in enumerate(parts):
        x[st.cols["path"].within(i)] = part
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

    Notes
    -----
    .. math:: m = \\min \\{ v_k : \\sum_{v_i \\le v_k} w_i \\ge 1/2 - 10^{-12} \\}
    """
    order = np.argsort(values, kind="stable")
    at = int(np.searchsorted(np.cumsum(weights[order]), 0.5 - 1e-12))
    return float(values[order][min(at, len(values) - 1)])
