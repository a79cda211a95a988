"""PV cost of fixed capacities over many draws of the assumptions, through the cost kernel.

The decision is made today, so capacities stay fixed and only the assumptions move. Each chunk
of draws gets its own price book (models/prices.py, one value of every priced assumption per
draw) and its own dispatch (models/draw_dispatch.py); the cost kernel (models/costs.py) then
prices every draw with the very rules of the plan. Draws are costed in chunks so that the
arrays stay small whatever the number of draws.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from models.capacity import CapacityPlan
from models.costs import cost_lines, present_value
from models.assumptions import TYPE_SEP
from models.draw_dispatch import draw_demand, draw_slice, draw_volumes, fleet_level_sums
from models.fleet_draws import fleet_draws
from models.plan_state import PlanState
from models.prices import PRICED, PriceBook

CHUNK = 500   # draws priced together: (months x CHUNK) arrays stay in the CPU cache
# draws dispatched together: each month's capacity levels are searched in sorted order, which
# pays once a month holds a few thousand of them (models/draw_dispatch.py MergedTable)
SEARCH_CHUNK = 5_000


def draw_pvs(ctx: PlanState, values: Mapping[str, np.ndarray],
             plans: Mapping[str, CapacityPlan], chunk: int = CHUNK) -> dict[str, np.ndarray]:
    """PV cost of each set of cohorts in each draw of the assumptions.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (base scenario, calendar, demand).
    values : Mapping of str to numpy.ndarray
        Every assumption's value in each draw [the assumption's unit, (n,)], as
        :func:`models.assumption_sampling.sample` gives them.
    plans : Mapping of str to CapacityPlan
        The fixed capacities to price, by name.
    chunk : int, default CHUNK
        Draws priced together.

    Returns
    -------
    dict of str to numpy.ndarray
        Name to PV cost in each draw, costs minus credits [currency, (n,)].

    Notes
    -----
    PV_i = :func:`models.costs.present_value` of :func:`models.costs.cost_lines` of each plan in
    draw i, with the draw's prices (:class:`models.prices.PriceBook`) and volumes from
    :func:`models.draw_dispatch.draw_volumes` [currency].
    """
    n = len(next(iter(values.values())))
    # priced in failure-stratum order (each stratum's sorted tables then answer one block of
    # draws, models/draw_dispatch.py), returned in the order drawn: every draw is priced alone
    order = np.argsort(values["failure_rate"], kind="stable")
    values = {key: np.asarray(v)[order] for key, v in values.items()}
    priced = {name: np.empty(n) for name in plans}
    demand = draw_demand(ctx, values)
    fleet = fleet_draws(ctx, values)
    for start in range(0, n, SEARCH_CHUNK):
        block = slice(start, min(start + SEARCH_CHUNK, n))
        sums = fleet_level_sums(ctx, draw_slice(demand, block), plans, fleet.part(block))
        for lo in range(block.start, block.stop, chunk):
            part = slice(lo, min(lo + chunk, block.stop))
            inner = slice(part.start - block.start, part.stop - block.start)
            book = PriceBook(ctx.scenario, ctx.calendar,
                             {k: np.asarray(v)[part] for k, v in values.items()
                              if k in PRICED or TYPE_SEP in k})
            volumes = draw_volumes(ctx, draw_slice(demand, part), plans,
                                   {name: tuple(a[..., inner] for a in arrays)
                                    for name, arrays in sums.items()})
            for name, plan in plans.items():
                priced[name][part] = present_value(book, cost_lines(book, plan, volumes[name]))
    out = {name: np.empty(n) for name in plans}
    for name, pv in priced.items():
        out[name][order] = pv
    return out
