"""What "servers" means on a plan's cards, in the CLI table and on the workbook's Summary
(issue 37, item 5): the servers a strategy BUYS, with the servers HELD at the plan's start
(the position, the same in every strategy) said beside them. One meaning everywhere; before,
the page and the CLI counted the servers bought by a static strategy and the most online of
a schedule, the workbook the most online (held ones included) of every strategy."""
from __future__ import annotations

from collections import Counter
from typing import Union

from models.fleet import default_type
from models.plan_state import PlanState
from models.scenario import Scenario
from models.strategy_result import StrategyResult

Count = Union[int, dict[str, int]]


def _shaped(s: Scenario, counts: Counter) -> Count:
    """A count, or counts per type id of every server type when the scenario has types."""
    return {t.id: int(counts.get(t.id, 0)) for t in s.server_types}


def servers_held(ctx: PlanState) -> Count:
    """Servers the position holds at the plan's start.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (its position).

    Returns
    -------
    int or dict of str to int
        Servers held [servers]; by type id when the scenario has server types.

    Notes
    -----
    Every row of ``position.servers`` not retired before the first month (useful life ended),
    summed: held = sum of the counts of the position's cohorts
    (models.static_cohorts.position_plan).
    """
    counts: Counter = Counter()
    for c in ctx.position.servers:
        counts[c.type or default_type(ctx.scenario)] += c.count
    return _shaped(ctx.scenario, counts)


def servers_bought(s: Scenario, r: StrategyResult) -> Count:
    """Servers a strategy buys over the horizon (the held ones not counted).

    Parameters
    ----------
    s : Scenario
        The scenario (its server types).
    r : StrategyResult
        A static strategy (its capacity) or a schedule (its decisions).

    Returns
    -------
    int or dict of str to int
        Servers bought [servers]; by type id when the scenario has server types.

    Notes
    -----
    Static: n = the capacity's servers (per type). A schedule: n_type = sum_d buy_d[type], with the
    one-type shorthand ``buy_servers`` counted for the first type [servers].
    """
    counts: Counter = Counter()
    if r.capacity is not None:
        counts.update({k: int(n) for k, n in r.capacity.counts(s).items()})
        return _shaped(s, counts)
    for d in r.schedule:
        if d.buy_servers:
            counts[default_type(s)] += d.buy_servers
        for type_id, n in d.buy.items():
            counts[type_id] += n
    return _shaped(s, counts)


def total(count: Count) -> int:
    """All servers of a count, whatever their type.

    Parameters
    ----------
    count : int or dict
        Servers, or servers per type id [servers].

    Returns
    -------
    int
        Their sum over types [servers].

    Notes
    -----
    n = sum_type count[type] [servers]; a plain count is itself.
    """
    return sum(count.values()) if isinstance(count, dict) else int(count)
