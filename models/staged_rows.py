"""The staged MILP's limit and sale rows (issue 14), as named row blocks (issue 36).

``budget[year]``: purchases and upfront payments per calendar year within
``staging.capital_budget_per_year``; ``servers[month]`` and ``power[month]``: servers online,
and their power at maximum draw x PUE, within the hall's ``staging.max_servers`` and
``staging.max_power_kw``; ``sale[from, cohort]``: no cohort sells more servers than it has.
models/staged_problem.py declares them after the columns, then its level rows.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.milp_block import Block
from models.milp_index import Index
from models.milp_rows import Rows
from models.plan_state import PlanState
from models.staged_hull import hull_rows


def unit_rows(block: Block, n: int) -> sp.csr_matrix:
    """One row per column of a block, with a 1 in that column.

    Parameters
    ----------
    block : models.milp_block.Block
        The columns.
    n : int
        Columns of the MILP.

    Returns
    -------
    scipy.sparse.csr_matrix
        (block size, n): row i is the unit vector of the block's i-th column.

    Notes
    -----
    .. math:: U_{i, start + i} = 1, \\quad 0 \\text{ elsewhere}
    """
    size = block.size
    return sp.csr_matrix((np.ones(size), (np.arange(size), np.arange(block.start, block.stop))),
                         shape=(size, n))


def limit_rows(ctx: PlanState, rows: Rows, cols: Index, paid: np.ndarray, owned: dict,
               hull: Optional[Rows] = None) -> None:
    """The capital budget per calendar year and the hall limits as constraint rows.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (``staging`` limits).
    rows : models.milp_rows.Rows
        The rows, to which ``budget[year]``, ``servers[month]`` and ``power[month]`` are
        added (each where its limit is set).
    cols : models.milp_index.Index
        The columns (the ``buy`` and ``commit`` blocks are read).
    paid : numpy.ndarray
        Purchase or upfront cash per unit of each variable [currency, (nvars,)].
    owned : dict
        Type id (None without server types) to owned capacity by month per variable [GPUs
        of the reference type, (months, nvars)].
    hull : models.milp_rows.Rows, optional
        Where ``budget_hull[facet]`` and ``power_hull[facet]`` go, the integer-hull facets of
        those rows (models/staged_hull.py); ``rows`` when not given. Kept apart so that, like
        the tangents, they are rows added on top of the counted ones (models/problem_size.py).

    Notes
    -----
    .. math:: \\sum_{j \\in \\text{year } y} paid_j x_j \\le B, \\quad
              \\sum_t (O_t x)_m w_t / g_t \\le N_{max} - \\sum_t n_{t,m} w_t

    with B ``capital_budget_per_year`` [currency], O_t the owned capacity of type t per
    variable, g_t its work per server, n_{t,m} the position's servers online and w_t 1 for
    ``max_servers`` [servers] or ``power_kw_max`` x ``pue`` for ``max_power_kw`` [kW].
    """
    s, H = ctx.scenario, ctx.horizon
    n = len(cols)
    budget = s.staging.capital_budget_per_year
    if budget is not None:
        years: dict[int, np.ndarray] = {}
        first = np.datetime64(ctx.calendar.months[0], "M")
        for name in ("buy", "commit"):
            block = cols[name]
            for key in block:
                j = block[key]
                if paid[j] > 0:
                    year = int(str(first + key[-1])[:4])
                    years.setdefault(year, np.zeros(n))[j] = paid[j]
        coef = np.array(list(years.values())).reshape(len(years), n)
        rows.add("budget", coef, -np.inf, budget, keys=list(years), axes=("year",))
        # the year's purchases by price paid, each price a group of whole units
        prices = sorted({round(float(v), 2) for v in coef[coef > 0]})
        units = [sp.csr_matrix(np.isclose(coef, p, rtol=0, atol=0.005).astype(float))
                 for p in prices]
        facets, hi = hull_rows(units, prices, np.full(len(years), float(budget)),
                             [np.zeros(len(years))] * len(prices))
        if facets.shape[0]:
            (rows if hull is None else hull).add("budget_hull", facets, -np.inf, hi,
                                                 keys=list(range(facets.shape[0])),
                                                 axes=("facet",))
    kinds = {k.id: k for k in ctx.fleet}
    held = ctx.position.servers_online_by_type(H)
    for name, limit, weight in (
            ("servers", s.staging.max_servers, lambda k: 1.0),
            ("power", s.staging.max_power_kw, lambda k: k.owned.power_kw_max * k.owned.pue)):
        if limit is None:
            continue
        # servers online by month, per variable, weighted (1, or kW each)
        coef = sum((owned[t] * (weight(kinds[t]) / kinds[t].per_server) for t in owned),
                   sp.csr_matrix((H, n)))
        before = sum((held.get(t, np.zeros(H)) * weight(kinds[t]) for t in owned), np.zeros(H))
        rows.add(name, sp.csr_matrix(coef).toarray(), -np.inf, limit - before,
                 month=range(H))
        if name == "power":
            # servers online by month per draw (types of one draw share a group)
            draws = sorted({round(weight(kinds[t]), 9) for t in owned})
            units = [sp.csr_matrix(sum((owned[t] / kinds[t].per_server for t in owned
                                        if round(weight(kinds[t]), 9) == w),
                                       sp.csr_matrix((H, n)))) for w in draws]
            units = [sp.csr_matrix(np.round(u.toarray())) for u in units]
            counts = [sum((held.get(t, np.zeros(H)) for t in owned
                           if round(weight(kinds[t]), 9) == w), np.zeros(H)) for w in draws]
            facets, hi = hull_rows(units, draws, np.full(H, float(limit)), counts)
            if facets.shape[0]:
                (rows if hull is None else hull).add("power_hull", facets, -np.inf, hi,
                                                     keys=list(range(facets.shape[0])),
                                                     axes=("facet",))


def sale_rows(ctx: PlanState, rows: Rows, cols: Index) -> None:
    """Servers sold from a cohort, over all decision points, are at most those it has.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (servers of the position).
    rows : models.milp_rows.Rows
        The rows, to which ``sale[from, cohort]`` is added.
    cols : models.milp_index.Index
        The columns (``sell``, ``buy``).

    Notes
    -----
    For a cohort c held: sum_d sell[held, c, d] <= count_c; for one bought at d0:
    sum_d sell[bought, (type, d0), d] - buy[type, d0] <= 0.
    """
    n = len(cols)
    sell = cols["sell"] if "sell" in cols else ()
    cohorts = sorted({(kind, key) for kind, key, _ in sell}, key=str)
    coef = np.zeros((len(cohorts), n))
    hi = np.zeros(len(cohorts))
    for r, (kind, key) in enumerate(cohorts):
        for d_kind, d_key, d in sell:
            if (d_kind, d_key) == (kind, key):
                coef[r, sell[d_kind, d_key, d]] = 1.0
        if kind == "bought":
            coef[r, cols["buy"][key]] = -1.0
        hi[r] = ctx.position.servers[key].count if kind == "held" else 0.0
    rows.add("sale", coef, -np.inf, hi, keys=cohorts, axes=("from", "cohort"))
