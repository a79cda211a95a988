"""Strategies: a capacity choice costed month by month.

``PlanContext`` holds everything that depends only on the scenario and the profile (calendar,
sorted demand, the price book, spot and failure waste); evaluating a strategy is then one
dispatch and one pass of the cost kernel (models/costs.py).
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from typing import Optional, Union

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.static_cohorts import position_plan, static_plan
from models.checkpoint import HOURS_PER_YEAR, Waste, waste_fraction
from models.costs import (cost_lines, discounted_by_month, net_by_month, present_value,
                          uses_cloud)
from models.dispatch import DemandTables, Volumes, dispatch
from models.fleet import fleet_types, merit_order
from models.prices import PriceBook
from models.profile import PlanCalendar, PlanDemand
from models.refusals import Refusal
from models.scenario import Scenario
from models.scenario_types import MAX_SERVERS

__all__ = ["Capacity", "PlanContext", "PlanError", "StrategyResult", "on_demand_capacity",
           "buy_for_peak_capacity", "proposed_capacity", "failure_and_spot_waste"]


class PlanError(Refusal):
    """A scenario and profile that cannot be planned."""


def failure_and_spot_waste(s: Scenario) -> tuple[Waste, Waste]:
    """Waste of interruptible gang work from hardware failures, and on spot (design 4.4).

    Parameters
    ----------
    s : Scenario
        The scenario (``spot`` job shape and interruptions, ``owned`` failure rate).

    Returns
    -------
    failure : Waste
        Hardware failures alone, on any capacity.
    on_spot : Waste
        Spot reclaims and hardware failures together.

    Notes
    -----
    failure = :func:`models.checkpoint.waste_fraction` with unnoticed rate f / 8760 and no noticed
    rate; on_spot = the same with noticed rate = spot interruptions per instance-hour; f the
    failures per server-year [1 / year].
    """
    sp = s.spot
    failure_rate = s.owned.failures_per_server_year / HOURS_PER_YEAR
    common = dict(nodes=sp.nodes_per_job, notice_seconds=sp.notice_seconds,
                  checkpoint_seconds=sp.checkpoint_seconds, restart_seconds=sp.restart_seconds)
    failure = waste_fraction(noticed_rate_per_node_hour=0.0,
                             unnoticed_rate_per_node_hour=failure_rate, **common)
    on_spot = waste_fraction(noticed_rate_per_node_hour=sp.interruptions_per_instance_hour,
                             unnoticed_rate_per_node_hour=failure_rate, **common)
    return failure, on_spot


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
    # a fleet of server types (issue 26): servers online and owned GPU-hours, by type id
    servers_online_by_type: Optional[dict] = None
    owned_gpu_hours_by_type: Optional[dict] = None
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


def interruptible_wastes(scenario: Scenario, demand: PlanDemand) -> tuple[Waste, Waste, float]:
    """The wastes of interrupted work a plan's capacity carries, or the refusal when failures
    alone leave gang jobs no useful time (one check for a new context and a re-priced one).

    Parameters
    ----------
    scenario : Scenario
        The scenario (``spot`` job shape, ``owned`` failure rate).
    demand : PlanDemand
        Hourly demand over the plan: whether any of it is interruptible.

    Returns
    -------
    tuple
        (failure waste, spot waste, the failure share the demand tables carry [fraction]: the
        failure waste's fraction when the demand has interruptible work, else 0).

    Raises
    ------
    PlanError
        Interruptible gang jobs that hardware failures alone stop from finishing.

    Notes
    -----
    Owned, committed and on-demand capacity carry the failure waste w_f of interruptible work
    (design 4.4); the tables hold w = w_f when sum_h interruptible_h > 0, else w = 0.
    """
    failure, spot = failure_and_spot_waste(scenario)
    has_interruptible = demand.interruptible.sum() > 0
    if has_interruptible and not failure.feasible:
        raise PlanError(
            f"interruptible gang jobs of {scenario.spot.nodes_per_job} nodes cannot finish: "
            f"hardware failures alone waste {failure.fraction:.0%} of their time "
            "(owned.failures_per_server_year, spot.nodes_per_job)")
    return failure, spot, failure.fraction if has_interruptible else 0.0


class PlanContext:
    """Scenario-and-profile-dependent state shared by every strategy of one plan."""

    def __init__(self, scenario: Scenario, calendar: PlanCalendar, demand: PlanDemand):
        self.scenario, self.calendar, self.demand = scenario, calendar, demand
        self.failure_waste, self.spot_waste, self.tables_failure_waste = \
            interruptible_wastes(scenario, demand)
        self.tables = DemandTables.build(demand, calendar, self.tables_failure_waste)
        self.book = PriceBook(scenario, calendar)
        self.horizon = len(calendar.hours)
        self.position = position_plan(scenario, calendar.months[0], self.horizon,
                                      self.book.vat)
        self.fleet = fleet_types(scenario, calendar.months[0])
        self.merit = merit_order(self.book, self.fleet, self.horizon)
        self.end_factors = self.book.end[:self.horizon, 0]
        self.start_factors = self.book.start[:self.horizon, 0]
        self.useful_pv = float(self.tables.useful_by_month @ self.end_factors)
        self.volume_cache: dict[tuple, Volumes] = {}   # shared by re-priced contexts
        self.optimizer_cache: dict[str, object] = {}   # prices matter here: never shared
        self._normal_tables: Optional[DemandTables] = None

    def repriced(self, scenario: Scenario) -> "PlanContext":
        """The same demand with another scenario (a what-if on anything but the profile section).

        Parameters
        ----------
        scenario : Scenario
            The changed scenario; its ``profile`` section must be the same.

        Returns
        -------
        PlanContext
            A new context: prices are rebuilt; the sorted demand only if the failure waste moved;
            the optimizer's findings are kept (copied) only for an equal scenario.

        Raises
        ------
        PlanError
            Hardware failures alone leave interruptible gang jobs no useful time.

        Notes
        -----
        New prices; wastes of :func:`interruptible_wastes`; useful PV = sum_m useful_m x (1 +
        r_m)^-m [GPU-hours]; the merit order of :func:`models.fleet.merit_order`.
        """
        new = copy.copy(self)   # every attribute shared until replaced below
        new.scenario = scenario
        new.failure_waste, new.spot_waste, new.tables_failure_waste = \
            interruptible_wastes(scenario, self.demand)
        if new.tables_failure_waste != self.tables_failure_waste:
            new.tables = DemandTables.build(self.demand, self.calendar,
                                            new.tables_failure_waste)
            new._normal_tables = None
        new.book = PriceBook(scenario, self.calendar)
        new.fleet = fleet_types(scenario, self.calendar.months[0])
        new.merit = merit_order(new.book, new.fleet, self.horizon)
        new.end_factors = new.book.end[:self.horizon, 0]
        new.start_factors = new.book.start[:self.horizon, 0]
        new.useful_pv = float(self.tables.useful_by_month @ new.end_factors)
        # The optimizer's state depends on the prices and the demand only: an equal scenario
        # over the same demand (the robust plan's base path, whose growth is the plan's own)
        # gets a copy of what was found for it, and skips the static search again (issue 38).
        # A copy, so that what either context finds later stays its own.
        new.optimizer_cache = dict(self.optimizer_cache) if scenario == self.scenario else {}
        return new

    def with_demand(self, demand: PlanDemand) -> "PlanContext":
        """The same prices with another demand (breakevens on a flat profile).

        Parameters
        ----------
        demand : PlanDemand
            Hourly demand over the plan [GPUs].

        Returns
        -------
        PlanContext
            A new context with the demand's sorted tables.

        Notes
        -----
        Tables of :meth:`models.dispatch.DemandTables.build` (demand, calendar, w), w = the failure
        waste when the demand has interruptible work, else 0 [fraction].
        """
        has_interruptible = demand.interruptible.sum() > 0
        waste = self.failure_waste.fraction if has_interruptible else 0.0
        return self._redemanded(demand, DemandTables.build(demand, self.calendar, waste), waste)

    def scaled_demand(self, factor: float) -> "PlanContext":
        """The same prices with every hour's demand multiplied by a factor (breakevens on a
        flat profile at many levels: the sorted tables are scaled, not rebuilt).

        Parameters
        ----------
        factor : float
            Multiplier of every hour's demand, >= 0 [-].

        Returns
        -------
        PlanContext
            A new context for the scaled demand.

        Notes
        -----
        d'_h = a d_h for steady and interruptible demand, tables scaled by
        :meth:`models.dispatch.DemandTables.scaled`, a = ``factor`` [-].
        """
        d = self.demand
        return self._redemanded(PlanDemand(d.steady * factor, d.interruptible * factor,
                                           d.profile_hours_used, d.repeated_hours),
                                self.tables.scaled(factor), self.tables_failure_waste)

    def _redemanded(self, demand: PlanDemand, tables: DemandTables,
                    tables_failure_waste: float) -> "PlanContext":
        """A copy with the same prices and another demand, its tables given; the caches of
        volumes and optimizer coefficients start empty (they depend on the demand)."""
        new = copy.copy(self)   # every attribute shared until replaced below
        new.demand, new.tables, new.tables_failure_waste = demand, tables, tables_failure_waste
        new.useful_pv = float(tables.useful_by_month @ self.end_factors)
        new.volume_cache, new.optimizer_cache, new._normal_tables = {}, {}, None
        return new

    def pv(self, capacity: Union[Capacity, CapacityPlan]) -> float:
        """PV cost of a capacity, what :meth:`evaluate` reports, computed alone.

        Parameters
        ----------
        capacity : Capacity or CapacityPlan
            A static decision (on top of the position) or a set of cohorts.

        Returns
        -------
        float
            PV cost [currency].

        Notes
        -----
        PV = :meth:`price` (plan, :meth:`volumes` (plan)) of the capacity's cohorts [currency].
        """
        plan = self.capacity_plan(capacity)
        return self.price(plan, self.volumes(plan))[1]

    def capacity_plan(self, capacity: Union[Capacity, CapacityPlan]) -> CapacityPlan:
        """The cohorts of a static decision on top of the position.

        Parameters
        ----------
        capacity : Capacity or CapacityPlan
            A static decision, or a set of cohorts (returned as is).

        Returns
        -------
        CapacityPlan
            The cohorts.
        """
        if isinstance(capacity, CapacityPlan):
            return capacity
        return static_plan(self.scenario, capacity, self.horizon, self.position,
                           self.calendar.months[0])

    # capacities in demand units (GPUs of the measured type) by month
    def owned_per_server(self) -> float:
        """Capacity one online server gives, in demand units.

        Returns
        -------
        float
            GPUs per server x availability x relative throughput of the first server type
            [GPUs of the measured type].

        Notes
        -----
        w = G x a x t of the first server type (:attr:`models.fleet.FleetType.per_server`) [GPUs].
        """
        return self.fleet[0].per_server    # the first server type of a fleet

    def owned_capacity(self, servers: int | np.ndarray) -> np.ndarray:
        """Owned capacity of the position plus a static count of new servers, by month.

        Parameters
        ----------
        servers : int or numpy.ndarray
            New servers, or k candidate counts [servers].

        Returns
        -------
        numpy.ndarray
            Capacity [GPUs of the measured type, (months,) or (months, k)].

        Notes
        -----
        K(m) = n_held(m) w + n x online_1(m) x w, n_held the position's servers online, online_1 one
        server's static chain online (1 or 0), n = ``servers``, w the capacity of one server
        (:meth:`owned_per_server`) [GPUs]; a fleet's position by its types' levels.
        """
        H = self.horizon
        online = static_plan(self.scenario, Capacity(1), H,
                             first_month=self.calendar.months[0]).servers_online(H)
        held = (sum(self.owned_levels(self.position).values(), np.zeros(H))
                if self.scenario.server_types else
                self.position.servers_online(H) * self.owned_per_server())
        new = np.multiply.outer(online, np.asarray(servers) * self.owned_per_server())
        return new + (held if new.ndim == 1 else held[:, None])

    def committed_capacity(self, committed_gpus: float | np.ndarray) -> np.ndarray:
        """Committed capacity of the position plus a constant count of new committed GPUs.

        Parameters
        ----------
        committed_gpus : float or numpy.ndarray
            New committed GPUs, or k candidates [GPUs].

        Returns
        -------
        numpy.ndarray
            Committed capacity [GPUs of the measured type, (months,) or (months, k)].

        Notes
        -----
        C(m) = (c_held(m) + c) x theta_c, c_held the position's committed GPUs, c the new committed
        GPUs [GPUs], theta_c the cloud's relative throughput [-].
        """
        theta = self.scenario.on_demand.relative_throughput
        held = self.position.committed_gpus(self.horizon) * theta
        new = np.multiply.outer(np.ones(self.horizon), np.asarray(committed_gpus) * theta)
        return new + (held if new.ndim == 1 else held[:, None])

    def volumes(self, plan: CapacityPlan, normal: bool = False) -> Volumes:
        """Monthly volumes of a set of cohorts.

        Parameters
        ----------
        plan : CapacityPlan
            Cohorts to dispatch.
        normal : bool, default False
            As if nothing failed or was interrupted.

        Returns
        -------
        Volumes
            GPU-hours by source and month [GPU-hours of demand units, (months,)]; cached, since
            re-priced contexts share the demand.

        Notes
        -----
        :func:`models.dispatch.dispatch` of the committed level C(m) = c(m) theta_c and the owned
        level K(m) = n(m) w (a fleet: sum of :meth:`owned_levels`), spot share = spot availability
        when the plan uses spot else 0 [GPUs]; a fleet's owned work by :meth:`owned_by_type`.
        """
        s, H = self.scenario, self.horizon
        spot_share = s.spot.availability if plan.use_spot else 0.0
        if s.server_types:
            by_type = self.owned_levels(plan)
            owned = sum(by_type.values(), np.zeros(H))
        else:
            owned = plan.servers_online(H) * self.owned_per_server()
        committed = plan.committed_gpus(H) * s.on_demand.relative_throughput
        waste = (0.0, 0.0) if normal else (self.tables_failure_waste, self.spot_waste.fraction)
        key = (owned.tobytes(), committed.tobytes(), spot_share, waste,
               s.spot.availability)
        if s.server_types:
            key += tuple(x.tobytes() for x in by_type.values())
        cached = self.volume_cache.get(key)
        if cached is None:
            tables = self.normal_tables() if normal else self.tables
            cached = dispatch(tables, committed, owned, failure_waste=waste[0],
                              spot_waste=waste[1], spot_share=spot_share)
            if s.server_types:
                cached = replace(cached, owned_by_type=self.owned_by_type(
                    tables, committed, by_type))
            self.volume_cache[key] = cached
        return cached

    def owned_levels(self, plan: CapacityPlan) -> dict:
        """Owned capacity of each server type by month, in the merit order (issue 26).

        Parameters
        ----------
        plan : CapacityPlan
            Cohorts of the strategy.

        Returns
        -------
        dict
            Type id to capacity [GPUs of the reference type, (months,)], every type of the
            fleet, first to take work first.

        Notes
        -----
        K_i(m) = n_i(m) x w_i for each type i in merit order, n_i servers online, w_i =
        :attr:`models.fleet.FleetType.per_server` [GPUs of the reference type].
        """
        online = plan.servers_online_by_type(self.horizon)
        return {self.fleet[i].id: online.get(self.fleet[i].id, np.zeros(self.horizon))
                * self.fleet[i].per_server for i in self.merit}

    def owned_by_type(self, tables: DemandTables, committed: np.ndarray, levels: dict) -> dict:
        """Owned work of each type: gross demand between the cumulative levels of the types
        before it in the merit order and its own, above the committed level.

        Parameters
        ----------
        tables : DemandTables
            Sorted demand.
        committed : numpy.ndarray
            Committed capacity [GPUs of the reference type, (months,)].
        levels : dict
            Owned capacity per type in the merit order (:meth:`owned_levels`).

        Returns
        -------
        dict
            Type id to owned work [GPU-hours of the reference type, (months,)].

        Notes
        -----
        W_i(m) = A_m(C + sum_{j<=i} K_j) - A_m(C + sum_{j<i} K_j), A_m the gross table's sum-min
        (:meth:`models.dispatch.MonthlySorted.sum_min`), C the committed level, K_j the levels of
        the types in merit order [GPUs] (W in GPU-hours of the reference type).
        """
        out, level = {}, committed.astype(float)
        below = tables.gross.sum_min(level)
        for type_id, capacity in levels.items():
            level = level + capacity
            served = tables.gross.sum_min(level)
            out[type_id] = served - below
            below = served
        return out

    def normal_tables(self) -> DemandTables:
        """Sorted demand as if nothing failed (no failure overhead on interruptible work).

        Returns
        -------
        DemandTables
            The tables, built once.

        Notes
        -----
        The tables of :meth:`models.dispatch.DemandTables.build` with failure waste w_f = 0 (gross =
        steady + interruptible).
        """
        if self._normal_tables is None:
            self._normal_tables = (self.tables if self.tables_failure_waste == 0 else
                                   DemandTables.build(self.demand, self.calendar, 0.0))
        return self._normal_tables

    def price(self, plan: CapacityPlan, v: Volumes, book: Optional[PriceBook] = None
              ) -> tuple[dict[str, np.ndarray], float]:
        """Cost lines of a plan and their PV.

        Parameters
        ----------
        plan : CapacityPlan
            Cohorts to price.
        v : Volumes
            Their monthly volumes [GPU-hours].
        book : PriceBook, optional
            Prices to use; the context's own when None.

        Returns
        -------
        lines : dict of str to numpy.ndarray
            Every line of ``models.costs.LINES`` by payment month, horizon and tail
            [currency, (months,)].
        pv : float
            PV cost, costs minus credits [currency].

        Notes
        -----
        lines = :func:`models.costs.cost_lines` (book, plan, volumes); PV =
        :func:`models.costs.present_value` of them [currency].
        """
        book = self.book if book is None else book
        lines = cost_lines(book, plan, _column(v))
        pv = float(present_value(book, lines)[0])
        return {k: x[:, 0] for k, x in lines.full().items()}, pv

    def evaluate(self, name: str, capacity: Union[Capacity, CapacityPlan]) -> StrategyResult:
        """Cost a strategy: dispatch, every cost line, PV, and the volumes by source.

        Parameters
        ----------
        name : str
            Strategy name, ``"on_demand"``, ``"optimal"``, ... (as the plan document keys it).
        capacity : Capacity or CapacityPlan
            A static decision (on top of the position) or a set of cohorts.

        Returns
        -------
        StrategyResult
            Lines and net cost by month over the horizon and the tail months with a payment
            [currency], PV, nominal and normal PV cost [currency], GPU-hours by source and month
            [GPU-hours of the GPU type of each source], owned utilization [fraction], servers
            online [servers] and committed GPUs [GPUs] by month.

        Notes
        -----
        Volumes of :meth:`volumes`, lines and PV of :meth:`price` (PV =
        :func:`models.costs.present_value`),
        normal PV the same on :meth:`normal_tables` with
        :meth:`models.prices.PriceBook.uninterrupted`
        prices; utilization_m = owned GPU-hours_m / (servers online_m x GPUs per server x hours_m)
        [fraction]; a source's GPU-hours = its volume / its relative throughput [GPU-hours].
        """
        s, cal, H = self.scenario, self.calendar, self.horizon
        plan = self.capacity_plan(capacity)
        v = self.volumes(plan)
        lines, pv = self.price(plan, v)
        _, normal_pv = self.price(plan, self.volumes(plan, normal=True),
                                  self.book.uninterrupted())
        discounted = discounted_by_month(self.book, {k: x[:, None] for k, x in lines.items()})
        keep = months_with_payments(lines, H)
        lines = {k: x[:keep] for k, x in lines.items()}
        total = net_by_month(lines)
        discounted = discounted[:keep]
        o = s.owned
        theta_o, theta_c = o.relative_throughput, s.on_demand.relative_throughput
        online = plan.servers_online(H)
        by_type = hours_by_type = None
        if s.server_types:
            kinds = {k.id: k.owned for k in self.fleet}
            by_type = plan.servers_online_by_type(H)
            by_type = {k: by_type.get(k, np.zeros(H)) for k in kinds}
            hours_by_type = {k: v.owned_by_type[k] / kinds[k].relative_throughput
                             for k in kinds}
            installed = sum((by_type[k] * kinds[k].gpus_per_server for k in kinds),
                            np.zeros(H)) * cal.hours
            owned_hours = sum(hours_by_type.values(), np.zeros(H))
        else:
            installed = online * o.gpus_per_server * cal.hours
            owned_hours = v.owned / theta_o
        util = np.divide(owned_hours, installed, out=np.zeros_like(installed),
                         where=installed > 0)
        return StrategyResult(
            name=name, capacity=capacity if isinstance(capacity, Capacity) else None,
            plan=plan, volumes=v, lines=lines, total_by_month=total,
            discounted_by_month=discounted[:, 0], pv_cost=pv, total_cost=float(total.sum()),
            normal_cost_pv=normal_pv,
            useful_gpu_hours=float(self.tables.useful_by_month.sum()), useful_pv=self.useful_pv,
            owned_utilization=(float(owned_hours.sum() / installed.sum())
                               if installed.sum() > 0 else None),
            owned_gpu_hours_by_month=owned_hours,
            committed_gpu_hours_by_month=v.committed / theta_c,
            spot_gpu_hours_by_month=v.spot / theta_c,
            on_demand_gpu_hours_by_month=v.on_demand / theta_c,
            utilization_by_month=util, servers_online=online,
            committed_gpus_by_month=plan.committed_gpus(H),
            uses_cloud=bool(uses_cloud(plan, _column(v))[0]),
            servers_online_by_type=by_type, owned_gpu_hours_by_type=hours_by_type)


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


def _column(v: Volumes) -> Volumes:
    """Volumes by month as (months, 1) columns, the kernel's shape for one plan."""
    by_type = (None if v.owned_by_type is None else
               {k: np.asarray(x, float).reshape(-1, 1) for k, x in v.owned_by_type.items()})
    return Volumes(*(np.asarray(x, float).reshape(-1, 1) for x in (
        v.committed, v.owned, v.spot, v.on_demand, v.overhead, v.spot_useful, v.gross)),
        owned_by_type=by_type)


