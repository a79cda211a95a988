"""A staged solve's result, and a MILP solution read as a schedule or a static decision
(issue 14; server types, issue 26)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.capacity import Capacity, CapacityPlan
from models.plan_state import PlanState
from models.scenario_schedule import Decision
from models.staged_problem import Problem


@dataclass
class StagedResult:
    """A staged solve: the schedule (or a fleet's static decision), its PV and its proof."""

    decisions: tuple[Decision, ...]
    plan: CapacityPlan
    objective: float           # PV of the proven optimum [currency]
    rounds: int                # cutting-plane rounds
    cuts: int
    use_spot: bool
    notes: list[str] = field(default_factory=list)
    gap: float = 0.0           # proven distance to the optimum [currency]; 0: optimal
    limited: bool = False      # stopped at its work limit with the best schedule found
    capacity: Optional[Capacity] = None   # the decision of a static fleet problem
    values: dict = field(default_factory=dict)   # decision column -> its value in the optimum
    # the last MILP's solution, every variable (the robust plan stacks the paths' solutions)
    solution: Optional[np.ndarray] = field(default=None, repr=False)


def to_decisions(ctx: PlanState, prob: Problem, x: np.ndarray) -> tuple[Decision, ...]:
    """A MILP solution as a schedule.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (first month, offers, position).
    prob : Problem
        The MILP's parts (what each variable is).
    x : numpy.ndarray
        The solution.

    Returns
    -------
    tuple of models.scenario_schedule.Decision
        One decision per month with any: servers bought and sold (with ``sell_from``) [servers]
        and GPUs signed per offer [GPUs]; with server types, purchases and sales per type
        (``buy``, ``sell``) and ``sell_from`` keyed ``type:YYYY-MM``.

    Notes
    -----
    In month d: buy_t = x(buy[t, d]), commit_o = block_o x x(commit[o, d]) [GPUs],
    sell_t = sum over cohorts c of type t of x(sell[from, c, d]); columns below 0.5 are none.
    """
    first = np.datetime64(ctx.calendar.months[0], "M")
    blocks = {o.id: o.block_gpus for o in ctx.scenario.commitments}
    by_month: dict[int, dict] = {}
    for block in prob.cols:            # in column order: buy, commit, sell
        if block.name not in ("buy", "commit", "sell"):
            continue
        for key in block:
            j = block[key]
            if x[j] < 0.5:
                continue
            d = key[-1]
            entry = by_month.setdefault(d, {"buy": {}, "sell": {}, "from": {}, "commit": {}})
            count = int(x[j])
            if block.name == "buy":
                entry["buy"][key[0]] = entry["buy"].get(key[0], 0) + count
            elif block.name == "commit":
                entry["commit"][key[0]] = entry["commit"].get(key[0], 0) + count * blocks[key[0]]
            else:
                source, cohort_key, _ = key
                if source == "held":
                    held = ctx.position.servers[cohort_key]
                    cohort, type_id = held.bought, held.type
                else:
                    type_id, cohort = cohort_key
                label = f"{type_id}:{first + cohort}"
                entry["sell"][type_id] = entry["sell"].get(type_id, 0) + count
                entry["from"][label] = entry["from"].get(label, 0) + count
    return tuple(Decision(month=str(first + d), buy=e["buy"], sell=e["sell"],
                          sell_from=e["from"], commit=e["commit"])
                 for d, e in sorted(by_month.items()))


def to_capacity(ctx: PlanState, prob: Problem, x: np.ndarray, use_spot: bool) -> Capacity:
    """A solution of the static problem of a fleet as a static decision.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (offers).
    prob : Problem
        The static MILP's parts.
    x : numpy.ndarray
        The solution.
    use_spot : bool
        Whether the decision sends interruptible overflow to spot.

    Returns
    -------
    Capacity
        Servers per type and committed GPUs per offer [servers, GPUs].

    Notes
    -----
    n_t = x(chain[t]) servers of type t; committed_o = block_o x x(renew[o]) GPUs of offer o;
    none where below 0.5.
    """
    blocks = {o.id: o.block_gpus for o in ctx.scenario.commitments}
    chain, renew = prob.cols["chain"], prob.cols["renew"]
    servers = {t: int(x[chain[t]]) for (t,) in chain if x[chain[t]] >= 0.5}
    committed = {o: int(x[renew[o]]) * blocks[o] for (o,) in renew if x[renew[o]] >= 0.5}
    return Capacity(0, committed, use_spot, servers_by_type=servers)
