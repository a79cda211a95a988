"""What a plan state computes from its fields: capacity levels, volumes, cost lines, a result.

:class:`Costing` is the behaviour half of :class:`models.plan_state.PlanState`, the frozen record
of a plan's scenario, calendar, demand tables, price book, position, fleet and merit order. It
reads those fields and the record's one cache (``cache.volumes``, ``normal_tables()``) and sets
none: the record's fields are values, and whatever it computes again it finds in its cache.
Evaluating a strategy is one dispatch (models/dispatch.py) and one pass of the cost kernel
(models/costs.py).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Union

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.static_cohorts import static_plan
from models.costs import (cost_lines, discounted_by_month, net_by_month, present_value,
                          uses_cloud)
from models.dispatch import DemandTables, Volumes, dispatch
from models.prices import PriceBook
from models.strategy_result import StrategyResult, months_with_payments, volume_columns

__all__ = ["Costing"]


class Costing:
    """Capacity levels, volumes and costs of the strategies of one plan state.

    Mixed into :class:`models.plan_state.PlanState`, whose fields it reads: ``scenario``,
    ``calendar``, ``horizon``, ``demand``, ``tables``, ``tables_failure_waste``, ``spot_waste``,
    ``book``, ``position``, ``fleet``, ``merit``, ``useful_pv`` and ``cache``.
    """

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
        held = sum(self.owned_levels(self.position).values(), np.zeros(H))
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
            re-priced states share the demand (:class:`models.plan_state.PlanCache`).

        Notes
        -----
        :func:`models.dispatch.dispatch` of the committed level C(m) = c(m) theta_c and the owned
        level K(m) = n(m) w (a fleet: sum of :meth:`owned_levels`), spot share = spot availability
        when the plan uses spot else 0 [GPUs]; a fleet's owned work by :meth:`owned_by_type`.
        """
        s, H = self.scenario, self.horizon
        spot_share = s.spot.availability if plan.use_spot else 0.0
        by_type = self.owned_levels(plan)
        owned = sum(by_type.values(), np.zeros(H))
        committed = plan.committed_gpus(H) * s.on_demand.relative_throughput
        waste = (0.0, 0.0) if normal else (self.tables_failure_waste, self.spot_waste.fraction)
        key = (owned.tobytes(), committed.tobytes(), spot_share, waste,
               s.spot.availability)
        key += tuple(x.tobytes() for x in by_type.values())
        cached = self.cache.volumes.get(key)
        if cached is None:
            tables = self.normal_tables() if normal else self.tables
            cached = dispatch(tables, committed, owned, failure_waste=waste[0],
                              spot_waste=waste[1], spot_share=spot_share)
            cached = replace(cached, owned_by_type=self.owned_by_type(
                tables, committed, by_type))
            self.cache.volumes[key] = cached
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
            Prices to use; the state's own when None.

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
        lines = cost_lines(book, plan, volume_columns(v))
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
        theta_c = s.on_demand.relative_throughput
        online = plan.servers_online(H)
        kinds = {k.id: k.owned for k in self.fleet}
        by_type = plan.servers_online_by_type(H)
        by_type = {k: by_type.get(k, np.zeros(H)) for k in kinds}
        hours_by_type = {k: v.owned_by_type[k] / kinds[k].relative_throughput
                         for k in kinds}
        installed = sum((by_type[k] * kinds[k].gpus_per_server for k in kinds),
                        np.zeros(H)) * cal.hours
        installed_by_type = {k: float((by_type[k] * kinds[k].gpus_per_server) @ cal.hours)
                             for k in kinds}
        util_by_type = {k: float(hours_by_type[k].sum()) / installed_by_type[k]
                        if installed_by_type[k] > 0 else 0.0 for k in kinds}
        owned_hours = sum(hours_by_type.values(), np.zeros(H))
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
            uses_cloud=bool(uses_cloud(plan, volume_columns(v))[0]),
            servers_online_by_type=by_type, owned_gpu_hours_by_type=hours_by_type,
            owned_utilization_by_type=util_by_type)