def on_demand_capacity() -> Capacity:
    """Everything on demand: the baseline.

    Returns
    -------
    Capacity
        No servers, no commitments, no spot.
    """
    return Capacity(0, {}, use_spot=False)


def buy_for_peak_capacity(ctx: PlanContext) -> Capacity:
    """Enough new servers for the peak hour above what the position holds that month.

    Parameters
    ----------
    ctx : PlanContext
        Context of the plan (peak demand, position).

    Returns
    -------
    Capacity
        ceil(shortfall / (GPUs per server x availability x relative throughput)) servers,
        at most the schema's bound; shortfalls run on demand (no spot).

    Notes
    -----
    n = min(max(ceil(max_m (peak_m - held_m) / w - 1e-9), 0), ``MAX_SERVERS``), peak_m the month's
    peak gross demand, held_m the position's owned plus committed capacity [GPUs], w the capacity
    of one server of the first type buyable in month 1 [GPUs].
    """
    held = ctx.owned_capacity(0) + ctx.committed_capacity(0)
    short = float(np.max(ctx.tables.gross.peak - held, initial=0.0))
    if not ctx.scenario.server_types:
        servers = math.ceil(short / ctx.owned_per_server() - 1e-9)
        return Capacity(min(max(servers, 0), MAX_SERVERS), {}, use_spot=False)
    # a fleet: servers of the first type sold in month 1 (none when no type is)
    kind = next((k for k in ctx.fleet if k.can_buy(0)), None)
    if kind is None:
        return Capacity(0, {}, use_spot=False)
    servers = math.ceil(short / kind.per_server - 1e-9)
    return Capacity(0, {}, use_spot=False,
                    servers_by_type={kind.id: min(max(servers, 0), MAX_SERVERS)})


def proposed_capacity(s: Scenario) -> Optional[Capacity]:
    """The analyst's own servers and commitments, with spot for interruptible work.

    Parameters
    ----------
    s : Scenario
        The scenario (its ``proposed`` section).

    Returns
    -------
    Capacity or None
        None when the scenario proposes nothing static.
    """
    p = s.proposed
    if p.servers is None and not p.committed_gpus and not p.servers_by_type:
        return None
    return Capacity(p.servers or 0, dict(p.committed_gpus), use_spot=True,
                    servers_by_type=dict(p.servers_by_type))
