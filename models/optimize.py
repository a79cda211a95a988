"""The exact cheapest mix of owned servers, commitments, spot and on demand (design 5.1, 5.3).

Method
------
Dispatch depends only on the number of servers N and the total committed GPUs C (every offer
serves the same way, constant over the horizon), and every cost line is linear in the monthly
volumes. So:

1. PV cost coefficients are computed once (``LinearCosts``, models/linear_costs.py): per server,
   per GPU of each offer, per GPU-hour of each source and month.
2. The cheapest split of each total C over the offers (whole blocks) is a min-cost coin change
   (models/splits.py).
3. All (N, C) candidates are costed at once from the sorted monthly demand tables: each volume
   is a binary search and a prefix-sum look-up (models/dispatch.py), O(months x log hours)
   (models/candidate_grid.py).
4. Non-linear terms (a cloud support minimum) are bounded, and every candidate whose lower bound
   can still win is costed exactly by the full engine (this module).
The grid is bounded by the peak (capacity above the peak only adds cost) and, where no fixed
cloud charge depends on using the cloud at all, by the screening-curve bound: a capacity level
whose hours of use cannot pay its cheapest fixed cost at the dearest variable price is never
worth adding.
"""
from __future__ import annotations

import numpy as np

from models.candidate_grid import candidates
from models.capacity import Capacity
from models.linear_costs import optimizer_state
from models.plan_state import PlanState
from models.strategy_result import StrategyResult


def best_capacity(ctx: PlanState, *, allow_servers: bool = True, min_servers: int = 0
                  ) -> tuple[Capacity, float]:
    """The PV-cost minimum over whole servers and whole blocks.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to optimize.
    allow_servers : bool, default True
        False: cloud only.
    min_servers : int, default 0
        Fewest new servers [servers].

    Returns
    -------
    capacity : Capacity
        The cheapest static decision; ties go to the smaller capital outlay.
    pv : float
        Its PV cost [currency].

    Raises
    ------
    ValueError
        No candidate with at least ``min_servers`` servers.

    Notes
    -----
    (n*, c*) = argmin over the candidates of :func:`candidates` (spot and no spot) of PV(n, c),
    with PV the lower bound of :func:`price_candidates` (exact PV of :meth:`PlanState.pv` when a
    support minimum applies); among PVs within 1e-9 x max(1, |PV_min|), the least capital outlay,
    then the fewest servers, then spot.
    Exact on grids of up to LIMIT points (every point costed).
    """
    lc, splits = optimizer_state(ctx)
    pool: list[tuple[float, float, Capacity]] = []
    n_range = (0, 0) if not allow_servers else (min_servers, 10**12)
    for use_spot in (True, False):
        cand = candidates(ctx, use_spot, n_range)
        if cand.approximate:
            ctx.cache.optimizer["approximate"] = True
        keep = cand.servers >= min_servers
        if not allow_servers:
            keep &= cand.servers == 0
        keep &= np.isfinite(cand.lower_pv)
        if not keep.any():
            continue
        best_upper = cand.upper_pv[keep].min()
        tolerance = 1e-9 * max(1.0, abs(best_upper))
        contenders = np.flatnonzero(keep & (cand.lower_pv <= best_upper + tolerance))
        for i in contenders:
            committed = {k: v for k, v in splits.split(int(cand.split_index[i])).items()}
            capacity = Capacity(int(cand.servers[i]), committed, cand.use_spot)
            pv = float(cand.lower_pv[i])
            if lc.support_min_pv > 0:  # the support minimum is not linear: exactly
                pv = ctx.pv(capacity)
            pool.append((pv, float(cand.outlay[i]), capacity))
    if not pool:
        raise ValueError(f"no candidate with at least {min_servers} servers")
    best_pv = min(item[0] for item in pool)
    tolerance = 1e-9 * max(1.0, abs(best_pv))
    tied = [item for item in pool if item[0] <= best_pv + tolerance]
    pv, _, capacity = min(tied, key=lambda item: (item[1], item[2].servers, not item[2].use_spot))
    return capacity, pv


def find_optimal(ctx: PlanState) -> dict[str, StrategyResult]:
    """Strategies ``cloud_only`` (no servers) and ``optimal`` (design 5.1).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan to optimize and cost.

    Returns
    -------
    dict of str to StrategyResult
        Both strategies costed by the engine.

    Notes
    -----
    cloud_only = :func:`best_capacity` with n = 0; optimal = :func:`best_capacity` over every n;
    both costed by :meth:`models.plan_state.PlanState.evaluate`.
    """
    cloud, _ = best_capacity(ctx, allow_servers=False)
    optimal, _ = best_capacity(ctx)
    return {"cloud_only": ctx.evaluate("cloud_only", cloud),
            "optimal": ctx.evaluate("optimal", optimal)}
