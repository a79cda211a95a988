"""The robust plan's result (issue 27): each demand path's schedule and costs, the plan over
all of them, and the least-capital alternative; CVaR of the paths' PVs."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.capacity import CapacityPlan
from models.scenario_schedule import Decision, DemandScenario
from models.plan_state import PlanState
from models.strategy_result import StrategyResult


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
    contexts: list[PlanState] = field(default_factory=list, repr=False)
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

        Notes
        -----
        .. math:: E[PV] = \\sum_s p_s PV_s(capacity)

        summed with ``math.fsum``.
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

        Notes
        -----
        result_s = ``evaluate("robust", plan_s)`` in path s's context
        (:meth:`models.plan_state.PlanState.evaluate`).
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

        Notes
        -----
        Path 0's decisions with month <= ``decide_now_until`` (the non-anticipativity rows
        make every path's the same).
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

    Notes
    -----
    .. math:: CVaR_\\alpha = \\min_{\\eta \\in \\{PV_s\\}} \\eta + \\frac{1}{1 - \\alpha}
              \\sum_s p_s \\max(PV_s - \\eta, 0)

    (Rockafellar-Uryasev).
    """
    pvs, probabilities = np.asarray(pvs, float), np.asarray(probabilities, float)
    return float(min(eta + probabilities @ np.maximum(pvs - eta, 0.0) / (1.0 - alpha)
                     for eta in pvs))


def path_plan(c: PlanState, path: DemandScenario, decisions: tuple[Decision, ...],
              plan: CapacityPlan, objective: float, use_spot: bool) -> PathPlan:
    """One path's schedule costed by the engine, with its capacity and demand by month.

    Parameters
    ----------
    c : PlanState
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

    Notes
    -----
    .. math:: capacity_m = \\theta_c\\, committed_m + \\sum_t owned_{t,m}

    [GPUs of the reference type], beside the path's peak hour and mean by month.
    """
    s = c.scenario
    owned = sum(c.owned_levels(plan).values(), np.zeros(c.horizon))
    capacity = plan.committed_gpus(c.horizon) * s.on_demand.relative_throughput + owned
    return PathPlan(path.name, path.probability, path.growth_annual, decisions, plan,
                    c.pv(plan), objective, capacity=capacity,
                    demand_peak=np.asarray(c.tables.gross.peak, float),
                    demand_mean=c.tables.gross.totals / c.calendar.hours)
