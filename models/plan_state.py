"""The plan state as data: one frozen record of what every strategy of a plan shares.

:class:`PlanState` holds the scenario, the calendar, the demand and its sorted tables, the wastes of
interrupted work, the price book, the position, the fleet and its merit order, and the discount
factors, each a value set once. A what-if on the prices (:meth:`PlanState.repriced`) or on the
demand (:meth:`PlanState.with_demand`, :meth:`PlanState.scaled_demand`) is a new record; what a
record computes again and again (volumes, the optimizer's findings, the tables without failures)
is kept in its one :class:`PlanCache`, whose policy says what a new record shares with the record
it came from. The record's computations (levels, volumes, cost lines, a strategy's result) are in
models/state_costing.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from models.capacity import CapacityPlan
from models.static_cohorts import position_plan
from models.checkpoint import HOURS_PER_YEAR, Waste, waste_fraction
from models.dispatch import DemandTables, Volumes
from models.fleet import FleetType, fleet_types, merit_order
from models.prices import PriceBook
from models.profile import PlanCalendar, PlanDemand
from models.refusals import Refusal
from models.scenario import Scenario
from models.state_costing import Costing

__all__ = ["PlanCache", "PlanError", "PlanState", "failure_and_spot_waste",
           "interruptible_wastes"]


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


def interruptible_wastes(scenario: Scenario, demand: PlanDemand) -> tuple[Waste, Waste, float]:
    """The wastes of interrupted work a plan's capacity carries, or the refusal when failures
    alone leave gang jobs no useful time (one check and one message for a new state and a
    re-priced one).

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



@dataclass
class PlanCache:
    """What a plan state computes on demand and keeps, and what a new state shares of it.

    The policy, entry by entry (each is correct for a state only as long as what it depends on
    is the state's own):

    - ``volumes``: dispatch results by capacity levels, wastes, spot share and spot availability
      (the key), over the state's demand. They do not depend on the prices, so a re-priced state
      shares the same dictionary (what either finds, both find); a state with another demand
      starts empty.
    - ``optimizer``: the optimizer's findings (models/optimize.py, models/staged.py), which
      depend on the prices and the demand. A re-priced state with an equal scenario gets a copy of
      them (the robust plan's base path, issue 38), then keeps what it finds to itself; a state
      with another scenario or another demand starts empty.
    - ``normal_tables``: the demand's tables without failure overhead, built on first use. A
      re-priced state whose tables are its parent's takes them as they are when it is made; one
      whose failure waste moved (new tables), or one with another demand, builds its own.

    Parameters
    ----------
    volumes : dict, optional
        Volumes by dispatch key.
    optimizer : dict, optional
        The optimizer's findings by its keys.
    normal_tables : DemandTables, optional
        The tables without failure overhead, once built.
    """

    volumes: dict[tuple, Volumes] = field(default_factory=dict)
    optimizer: dict[object, object] = field(default_factory=dict)
    normal_tables: Optional[DemandTables] = None

    def for_repriced(self, same_scenario: bool, same_tables: bool) -> "PlanCache":
        """The cache of a re-priced state, by the policy above.

        Parameters
        ----------
        same_scenario : bool
            The new scenario equals the old one.
        same_tables : bool
            The new state keeps the old one's demand tables (the failure waste did not move).

        Returns
        -------
        PlanCache
            The shared volumes, a copy of the optimizer's findings or none, the normal tables or
            none.
        """
        return PlanCache(self.volumes, dict(self.optimizer) if same_scenario else {},
                         self.normal_tables if same_tables else None)


