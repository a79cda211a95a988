"""One demand's staged MILP with its tangents: the state of the cutting-plane loop (issue 14).

A :class:`Block` holds the fixed MILP of models/staged_problem.py, each month's convex
functions of the levels (the module notes of models/staged.py: F of the top level, G of the
committed level, with types the steps between them) and the tangents that bound their epigraph
variables. models/staged.py runs one block's loop; the robust plan (models/robust_problem.py,
issue 27) stacks one per demand path.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.highs import solve_mip
from models.limits import node_limit
from models.optimize import best_capacity
from models.plan_state import PlanState
from models.staged_convexity import check_convex, month_costs, type_costs
from models.staged_problem import Problem, StagedError, assemble, bounds, build_problem

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


class Block:
    """One demand's MILP and tangents: the state of the cutting-plane loop of one plan.

    :func:`models.staged.solve` runs one; the robust plan (models/robust_problem.py, issue
    27) stacks one per demand scenario into one MILP. Each month's convex functions (module
    notes of models/staged.py; with types, the levels between them) get epigraph variables
    bounded by tangents.
    """

    def __init__(self, ctx: PlanState, use_spot: bool, static: bool = False,
                 servers: bool = True, fixed: Optional[dict] = None):
        """Build the MILP's fixed parts and the starting tangents.

        Parameters
        ----------
        ctx : PlanState
            Context of the plan (its demand, prices, position and limits).
        use_spot : bool
            Spot allowed for interruptible overflow.
        static : bool, default False
            The static problem of a fleet
            (:func:`models.staged_problem.build_problem`).
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
            owned = list(ctx.owned_levels(static_plan_).values())
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

        Notes
        -----
        At level x_0 of a group of months G (one month for a schedule), the tangent of the
        group's summed function is

        .. math:: e \\ge \\sum_{m \\in G} f_m(x_0) + \\Big(\\sum_{m \\in G} f_m'(x_0)\\Big)
                  (l - x_0)

        with f_m'(x) the function's slope, its coefficient times the month's hours above x
        (the derivative of sum min(d_h, x)). None is placed where G is concave.
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

        Notes
        -----
        A group G falls short when

        .. math:: e_G < \\sum_{m \\in G} f_m(l_m) - 10^{-9} \\max(1, \\sum_{f,m} |f_m| / H)\\,|G|

        (a relative tolerance against HiGHS's); concave months never do (their chord is exact
        at its ends and is not refined).
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

        Notes
        -----
        .. math:: PV = base + const + \\sum_{j \\in decisions} c_j x_j + \\sum_{f,m} f_m(l_m)

        with const = c_od . steady + c_int . (gross - steady) summed over the months.
        """
        prob = self.prob
        d = prob.decisions
        return float(prob.base + self.constant + prob.cost[d] @ x[d]
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

    Notes
    -----
    Months m and m' share a group when h_m = h_{m'} and row m of the level's matrix equals
    row m' (same columns, same coefficients): then l_m = l_{m'} at every x, and

    .. math:: \\sum_{m \\in G} f_m(l_m) = \\Big(\\sum_{m \\in G} f_m\\Big)(l_G)

    is one convex function of one level.
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

    Notes
    -----
    With l* the LP relaxation's level of a month and function, a tangent (s, b) scores
    score = b + s l*; the ``keep`` highest scores are kept (a concave month's chords all are).
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

    Notes
    -----
    .. math:: \\min c^T x \\;\\text{s.t.}\\; r_{lo} \\le A x \\le r_{hi},\\; lo \\le x \\le hi,
              \\; x_j \\in \\mathbb{Z} \\text{ for the decisions}

    with A the tangents and ``prob.rows`` (:func:`models.staged_problem.assemble`) and the
    bounds of :func:`models.staged_problem.bounds`.
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

