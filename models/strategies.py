"""Strategies: a capacity choice (servers, committed GPUs, spot or not) costed month by month.

``PlanContext`` holds everything that depends only on the scenario and the profile (calendar,
sorted demand, unit prices, discount factors, spot and failure waste); evaluating a strategy is
then one dispatch and a few array products.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.checkpoint import HOURS_PER_YEAR, Waste, waste_fraction
from models.costs import (COST_LINES, CREDIT_LINES, START_OF_MONTH_LINES, UnitCosts,
                          strategy_lines)
from models.dispatch import DemandTables, Volumes, dispatch
from models.finance import end_of_month_factors, start_of_month_factors
from models.profile import PlanCalendar, PlanDemand
from models.scenario import Scenario


class PlanError(ValueError):
    """A scenario and profile that cannot be planned."""


@dataclass(frozen=True)
class Capacity:
    servers: int = 0
    committed: dict[str, int] = field(default_factory=dict)
    use_spot: bool = True


def failure_and_spot_waste(s: Scenario) -> tuple[Waste, Waste]:
    """Waste of interruptible gang work from hardware failures, and on spot (design 4.4)."""
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
    name: str
    capacity: Capacity
    volumes: Volumes
    lines: dict[str, np.ndarray]
    total_by_month: np.ndarray
    discounted_by_month: np.ndarray
    pv_cost: float
    total_cost: float
    cost_per_useful_gpu_hour: float
    owned_utilization: Optional[float]
    owned_gpu_hours_by_month: np.ndarray
    committed_gpu_hours_by_month: np.ndarray
    spot_gpu_hours_by_month: np.ndarray
    on_demand_gpu_hours_by_month: np.ndarray
    utilization_by_month: np.ndarray
    servers_online: np.ndarray

    @property
    def cumulative(self) -> np.ndarray:
        return np.cumsum(self.total_by_month)

    @property
    def discounted_cumulative(self) -> np.ndarray:
        return np.cumsum(self.discounted_by_month)

    def uses_cloud(self) -> bool:
        return bool(sum(self.capacity.committed.values()) or self.spot_gpu_hours_by_month.sum()
                    or self.on_demand_gpu_hours_by_month.sum() > 1e-9)


class PlanContext:
    """Scenario-and-profile-dependent state shared by every strategy of one plan."""

    def __init__(self, scenario: Scenario, calendar: PlanCalendar, demand: PlanDemand):
        self.scenario, self.calendar, self.demand = scenario, calendar, demand
        self.failure_waste, self.spot_waste = failure_and_spot_waste(scenario)
        if demand.interruptible.sum() > 0 and not self.failure_waste.feasible:
            raise PlanError(
                f"interruptible gang jobs of {scenario.spot.nodes_per_job} nodes cannot finish: "
                f"hardware failures alone waste {self.failure_waste.fraction:.0%} of their time "
                "(owned.failures_per_server_year, spot.nodes_per_job)")
        # the failure overhead that owned, committed and on-demand capacity carry
        self.tables_failure_waste = (self.failure_waste.fraction
                                     if demand.interruptible.sum() > 0 else 0.0)
        self.tables = DemandTables.build(demand, calendar, self.tables_failure_waste)
        self.units = UnitCosts(scenario, calendar)
        months, r = len(calendar.hours), scenario.finance.discount_rate_annual
        self.end_factors = end_of_month_factors(months, r)
        self.start_factors = start_of_month_factors(months, r)
        self.useful_pv = float(self.tables.useful_by_month @ self.end_factors)
        self.volume_cache: dict[tuple, Volumes] = {}   # shared by re-priced contexts
        self.optimizer_cache: dict[str, object] = {}   # prices matter here: never shared

    def repriced(self, scenario: Scenario) -> "PlanContext":
        """The same demand and dispatch with other prices (a what-if on price fields only)."""
        new = object.__new__(PlanContext)
        new.__dict__.update(self.__dict__)
        new.scenario = scenario
        new.units = UnitCosts(scenario, self.calendar)
        new.optimizer_cache = {}
        return new

    # capacities in demand units (GPUs of the measured type) by month
    def owned_capacity(self, servers: int | np.ndarray) -> np.ndarray:
        o = self.scenario.owned
        per_server = o.gpus_per_server * o.availability * o.relative_throughput
        return np.multiply.outer(self.units.server.online, np.asarray(servers) * per_server)

    def committed_capacity(self, committed_gpus: float | np.ndarray) -> np.ndarray:
        months = len(self.calendar.hours)
        theta = self.scenario.on_demand.relative_throughput
        return np.multiply.outer(np.ones(months), np.asarray(committed_gpus) * theta)

    def volumes(self, capacity: Capacity) -> Volumes:
        """Monthly volumes of a capacity; cached, since re-priced contexts share the demand."""
        spot_share = self.scenario.spot.availability if capacity.use_spot else 0.0
        o = self.scenario.owned
        key = (capacity.servers, sum(capacity.committed.values()), spot_share,
               self.tables_failure_waste, self.spot_waste.fraction, o.gpus_per_server,
               o.availability, o.relative_throughput, o.lead_time_months,
               self.scenario.on_demand.relative_throughput)
        cached = self.volume_cache.get(key)
        if cached is None:
            cached = self.volume_cache[key] = self._dispatch(capacity, spot_share)
        return cached

    def _dispatch(self, capacity: Capacity, spot_share: float) -> Volumes:
        return dispatch(self.tables, self.committed_capacity(sum(capacity.committed.values())),
                        self.owned_capacity(capacity.servers),
                        failure_waste=self.tables_failure_waste,
                        spot_waste=self.spot_waste.fraction, spot_share=spot_share)

    def evaluate(self, name: str, capacity: Capacity) -> StrategyResult:
        s, cal = self.scenario, self.calendar
        v = self.volumes(capacity)
        lines = strategy_lines(self.units, capacity.servers, capacity.committed, v)
        costs = sum(lines[n] for n in COST_LINES)
        credits = sum(lines[n] for n in CREDIT_LINES)
        total = costs - credits
        discounted = sum(lines[n] * (self.start_factors if n in START_OF_MONTH_LINES
                                     else self.end_factors) for n in COST_LINES)
        discounted = discounted - credits * self.end_factors
        o = s.owned
        theta_o, theta_c = o.relative_throughput, s.on_demand.relative_throughput
        online = capacity.servers * self.units.server.online
        installed = online * o.gpus_per_server * cal.hours
        owned_hours = v.owned / theta_o
        util = np.divide(owned_hours, installed, out=np.zeros_like(installed),
                         where=installed > 0)
        pv = float(discounted.sum())
        return StrategyResult(
            name=name, capacity=capacity, volumes=v, lines=lines, total_by_month=total,
            discounted_by_month=discounted, pv_cost=pv, total_cost=float(total.sum()),
            cost_per_useful_gpu_hour=pv / self.useful_pv if self.useful_pv > 0 else math.nan,
            owned_utilization=(float(owned_hours.sum() / installed.sum())
                               if installed.sum() > 0 else None),
            owned_gpu_hours_by_month=owned_hours,
            committed_gpu_hours_by_month=v.committed / theta_c,
            spot_gpu_hours_by_month=v.spot / theta_c,
            on_demand_gpu_hours_by_month=v.on_demand / theta_c,
            utilization_by_month=util, servers_online=online)


def on_demand_capacity() -> Capacity:
    """Everything on demand: the baseline."""
    return Capacity(0, {}, use_spot=False)


def buy_for_peak_capacity(ctx: PlanContext) -> Capacity:
    """ceil(peak GPUs / (GPUs per server x availability)); shortfalls on demand."""
    o = ctx.scenario.owned
    peak = ctx.tables.peak_gross_gpus / o.relative_throughput
    servers = math.ceil(peak / (o.gpus_per_server * o.availability) - 1e-9)
    return Capacity(max(servers, 0), {}, use_spot=False)


def proposed_capacity(s: Scenario) -> Optional[Capacity]:
    """The analyst's own servers and commitments, with spot for interruptible work."""
    p = s.proposed
    if p.servers is None and not p.committed_gpus:
        return None
    return Capacity(p.servers or 0, dict(p.committed_gpus), use_spot=True)
