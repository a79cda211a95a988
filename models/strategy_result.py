"""A strategy costed: what :meth:`models.plan_state.PlanState.evaluate` returns, month by month.

The result and the two helpers that shape it: which tail months it keeps, and its volumes as the
cost kernel's one-plan columns. Nothing here reads the plan state; the state fills the result.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.dispatch import Volumes

__all__ = ["StrategyResult", "months_with_payments", "volume_columns"]


@dataclass
class StrategyResult:
    """A strategy costed: monthly volumes (horizon) and cost lines (horizon and tail)."""

    name: str
    capacity: Optional[Capacity]     # the static decision, when it is one
    plan: CapacityPlan
    volumes: Volumes
    lines: dict[str, np.ndarray]
    total_by_month: np.ndarray
    discounted_by_month: np.ndarray
    pv_cost: float
    total_cost: float
    normal_cost_pv: float            # the same capacity if nothing failed or was interrupted
    useful_gpu_hours: float
    useful_pv: float
    owned_utilization: Optional[float]
    owned_gpu_hours_by_month: np.ndarray
    committed_gpu_hours_by_month: np.ndarray
    spot_gpu_hours_by_month: np.ndarray
    on_demand_gpu_hours_by_month: np.ndarray
    utilization_by_month: np.ndarray
    servers_online: np.ndarray
    committed_gpus_by_month: np.ndarray
    uses_cloud: bool
    schedule: tuple = ()             # the decisions of a staged or scheduled strategy
    # by server type id (issue 26): servers online, owned GPU-hours, busy share of installed
    servers_online_by_type: Optional[dict] = None
    owned_gpu_hours_by_type: Optional[dict] = None
    owned_utilization_by_type: Optional[dict] = None
    # the scenario's limits it breaks (models/plan_limits.py): never recommended when any
    breaches: tuple = ()

    @property
    def failure_cost_pv(self) -> float:
        """What interruptions and hardware failures add to the PV cost [currency].

        Notes
        -----
        F = PV cost - normal PV cost [currency].
        """
        return self.pv_cost - self.normal_cost_pv

    @property
    def cost_per_useful_gpu_hour(self) -> float:
        """Levelized: PV cost / PV of useful GPU-hours [currency per GPU-hour]; NaN without work.

        Notes
        -----
        c = PV cost / sum_m useful_m (1 + r_m)^-m [currency per GPU-hour]; NaN when the denominator
        is 0.
        """
        return self.pv_cost / self.useful_pv if self.useful_pv > 0 else math.nan

    @property
    def cost_per_useful_gpu_hour_nominal(self) -> float:
        """Nominal: total cost / useful GPU-hours [currency per GPU-hour]; NaN without work.

        Notes
        -----
        c = total cost / sum_m useful_m [currency per GPU-hour]; NaN when there is no useful work.
        """
        return self.total_cost / self.useful_gpu_hours if self.useful_gpu_hours > 0 else math.nan

    @property
    def cumulative(self) -> np.ndarray:
        """Cumulative net cost by month, nominal [currency, (months,)].

        Notes
        -----
        C_m = sum_{j<=m} net_j [currency].
        """
        return np.cumsum(self.total_by_month)

    @property
    def discounted_cumulative(self) -> np.ndarray:
        """Cumulative net cost by month, discounted [currency, (months,)].

        Notes
        -----
        C_m = sum_{j<=m} discounted_j [currency].
        """
        return np.cumsum(self.discounted_by_month)

    @property
    def servers(self) -> int:
        """Most servers online in any month [servers].

        Notes
        -----
        N = max_m servers online_m [servers]; 0 without months.
        """
        return int(self.servers_online.max()) if self.servers_online.size else 0

    def rank(self) -> tuple[float, float]:
        """How strategies are ordered: the cheaper PV cost first, ties to the smaller outlay.

        Returns
        -------
        tuple of float
            (PV cost rounded to 1e-6 [currency], :meth:`capital_outlay` [currency]).

        Notes
        -----
        rank = (round(PV, 6), capital outlay) [currency]; the least rank is the best.
        """
        return round(self.pv_cost, 6), self.capital_outlay()

    def capital_outlay(self) -> float:
        """Undiscounted purchases and upfront payments: the tie-breaker of equal PV costs.

        Returns
        -------
        float
            Sum of the ``capex`` and ``commitment_upfront`` lines [currency].

        Notes
        -----
        outlay = sum_m capex_m + sum_m commitment_upfront_m, undiscounted [currency].
        """
        return float(self.lines["capex"].sum() + self.lines["commitment_upfront"].sum())


def months_with_payments(lines: dict[str, np.ndarray], horizon: int) -> int:
    """The horizon, and the months after it up to the last one with any payment.

    Parameters
    ----------
    lines : dict of str to numpy.ndarray
        Lines by month, horizon and tail [currency, (months,)].
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    int
        Months to keep [months].

    Notes
    -----
    M = H + (1 + the last tail index with any nonzero line, 0 when none) [months].
    """
    stacked = np.abs(np.stack(list(lines.values())))
    paid = np.flatnonzero(stacked[:, horizon:].max(axis=0) > 0) if stacked.shape[1] > horizon \
        else np.array([], dtype=int)
    return horizon + (int(paid[-1]) + 1 if paid.size else 0)


def volume_columns(v: Volumes) -> Volumes:
    """Volumes by month as (months, 1) columns, the cost kernel's shape for one plan.

    Parameters
    ----------
    v : Volumes
        One plan's volumes by month [GPU-hours of demand units, (months,)].

    Returns
    -------
    Volumes
        The same values [GPU-hours of demand units, (months, 1)], a fleet's owned work by type
        too.

    Notes
    -----
    x'[m, 0] = x[m] for every source x (committed, owned, spot, on demand, overhead, useful spot,
    gross) and every type's owned work [GPU-hours].
    """
    by_type = (None if v.owned_by_type is None else
               {k: np.asarray(x, float).reshape(-1, 1) for k, x in v.owned_by_type.items()})
    return Volumes(*(np.asarray(x, float).reshape(-1, 1) for x in (
        v.committed, v.owned, v.spot, v.on_demand, v.overhead, v.spot_useful, v.gross)),
        owned_by_type=by_type)