@dataclass(frozen=True, eq=False, repr=False)
class PlanState(Costing):
    """What every strategy of one plan shares, as frozen values (build with :meth:`build`).

    Parameters
    ----------
    scenario : Scenario
        The scenario.
    calendar : PlanCalendar
        The plan's months and their hours.
    demand : PlanDemand
        Hourly steady and interruptible demand [GPUs].
    failure_waste : Waste
        Waste of interruptible gang work from hardware failures alone.
    spot_waste : Waste
        Waste of interruptible gang work on spot (reclaims and failures).
    tables_failure_waste : float
        The failure share the demand tables carry: the failure waste's fraction when the demand
        has interruptible work, else 0 [fraction].
    tables : DemandTables
        The demand sorted by month, with that failure share.
    book : PriceBook
        Every price month by month, the billing and discount factors.
    position : CapacityPlan
        The servers and commitments held at the plan's start.
    fleet : tuple of FleetType
        The server types the plan may hold (one, ``owned``, for a scenario without
        ``server_types``: :meth:`models.scenario.Scenario.as_fleet`).
    merit : tuple of int
        Indices into ``fleet``, the first to take work first.
    end_factors : numpy.ndarray
        Discount factors at each month's end, read-only [-, (months,)].
    useful_pv : float
        Useful GPU-hours discounted [GPU-hours].
    cache : PlanCache
        What the state computes and keeps (the only part that changes; see its policy).

    Notes
    -----
    Two states are equal only when they are the same object: the fields hold arrays.
    """

    scenario: Scenario
    calendar: PlanCalendar
    demand: PlanDemand
    failure_waste: Waste
    spot_waste: Waste
    tables_failure_waste: float
    tables: DemandTables
    book: PriceBook
    position: CapacityPlan
    fleet: tuple[FleetType, ...]
    merit: tuple[int, ...]
    end_factors: np.ndarray
    useful_pv: float
    cache: PlanCache = field(default_factory=PlanCache, repr=False)

    @classmethod
    def build(cls, scenario: Scenario, calendar: PlanCalendar, demand: PlanDemand
              ) -> "PlanState":
        """The state of a scenario over a demand, with an empty cache.

        Parameters
        ----------
        scenario : Scenario
            The scenario.
        calendar : PlanCalendar
            The plan's months.
        demand : PlanDemand
            Hourly demand over the plan [GPUs].

        Returns
        -------
        PlanState
            The state: wastes, sorted tables, price book, position, fleet and merit order.

        Raises
        ------
        PlanError
            Hardware failures alone leave interruptible gang jobs no useful time.

        Notes
        -----
        Wastes of :func:`interruptible_wastes`; tables of
        :meth:`models.dispatch.DemandTables.build` (demand, calendar, w); position of
        :func:`models.capacity.position_plan`; useful PV = sum_m useful_m x d_m, d_m the
        discount factor at month m's end [GPU-hours].
        """
        scenario = scenario.as_fleet()
        failure, spot, waste = interruptible_wastes(scenario, demand)
        book = PriceBook(scenario, calendar)
        horizon = len(calendar.hours)
        return cls._priced(scenario, calendar, demand, failure, spot, waste,
                           DemandTables.build(demand, calendar, waste), book,
                           position_plan(scenario, calendar.months[0], horizon, book.vat),
                           PlanCache())

    @classmethod
    def _priced(cls, scenario: Scenario, calendar: PlanCalendar, demand: PlanDemand,
                failure: Waste, spot: Waste, waste: float, tables: DemandTables,
                book: PriceBook, position: CapacityPlan, cache: PlanCache) -> "PlanState":
        """A state whose fleet, merit order, factors and useful PV follow from its price book."""
        horizon = len(calendar.hours)
        fleet = fleet_types(scenario, calendar.months[0])
        end = book.end[:horizon, 0]
        end.flags.writeable = False     # a view of the book's factors, read through the record
        return cls(scenario, calendar, demand, failure, spot, waste, tables, book, position,
                   fleet, merit_order(book, fleet, horizon), end,
                   float(tables.useful_by_month @ end), cache)

    def __repr__(self) -> str:
        # the fields hold the hourly demand and the price book: name the plan, not every value
        return (f"PlanState({self.scenario.name!r}, {self.calendar.months[0]} + "
                f"{self.horizon} months, {len(self.fleet)} server type(s))")

    @property
    def horizon(self) -> int:
        """Months of the plan [months].

        Notes
        -----
        H = the calendar's months [months].
        """
        return len(self.calendar.hours)

    def repriced(self, scenario: Scenario) -> "PlanState":
        """The same demand with another scenario (a what-if on anything but the profile section).

        Parameters
        ----------
        scenario : Scenario
            The changed scenario; its ``profile`` section must be the same.

        Returns
        -------
        PlanState
            A new state: prices are rebuilt; the sorted demand only if the failure waste moved;
            the position is this state's; the cache by :meth:`PlanCache.for_repriced`.

        Raises
        ------
        PlanError
            Hardware failures alone leave interruptible gang jobs no useful time.

        Notes
        -----
        New prices; wastes of :func:`interruptible_wastes`; useful PV = sum_m useful_m x d_m, d_m
        the new discount factor at month m's end [GPU-hours]; the merit order of
        :func:`models.fleet.merit_order`.
        """
        scenario = scenario.as_fleet()
        failure, spot, waste = interruptible_wastes(scenario, self.demand)
        same_tables = waste == self.tables_failure_waste
        tables = (self.tables if same_tables else
                  DemandTables.build(self.demand, self.calendar, waste))
        return self._priced(scenario, self.calendar, self.demand, failure, spot, waste, tables,
                            PriceBook(scenario, self.calendar), self.position,
                            self.cache.for_repriced(scenario == self.scenario, same_tables))

    def with_demand(self, demand: PlanDemand) -> "PlanState":
        """The same prices with another demand (breakevens on a flat profile).

        Parameters
        ----------
        demand : PlanDemand
            Hourly demand over the plan [GPUs].

        Returns
        -------
        PlanState
            A new state with the demand's sorted tables and an empty cache.

        Notes
        -----
        Tables of :meth:`models.dispatch.DemandTables.build` (demand, calendar, w), w = the failure
        waste when the demand has interruptible work, else 0 [fraction].
        """
        has_interruptible = demand.interruptible.sum() > 0
        waste = self.failure_waste.fraction if has_interruptible else 0.0
        return self._redemanded(demand, DemandTables.build(demand, self.calendar, waste), waste)

    def scaled_demand(self, factor: float) -> "PlanState":
        """The same prices with every hour's demand multiplied by a factor (breakevens on a
        flat profile at many levels: the sorted tables are scaled, not rebuilt).

        Parameters
        ----------
        factor : float
            Multiplier of every hour's demand, >= 0 [-].

        Returns
        -------
        PlanState
            A new state for the scaled demand, with an empty cache.

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
                    tables_failure_waste: float) -> "PlanState":
        """The same prices and another demand, its tables given; an empty cache, since every
        entry depends on the demand."""
        return replace(self, demand=demand, tables=tables,
                       tables_failure_waste=tables_failure_waste,
                       useful_pv=float(tables.useful_by_month @ self.end_factors),
                       cache=PlanCache())

    def normal_tables(self) -> DemandTables:
        """Sorted demand as if nothing failed (no failure overhead on interruptible work).

        Returns
        -------
        DemandTables
            The tables, built once and kept in the cache.

        Notes
        -----
        The tables of :meth:`models.dispatch.DemandTables.build` with failure waste w_f = 0 (gross =
        steady + interruptible).
        """
        if self.cache.normal_tables is None:
            self.cache.normal_tables = (self.tables if self.tables_failure_waste == 0 else
                                        DemandTables.build(self.demand, self.calendar, 0.0))
        return self.cache.normal_tables
