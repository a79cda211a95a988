"""The static strategies a plan compares beside the optimizer's: all on demand, buy for the peak,
and the analyst's proposal, each a :class:`models.capacity.Capacity` that
:meth:`models.plan_state.PlanState.evaluate` costs.
"""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from models.capacity import Capacity
from models.messages import Message, Money
from models.plan_state import PlanState
from models.scenario import Scenario
from models.scenario_types import MAX_SERVERS

__all__ = ["on_demand_capacity", "buy_for_peak_capacity", "proposed_capacity", "never_beaten"]


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


def never_beaten(ctx: PlanState, results: dict, name: str, rivals: tuple[str, ...]
                 ) -> Optional[Message]:
    """Keep the optimizer's static plan ``name`` at least as cheap as every rival priced.

    The static MILP optimizes the terms linear in the capacity; charges that are not (the
    share of data that moves to owned servers, a support minimum) are counted only when the
    plan is priced. Where a rival static plan then costs less, its capacity is the optimum.

    Parameters
    ----------
    ctx : PlanState
        State of the plan.
    results : dict of str to StrategyResult
        Strategies priced so far, by name; ``results[name]`` is replaced when beaten.
    name : str
        ``"optimal"`` or ``"cloud_only"``.
    rivals : tuple of str
        Names of static strategies it must not cost more than (those priced).

    Returns
    -------
    Message or None
        A note saying which plan's capacity was taken and by how much it was cheaper.

    Notes
    -----
    best = argmin over r in {name} + rivals with a static capacity of (round(PV_r, 6), capital
    outlay_r); when best != name and PV_name - PV_best > 1e-9 x max(1, |PV_name|), name is
    re-priced with best's capacity [currency].
    """
    mine = results[name]
    static = [r for r in rivals if r in results and results[r].capacity is not None]
    best = min([name] + static, key=lambda n: results[n].rank())
    gap = mine.pv_cost - results[best].pv_cost
    if best == name or gap <= 1e-9 * max(1.0, abs(mine.pv_cost)):
        return None
    results[name] = ctx.evaluate(name, results[best].capacity)
    return Message("The optimizer's {plan} plan cost {more} more than {other} once every "
                   "charge was counted (charges not linear in the capacity, such as data "
                   "transfer); the capacity of {other} is shown as {plan}.",
                   {"plan": name, "other": best,
                    "more": Money(gap, ctx.scenario.finance.currency)})
