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
month and function, solved by HiGHS (models/highs.py) with cutting planes: tangents of F and G
are added where the solution's epigraph value falls short of the true cost, until none does.
Every tangent is a valid lower bound of a convex function, so each MILP is a relaxation; at the
last one the solution's true cost equals the relaxation's optimum, which proves it optimal.
All coefficients are PVs of unit decisions read off the cost kernel (models/costs.py), the
rules every other strategy is priced with.

Modules
-------
This module runs the cutting-plane loop (:func:`solve`) and holds the staged plan's entry
points. The MILP is assembled in models/staged_problem.py, its columns and rows named blocks
(``buy[type, month]``, ``z[month]``, ``budget[year]``: models/milp_index.py) with the limit and
sale rows of models/staged_rows.py; its coefficients and their convexity are
models/staged_convexity.py's; models/staged_block.py holds one demand's MILP with its
tangents, and models/staged_result.py reads a solution as a schedule.
"""
from __future__ import annotations

import math
from typing import Optional

from models.schedule_cohorts import schedule_plan
from models.highs import proven_gap
from models.limits import LOOP_MILPS, node_limit
from models.plan_state import PlanState
from models.staged_block import Block, solve_milp
from models.staged_problem import StagedError
from models.staged_result import StagedResult, to_capacity, to_decisions

MAX_ROUNDS = 60
LOOSE_GAP = 1e-4   # relative gap of the loop rounds that only place tangents (then exact)
# Work limits, never wall time (models.highs.node_limit): the samples prove their optimum in
# a few hundred nodes, but extreme inputs the schema allows (prices 10^12 apart) scale the MILP
# so badly that HiGHS could search for hours. At the limit the best schedule found is kept,
# with its distance to HiGHS's lower bound as the gap, the same on every machine and load.


def staged_optimum(ctx: PlanState) -> StagedResult:
    """The schedule of least PV cost (exact; see the module notes).

    Parameters
    ----------
    ctx : PlanState
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

    Notes
    -----
    .. math:: x^* = \\arg\\min_{x \\in X} PV(x) = base + \\sum_j c_j x_j + \\sum_m
              \\big(F_m(L2_m) + G_m(L1_m)\\big) + const

    over the whole-number schedules X within the staging limits, with spot for
    interruptible overflow; without spot only when that problem's conditions fail.
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


def solve(ctx: PlanState, use_spot: bool, static: bool = False, servers: bool = True,
          fixed: Optional[dict] = None, block: Optional["Block"] = None,
          loose: bool = False) -> StagedResult:
    """The cutting-plane loop: MILPs with tangents of each month's convex functions added until
    each month's cut is tight.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to schedule.
    use_spot : bool
        Spot allowed for interruptible overflow.
    static : bool, default False
        Solve the static problem of a fleet instead
        (:func:`models.staged_problem.build_problem`); the result's ``capacity`` is the
        decision.
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
    result.values = {k: float(x[j]) for j, k in enumerate(prob.columns[prob.decisions])}
    unproven = block.concave.any() or rounds >= MAX_ROUNDS or limited
    # a bound within half a cent proves the schedule even where a work limit stopped HiGHS
    result.gap = proven_gap(bound, objective) if unproven else 0.0
    result.limited = limited
    result.solution = x
    if limited and not math.isfinite(result.gap):
        result.gap = abs(objective)
    return result


def fleet_static_optimum(ctx: PlanState, allow_servers: bool = True) -> StagedResult:
    """The cheapest static decision of a fleet: servers per type sold in the first month and
    commitments per offer, exactly (the static problem of
    :func:`models.staged_problem.build_problem`).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
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

    Notes
    -----
    .. math:: \\min_{n, k} \\sum_t c_t n_t + \\sum_o c_o k_o + \\sum_m \\big(F_m(L2_m) +
              G_m(L1_m) + \\sum_k H_{k,m}(L_{k,m})\\big)

    over whole servers n_t of each type sold in month 1 (replaced at each life's end) and
    whole blocks k_o of each offer (renewed), months with the same levels sharing one epigraph
    (:func:`models.staged_block.month_groups`). Of the spot and no-spot solutions, the least
    PV (to 1e-6) wins, spot on a tie.
    """
    key = ("fleet_static", allow_servers)
    if key in ctx.cache.optimizer:
        return ctx.cache.optimizer[key]
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
    ctx.cache.optimizer[key] = best
    return best


def fleet_optimal(ctx: PlanState) -> dict:
    """Strategies ``cloud_only`` and ``optimal`` of a fleet (issue 26), costed by the engine.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.

    Returns
    -------
    dict of str to StrategyResult
        Both strategies; ``optimal`` holds servers per type sold in the first month.

    Raises
    ------
    StagedError
        The static problem cannot be proven (see :func:`solve`).

    Notes
    -----
    ``cloud_only`` is :func:`fleet_static_optimum` with n_t = 0 for every type, ``optimal``
    without that bound; each is then priced by the engine (``ctx.evaluate``), nonlinear terms
    included.
    """
    cloud = fleet_static_optimum(ctx, allow_servers=False).capacity
    optimal = fleet_static_optimum(ctx).capacity
    return {"cloud_only": ctx.evaluate("cloud_only", cloud),
            "optimal": ctx.evaluate("optimal", optimal)}
