"""A fleet's dispatch over many draws (issue 26): each type's capacity and merit order per draw.

In a draw, a server type's work an hour per online server is its GPUs x availability x
relative throughput, with the draw's availability where the type does not set its own and the
draw of the type's own throughput (models/assumptions.py PER_TYPE). Owned types take work in
merit order (models/fleet.py): least PV of busy energy per unit of work first, which a draw of
the electricity price, PUE, discount rate or a throughput can reorder, so the order is taken
per draw. Each type's work is then the gross demand between the cumulative levels of the types
before it and its own, as the engine's :meth:`models.plan_state.PlanState.owned_by_type`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from models.assumptions import TYPE_SEP
from models.capacity import CapacityPlan
from models.plan_state import PlanState
from models.prices import PRICED, PriceBook


@dataclass
class FleetDraws:
    """Each type's work per online server and the merit order, by draw."""

    per_server: np.ndarray    # (types, n): work an hour per online server [reference GPUs]
    order: np.ndarray         # (types, n): indices into ctx.fleet, first to take work first

    def part(self, draws: slice) -> "FleetDraws":
        """Some of the draws.

        Parameters
        ----------
        draws : slice
            The draws to keep.

        Returns
        -------
        FleetDraws
            Those draws.
        """
        return FleetDraws(self.per_server[:, draws], self.order[:, draws])


def fleet_draws(ctx: PlanState, values: Mapping[str, np.ndarray]) -> FleetDraws:
    """Each server type's capacity per server and the merit order in every draw.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    values : Mapping of str to numpy.ndarray
        Every assumption's value in each draw [the assumption's unit, (n,)], the types' own
        (``relative_throughput@b200``) included.

    Returns
    -------
    FleetDraws
        Per type and draw.

    Notes
    -----
    For type i and draw j: per_server[i, j] = G_i x a_j x t_ij (a_j the drawn availability unless
    the type sets its own), and order[:, j] = argsort_i e_ij (stable), e_ij = sum_{m<H}
    E_ij(m) f(m) / t_ij as :func:`models.fleet.merit_order`.
    """
    n = len(np.asarray(values["availability"]))
    book = PriceBook(ctx.scenario, ctx.calendar,
                     {k: v for k, v in values.items() if k in PRICED or TYPE_SEP in k})
    H = ctx.horizon
    given = {t.id: t for t in ctx.scenario.server_types}
    per_server, energy = [], []
    for kind in ctx.fleet:
        o = kind.owned
        availability = (np.asarray(values["availability"], float)
                        if given[kind.id].availability is None else np.full(n, o.availability))
        b = book.for_type(kind.id)
        throughput = np.broadcast_to(np.asarray(b.throughput, float), (n,))
        per_server.append(o.gpus_per_server * availability * throughput)
        # the PV of a busy GPU-hour's energy per unit of work, as models/fleet.merit_order
        busy = np.broadcast_to(b.energy_busy[:H], (H, n))
        energy.append((busy * book.end[:H]).sum(axis=0) / throughput)
    # stable: equal energy keeps the scenario's order, as merit_order's (busy, index) key
    order = np.argsort(np.stack(energy), axis=0, kind="stable")
    return FleetDraws(np.stack(per_server), order)


def fleet_levels(ctx: PlanState, plan: CapacityPlan, fd: FleetDraws) -> np.ndarray:
    """The committed level and the cumulative level after each type in each draw's order.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (fleet, on-demand throughput).
    plan : CapacityPlan
        Cohorts of one strategy.
    fd : FleetDraws
        The draws' capacities and orders.

    Returns
    -------
    numpy.ndarray
        Level 0 committed, level k after the k-th type of the draw's merit order [GPUs of
        the reference type, (months, types + 1, n)].

    Notes
    -----
    L_0(m, j) = c(m) x t_od, c the committed GPUs, t_od the on-demand relative throughput;
    L_k(m, j) = L_0(m, j) + sum_{r<=k} n_{o_r}(m) x per_server[o_r, j], o_r the r-th type of draw
    j's merit order, n the servers online [GPUs of the reference type].
    """
    H, n = ctx.horizon, fd.order.shape[1]
    committed = np.broadcast_to(
        (plan.committed_gpus(H) * ctx.scenario.on_demand.relative_throughput)[:, None], (H, n))
    online = plan.servers_online_by_type(H)
    caps = np.stack([np.outer(online.get(k.id, np.zeros(H)), fd.per_server[i])
                     for i, k in enumerate(ctx.fleet)])                    # (types, H, n)
    ordered = np.take_along_axis(caps, fd.order[:, None, :], axis=0)
    levels = np.concatenate([committed[None], committed[None] + np.cumsum(ordered, axis=0)])
    return levels.transpose(1, 0, 2)


def work_by_type(served: np.ndarray, fd: FleetDraws) -> np.ndarray:
    """Each type's owned work from the sum-mins of the cumulative levels.

    Parameters
    ----------
    served : numpy.ndarray
        sum min(gross demand, level) of each level of :func:`fleet_levels` [GPU-hours,
        (months, types + 1, n)].
    fd : FleetDraws
        The draws' merit orders.

    Returns
    -------
    numpy.ndarray
        Work of each type, in the fleet's order [GPU-hours of the reference type,
        (types, months, n)].

    Notes
    -----
    W_{o_k}(m, j) = A_k(m, j) - A_{k-1}(m, j), A_k the sum-min at the level after the k-th type of
    draw j's order (``served``), o_k that type [GPU-hours of the reference type].
    """
    by_rank = np.diff(served, axis=1).transpose(1, 0, 2)          # (types, H, n), k-th in order
    out = np.empty_like(by_rank)
    np.put_along_axis(out, np.broadcast_to(fd.order[:, None, :], by_rank.shape), by_rank, axis=0)
    return out
