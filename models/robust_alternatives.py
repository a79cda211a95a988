"""Beside the robust plan (issue 27): the least-capital alternative within an allowance of its
expected PV, and its EVPI and VSS against each path's own optimum and the base path's plan."""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.milp_rows import Rows
from models.plan_state import PlanState
from models.robust_problem import Stacked, block_costs, first_stage, stack
from models.robust_result import Alternative, RobustResult
from models.robust_solve import here_and_now, path_plans, run_loop, solve_held
from models.scenario_schedule import DemandScenario
from models.staged_block import HIGHS_OPTIONS, Block
from models.staged_problem import StagedError

ALTERNATIVE_WITHIN = 0.02   # the least-capital alternative's allowance over the least PV


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

    Notes
    -----
    .. math:: k_{path[s, j]} = p_s\\, paid_j \\quad \\text{for } j = buy[t, d],\\
              commit[o, d] \\text{ with } d < 12

    so that k x is the expected capital of the first 12 months [currency].
    """
    cost = np.zeros(st.nvar)
    for i, b in enumerate(st.blocks):
        prob = b.prob
        year_one = np.zeros(b.nvar, dtype=bool)
        for name in ("buy", "commit"):
            block = prob.cols[name]
            for key in block:
                year_one[block[key]] = key[-1] < 12
        cost[st.cols["path"].within(i)] = p[i] * np.where(year_one, prob.paid, 0.0)
    return cost


def least_capital(ctxs: list[PlanState], blocks: list[Block],
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
    ctxs : list of PlanState
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
        Its paths, expected PV and year-one capital; None when HiGHS finds nothing within its
        work limit.

    Notes
    -----
    .. math:: \\min_x k x \\quad \\text{s.t.} \\quad \\sum_s p_s (c^{(s)} x_s + k_s)
              \\le (1 + within)\\, E^*

    over the stacked MILP (the row ``expected_pv``), k the year-one payments
    (:func:`year_one_costs`) and E* ``expected``; tangents are added until every epigraph is
    tight.
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
        cap_row = Rows(st.nvar)
        cap_row.add("expected_pv", row, -np.inf, cap)
        x, checks, _rounds, limited, _dual = run_loop(st, cost, cap_row, options=HIGHS_OPTIONS,
                                                      lift=False)
    except StagedError:
        return None
    if limited:
        return None
    out = path_plans(ctxs, st, x, checks, paths, use_spot)
    return Alternative(out, float(p @ [q.pv_cost for q in out]), float(cost @ x), within)


def add_foresight(result: RobustResult, ctxs: list[PlanState], alone: list,
                  blocks: list[Block], base: int) -> None:
    """EVPI and VSS of a robust result, in place (module notes of models/robust.py).

    Parameters
    ----------
    result : RobustResult
        The robust plan.
    ctxs : list of PlanState
        Each path's context, in the result's order.
    alone : list of models.staged.StagedResult
        Each path's own staged optimum, in the same order.
    blocks : list of Block
        Each path's block: its tangents stay valid lower bounds whatever decisions are held
        fixed, so the re-optimisation starts from them (the fixed values are set for it and
        cleared after).
    base : int
        Index of the base path (:func:`models.robust.base_path`).

    Notes
    -----
    With PV_s the robust plan's MILP cost on path s, PV*_s the path's own optimum and
    PV^b_s path s re-optimised with the base path's own here-and-now decisions held:

    .. math:: EVPI = \\sum_s p_s PV_s - \\sum_s p_s PV^*_s, \\quad
              VSS = \\sum_s p_s PV^b_s - \\sum_s p_s PV_s
    """
    p = np.array([q.probability for q in result.paths])
    months = ctxs[0].scenario.staging.decide_now_months
    columns = blocks[0].prob.columns
    first = first_stage(blocks[0].prob.cols, months)
    point = here_and_now(alone[base], columns, first)
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
