"""The staged plan's MILP, assembled (issue 14; named blocks, issue 36).

Columns, in order, each a named block of models/milp_index.py: the decisions (group
``"decision"``) -- ``buy[type, month]`` servers bought, ``commit[offer, month]`` blocks signed,
``sell[from, cohort, month]`` servers sold (``from`` is ``held`` or ``bought``), or for the
static problem of a fleet ``chain[type]`` and ``renew[offer]`` -- then one variable a month of
each epigraph, ``z[month]`` (F of the top level) and ``w[month]`` (G of the committed level),
the levels ``l1[month]`` (committed) and ``l2[month]`` (committed plus every owned type), and
for a fleet of T types ``y[level, month]`` and ``lk[level, month]``, the epigraphs and the
levels between types (level 1 .. T - 1). Rows, after each round's tangents: ``budget[year]``,
``servers[month]``, ``power[month]``, ``sale[from, cohort]``, then the level rows
``level_w[month]``, ``level_z[month]`` and ``level_between[level, month]``. The module notes of
models/staged.py give the method.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import scipy.sparse as sp

from models.capacity import CapacityPlan, CommitmentCohort, ServerCohort, combined
from models.plan_state import PlanState
from models.static_cohorts import commitment_chain, server_chain
from models.cohort_costs import commitment_schedule, server_schedule
from models.costs import cost_lines, present_value
from models.dispatch import Volumes
from models.fleet import fleet_types
from models.milp_block import Block
from models.milp_index import Index
from models.milp_rows import Rows
from models.linear_costs import optimizer_state
from models.refusals import Refusal
from models.scenario import Scenario
from models.scenario_types import MAX_SERVERS
from models.staged_rows import limit_rows, sale_rows, unit_rows

DECISION = "decision"      # the group of the decision columns (models.milp_index.Index.group)
# the blocks of each function's epigraph and of the level it is taken at; a middle level k
# (a fleet) is entry k of the "y" and "lk" blocks
EPIGRAPHS = {"z": "z", "w": "w"}
LEVELS = {"z": "l2", "w": "l1"}


class StagedError(Refusal):
    """A staged optimum that cannot be proven (the conditions of the method do not hold)."""


def decision_months(s: Scenario, horizon: int, first_month: Optional[str] = None) -> list[int]:
    """Month indices of the decision points (design 5.3).

    Parameters
    ----------
    s : Scenario
        The scenario (decision interval, useful life, offer terms).
    horizon : int
        Months of the horizon [months].
    first_month : str, optional
        The plan's first month, ``'YYYY-MM'``: with server types, each type's useful lives and
        the month it becomes available are decision points too.

    Returns
    -------
    list of int
        0-based month indices, ascending: every interval, and the ends of useful lives and of
        terms counted from month 0 [months].

    Notes
    -----
    With I the decision interval, U the useful life (each type's, with types), T_k each
    offer's term and a_t each type's first month:

    .. math:: D = \\{ m < H : I | m \\lor U | m \\lor \\exists k\\, T_k | m \\}
              \\cup \\{ a_t : 0 < a_t < H \\}
    """
    months = set(range(0, horizon, s.staging.decision_interval_months))
    months |= set(range(0, horizon, s.owned.useful_life_months))
    for offer in s.commitments:
        months |= set(range(0, horizon, offer.term_months))
    if first_month is not None:
        for kind in fleet_types(s, first_month):   # each type's lives, and its first month
            months |= set(range(0, horizon, kind.owned.useful_life_months))
            if 0 < kind.first < horizon:
                months.add(kind.first)
    return sorted(months)


@dataclass
class Problem:
    """The pieces of the MILP that do not change between cutting-plane rounds.

    Columns and rows are the named blocks of the module notes (``cols``, ``rows``).
    """

    cols: Index                   # the named column blocks
    columns: list[tuple]          # what each column is: ("buy", type, d), ("z", m), ...
    cost: np.ndarray              # objective coefficient per variable
    upper: np.ndarray             # upper bound per variable
    integer: np.ndarray
    l1: sp.csr_matrix             # (H, nvars): new committed level by month, per variable
    l2: sp.csr_matrix             # (H, nvars): new committed-plus-owned level by month
    held_l1: np.ndarray           # the position's levels by month
    held_l2: np.ndarray
    rows: Rows                    # the budget, hall, sale and level rows
    base: float                   # PV every schedule pays (position, data at cloud prices)
    middle: list = field(default_factory=list)       # (H, nvars) levels between types
    held_middle: list = field(default_factory=list)  # the position's levels between types
    fixed: dict = field(default_factory=dict)        # variable index -> the value it is held at
    paid: Optional[np.ndarray] = None   # purchase or upfront cash per unit of each decision
    hull: Optional[Rows] = None          # integer-hull facets of the budget and power rows

    @property
    def decisions(self) -> slice:
        """The decision columns (every block of group ``"decision"``).

        Returns
        -------
        slice
            Their indices.

        Notes
        -----
        slice = :meth:`models.milp_index.Index.group` (``"decision"``): buy, commit and sell (a
        schedule) or chain and renew (a fleet's static problem), the columns before the epigraphs,
        the integer ones.
        """
        return self.cols.group(DECISION)

    def upper_finite(self) -> np.ndarray:
        """The decision variables' upper bounds, 0 for the others.

        Returns
        -------
        numpy.ndarray
            Bounds [servers or blocks, (nvars,)].

        Notes
        -----
        b_j = u_j for a decision column j with a finite bound u_j, b_j = 0 otherwise [servers or
        blocks].
        """
        out = np.zeros(len(self.upper))
        d = self.decisions
        out[d] = np.where(np.isfinite(self.upper[d]), self.upper[d], 0.0)
        return out

    def epigraph(self, which, m):
        """Index of the epigraph variable of a function in a month.

        Parameters
        ----------
        which : str or int
            ``"z"`` (the top level), ``"w"`` (the committed level) or a middle level k >= 1.
        m : int or numpy.ndarray
            Month index, or indices [months].

        Returns
        -------
        int or numpy.ndarray
            Variable index, or indices: ``z[m]``, ``w[m]`` or ``y[k, m]``.

        Notes
        -----
        z_m >= F_m(l2_m), w_m >= G_m(l1_m), y_{k,m} >= (c_k - c_{k+1}) A_m(lk_{k,m}), each
        through its tangents.
        """
        if which in EPIGRAPHS:
            return self.cols[EPIGRAPHS[which]][m]
        return self.cols["y"][which, m]

    def level(self, which, m):
        """Index of the level variable a function is taken at in a month.

        Parameters
        ----------
        which : str or int
            ``"z"``, ``"w"`` or a middle level k >= 1 (as :meth:`epigraph`).
        m : int or numpy.ndarray
            Month index, or indices [months].

        Returns
        -------
        int or numpy.ndarray
            Variable index, or indices: ``l2[m]``, ``l1[m]`` or ``lk[k, m]``.

        Notes
        -----
        The level rows hold each at its value: l1_m = h1_m + (L1 x)_m, l2_m = h2_m + (L2 x)_m,
        lk_{k,m} = hk_{k,m} + (M_k x)_m.
        """
        if which in LEVELS:
            return self.cols[LEVELS[which]][m]
        return self.cols["lk"][which, m]

    def levels(self, x: np.ndarray) -> dict:
        """Every function's level by month at a solution.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of the MILP.

        Returns
        -------
        dict
            ``"w"`` the committed level, ``"z"`` the top, k the level after the k-th type of
            the merit order [GPUs of the reference type, (months,)].

        Notes
        -----
        .. math:: L_w = h_1 + L_1 x, \\quad L_z = h_2 + L_2 x, \\quad L_k = h_k + M_k x

        with h the position's levels and L, M the levels' coefficients per variable.
        """
        out = {"w": self.held_l1 + self.l1 @ x, "z": self.held_l2 + self.l2 @ x}
        for k, (mat, held) in enumerate(zip(self.middle, self.held_middle), start=1):
            out[k] = held + mat @ x
        return out


def unit_pv(ctx: PlanState, plan: CapacityPlan, base: float) -> float:
    """PV of a set of cohorts on top of the position, no volume, linear terms only.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (price book, position).
    plan : CapacityPlan
        Cohorts to price.
    base : float
        PV of the position alone [currency].

    Returns
    -------
    float
        PV added by the cohorts [currency].

    Notes
    -----
    .. math:: c = PV(\\text{position} + \\text{cohorts}, \\text{no work}) - PV(\\text{position})

    with every dispatch volume zero, so only the cohorts' own lines (purchase, upfront,
    idle power, support, resale) are counted.
    """
    H, book = ctx.horizon, ctx.book
    gross = ctx.tables.gross.totals.reshape(-1, 1)
    zero = np.zeros((H, 1))
    idle = Volumes(zero, zero, zero, zero, zero, zero, gross)
    lines = cost_lines(book, combined(ctx.position, plan), idle, linear=True)
    return float(present_value(book, lines)[0]) - base


def build_problem(ctx: PlanState, use_spot: bool, static: bool = False, servers: bool = True
                  ) -> Problem:
    """The MILP's variables, costs, bounds, capacity levels and limit rows.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (decision months, limits, position).
    use_spot : bool
        Whether the schedule may use spot.
    static : bool, default False
        The static problem of a fleet instead (issue 26): one variable per server type (its
        servers from month 1, replaced at each life's end while the type is sold) and per offer
        (its GPUs from month 1, renewed), no sale, and no ``staging`` limit (as every static
        strategy).
    servers : bool, default True
        False: no new server in the static problem (its server variables are bounded by 0).

    Returns
    -------
    Problem
        The parts that do not change between cutting-plane rounds: one variable per purchase
        (per type), sale and signed block at each decision point (PV per unit [currency]),
        then the epigraph and level variables of each month (module notes).

    Notes
    -----
    The MILP minimises

    .. math:: base + \\sum_j c_j x_j + \\sum_m (z_m + w_m + \\sum_k y_{k,m})

    with c_j the PV of one unit of decision j (:func:`unit_pv`; a sale: the PV of the cohort
    sold at d less that of keeping it), the level rows
    l1_m = h1_m + (L1 x)_m, l2_m = h2_m + (L2 x)_m, lk_{k,m} = hk_{k,m} + (M_k x)_m, and
    the epigraphs bounded below by tangents (models/staged_block.py).
    """
    s, H = ctx.scenario, ctx.horizon
    theta_c = s.on_demand.relative_throughput
    lc, _ = optimizer_state(ctx)
    months = decision_months(s, H, ctx.calendar.months[0])
    peak = float(ctx.tables.gross.peak.max(initial=0.0))
    kinds = [ctx.fleet[i] for i in ctx.merit]          # merit order
    rank = {k.id: r for r, k in enumerate(kinds)}
    first = np.datetime64(ctx.calendar.months[0], "M")
    formats = {"month": lambda m: str(first + m)}
    cols = Index(formats)

    def n_hi(kind) -> int:
        hi = min(math.ceil(peak / kind.per_server) + 1, MAX_SERVERS)
        if s.staging.max_servers is not None and not static:
            hi = min(hi, s.staging.max_servers)
        return hi

    cost, upper, capex = [], [], []
    l1: list[dict[int, float]] = []
    owned: list[tuple[int, dict[int, float]]] = []   # (merit rank, capacity by month)
    keys: list = []                                  # of the block being declared

    def column(key, c: float, hi: float, levels1: dict, rank_: int = 0,
               capacity: Optional[dict] = None, paid: float = 0.0) -> None:
        """A variable: its PV per unit, bound, committed and owned capacity by month."""
        keys.append(key)
        cost.append(c)
        upper.append(hi)
        l1.append(levels1)
        owned.append((rank_, capacity or {}))
        capex.append(paid)

    def declare(name: str, *axes: str, group: Optional[str] = DECISION) -> Block:
        """The columns added since the last block, as the block ``name``."""
        block = cols.add(name, keys=list(keys), axes=axes, group=group)
        keys.clear()
        return block

    base = lc.base_pv
    if static:
        for kind in ctx.fleet:
            chain = server_chain(s, 1, H, kind)
            if not chain or chain[0].bought != 0:
                continue                           # not sold in the first month
            online = CapacityPlan(chain).servers_online(H)
            column(kind.id, unit_pv(ctx, CapacityPlan(chain), base),
                   n_hi(kind) if servers else 0, {},
                   rank[kind.id], {m: kind.per_server * online[m] for m in range(H)
                                   if online[m]})
        declare("chain", "type")
        for offer in s.commitments:
            block = offer.block_gpus
            chain = commitment_chain(s, offer.id, block, H)
            levels = {m: block * theta_c for m in range(H)}
            column(offer.id, unit_pv(ctx, CapacityPlan((), chain), base),
                   math.ceil(peak / (block * theta_c)) + 1, levels)
        declare("renew", "offer")
    else:
        for kind in ctx.fleet:       # servers of each type bought at d
            o = kind.owned
            for d in months:
                if not kind.can_buy(d):
                    continue
                cohort = ServerCohort(1, d, d + o.lead_time_months,
                                      min(d + o.useful_life_months, H), type=kind.id)
                online = range(max(cohort.online, 0), cohort.sold)
                paid = float(server_schedule(ctx.book, cohort)["capex"][:, 0].sum())
                column((kind.id, d), unit_pv(ctx, CapacityPlan((cohort,)), base),
                       n_hi(kind), {}, rank[kind.id], {m: kind.per_server for m in online},
                       paid)
        declare("buy", "type", "month")
        for offer in s.commitments:
            block = offer.block_gpus
            for d in months:
                cohort = CommitmentCohort(offer.id, block, d, offer.term_months)
                active = range(d, min(d + offer.term_months, H))
                levels = {m: block * theta_c for m in active}
                paid = float(block * commitment_schedule(ctx.book, CommitmentCohort(
                    offer.id, 1, d, offer.term_months))["upfront"][:, 0].sum())
                column((offer.id, d), unit_pv(ctx, CapacityPlan((), (cohort,)), base),
                       math.ceil(peak / (block * theta_c)) + 1, levels, paid=paid)
        declare("commit", "offer", "month")
        if s.staging.allow_sales:
            by_id = {k.id: k for k in ctx.fleet}
            held = [("held", i, c) for i, c in enumerate(ctx.position.servers)]
            bought = [("bought", (k.id, d), ServerCohort(
                1, d, d + k.owned.lead_time_months, min(d + k.owned.useful_life_months, H),
                type=k.id)) for k in ctx.fleet for d in months if k.can_buy(d)]
            for kind, key, c in held + bought:
                per_server = by_id[c.type].per_server
                one = ServerCohort(1, c.bought, c.online, c.sold, c.price, c.install, c.type)
                keep = unit_pv(ctx, CapacityPlan((one,)), base)
                for d in months:   # never in month 0: a sale is booked the month before
                    if max(c.bought, 0) < d < c.sold:
                        early = ServerCohort(1, c.bought, c.online, d, c.price, c.install,
                                             c.type)
                        gone = range(max(d, c.online, 0), c.sold)
                        column((kind, key, d),
                               unit_pv(ctx, CapacityPlan((early,)), base) - keep,
                               c.count if kind == "held" else n_hi(by_id[c.type]), {},
                               rank[c.type], {m: -per_server for m in gone})
        declare("sell", "from", "cohort", "month")
    T = len(kinds)
    # epigraphs: z_m of F_m(L2_m), then w_m of G_m(L1_m); the levels themselves, so that a
    # cut has two entries; for a fleet, the epigraphs and levels between types
    for name, c, axes in (("z", 1.0, {"month": range(H)}), ("w", 1.0, {"month": range(H)}),
                          ("l1", 0.0, {"month": range(H)}), ("l2", 0.0, {"month": range(H)}),
                          ("y", 1.0, {"level": range(1, T), "month": range(H)}),
                          ("lk", 0.0, {"level": range(1, T), "month": range(H)})):
        for _ in cols.add(name, **axes):
            column(None, c, np.inf, {})
        keys.clear()
    n = len(cols)

    def matrix(levels: list[dict[int, float]]) -> sp.csr_matrix:
        r, c, v = [], [], []
        for j, entries in enumerate(levels):
            for m, value in entries.items():
                r.append(m)
                c.append(j)
                v.append(value)
        return sp.csr_matrix((v, (r, c)), shape=(H, len(levels)))

    L1 = matrix(l1)
    by_rank = [matrix([cap if r == k else {} for r, cap in owned]) for k in range(T)]
    L2 = sum(by_rank[1:], by_rank[0]) + L1
    per_type = {kinds[k].id: by_rank[k] for k in range(T)}
    rows = Rows(n, formats)
    hull = Rows(n, formats)
    if not static:
        limit_rows(ctx, rows, cols, np.array(capex), per_type, hull)
    sale_rows(ctx, rows, cols)
    integer = np.zeros(n, dtype=int)
    integer[cols.group(DECISION)] = 1
    held_l1 = ctx.committed_capacity(0.0)
    held_types = ctx.owned_levels(ctx.position)
    held_rank = [held_types[k.id] for k in kinds]
    held_l2 = held_l1 + sum(held_rank[1:], held_rank[0])
    middle, held_middle, level, held_level = [], [], L1, held_l1
    for k in range(T - 1):
        level, held_level = level + by_rank[k], held_level + held_rank[k]
        middle.append(level.tocsr())
        held_middle.append(held_level)
    prob = Problem(cols, cols.entries(), np.array(cost), np.array(upper, dtype=float), integer,
                   L1, L2, held_l1, held_l2, rows, base, middle, held_middle,
                   paid=np.array(capex, dtype=float), hull=hull)
    # level rows: l_m - (new level) = held, for the committed, the top and every middle level
    rows.add("level_w", unit_rows(cols["l1"], n) - L1, held_l1, held_l1, month=range(H))
    rows.add("level_z", unit_rows(cols["l2"], n) - L2, held_l2, held_l2, month=range(H))
    between = (sp.vstack(middle, format="csr") if middle else sp.csr_matrix((0, n)))
    held_between = np.concatenate(held_middle) if held_middle else np.zeros(0)
    rows.add("level_between", unit_rows(cols["lk"], n) - between, held_between, held_between,
             level=range(1, T), month=range(H))
    return prob


def assemble(prob: Problem, cuts: list, nvar: int) -> tuple[sp.csr_matrix, np.ndarray,
                                                           np.ndarray]:
    """The constraint rows of one block: its tangents, then its limit, sale and level rows.

    Parameters
    ----------
    prob : Problem
        The block's fixed parts.
    cuts : list of tuple
        (month, function, slope, intercept) of each tangent.
    nvar : int
        Number of variables.

    Returns
    -------
    rows : scipy.sparse.csr_matrix
        Coefficients, one row per constraint.
    row_lower, row_upper : numpy.ndarray
        Bounds of each row.

    Notes
    -----
    A tangent of slope s and intercept b of function f in month m is the row

    .. math:: e_{f,m} - s\\, l_{f,m} \\ge b

    with e the function's epigraph column and l its level column (:meth:`Problem.epigraph`,
    :meth:`Problem.level`); ``prob.rows`` follow, then ``prob.hull`` (the integer-hull facets
    of the budget and power rows, models/staged_hull.py).
    """
    slope = np.array([cut[2] for cut in cuts])
    k = np.arange(len(cuts))
    epigraph = np.array([prob.epigraph(cut[1], cut[0]) for cut in cuts], dtype=int)
    level = np.array([prob.level(cut[1], cut[0]) for cut in cuts], dtype=int)
    A = sp.csr_matrix((np.r_[np.ones(len(cuts)), -slope], (np.r_[k, k], np.r_[epigraph, level])),
                      shape=(len(cuts), nvar))
    fixed, lower, upper = prob.rows.matrix()
    if prob.hull is not None and len(prob.hull):
        more, more_lo, more_hi = prob.hull.matrix()
        fixed = sp.vstack([fixed, more], format="csr")
        lower, upper = np.concatenate([lower, more_lo]), np.concatenate([upper, more_hi])
    return (sp.vstack([A, fixed], format="csr"),
            np.concatenate([np.array([cut[3] for cut in cuts], float), lower]),
            np.concatenate([np.full(len(cuts), np.inf), upper]))


def bounds(prob: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Each variable's bounds: decisions from 0 (held ones at their value), levels and
    epigraphs free below.

    Parameters
    ----------
    prob : Problem
        The block's fixed parts.

    Returns
    -------
    lower, upper : numpy.ndarray
        Bounds [the variable's unit, (nvars,)].

    Notes
    -----
    lower_j = -inf where upper_j = inf (epigraphs, levels), else 0; a held column j has
    lower_j = upper_j = its value.
    """
    lower = np.where(np.isinf(prob.upper), -np.inf, 0.0)
    upper = prob.upper.copy()
    for j, value in prob.fixed.items():
        lower[j] = upper[j] = value
    return lower, upper
