"""The static strategies a plan compares beside the optimizer's: all on demand, buy for the peak,
and the analyst's proposal, each a :class:`models.capacity.Capacity` that
:meth:`models.plan_state.PlanState.evaluate` costs.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from models.capacity import Capacity
from models.plan_state import PlanState
from models.scenario import Scenario
from models.scenario_types import MAX_SERVERS

__all__ = ["on_demand_capacity", "buy_for_peak_capacity", "proposed_capacity"]


def on_demand_capacity() -> Capacity:
    """Everything on demand: the baseline.

    Returns
    -------
    Capacity
        No servers, no commitments, no spot.
    """
    return Capacity(0, {}, use_spot=False)


def buy_for_peak_capacity(ctx: PlanState) -> Capacity:
    """Enough new servers for the peak hour above what the position holds that month.

    Parameters
    ----------
    ctx : PlanState
        State of the plan (peak demand, position).

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
    # servers of the first type sold in month 1 (none when no type is)
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
