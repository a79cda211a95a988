"""The robust plan's extensive form (issue 27): one staged MILP per demand path, stacked, with
the here-and-now decisions tied together and the risk objective.

Columns, named blocks of models/milp_index.py: ``path[path, column]``, each path's block's
columns (models/staged_problem.py) side by side, then with a risk weight ``eta`` (CVaR's
threshold) and ``cvar_excess[path]`` (u_s >= PV_s - eta, u_s >= 0). Rows: each path's block's
rows, ``nonanticipativity[path, decision]`` (path s's here-and-now decision equals path 0's, s
>= 1), then ``cvar_excess[path]`` and ``floor[path]`` (:func:`floors`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import scipy.sparse as sp

from models.milp_index import Index
from models.milp_rows import Rows
from models.robust_result import cvar
from models.scenario_schedule import DemandScenario
from models.staged_block import Block
from models.staged_problem import StagedError, assemble, bounds

DECISION_KINDS = ("buy", "commit", "sell")
# a path's own proven optimum less this share is the floor of its cost in the extensive form:
# HiGHS's feasibility tolerances may put a solution's objective a hair under the true optimum
FLOOR_TOLERANCE = 1e-9


def first_stage(cols: Index, months: int) -> list[int]:
    """Indices of the here-and-now decisions among a block's columns.

    Parameters
    ----------
    cols : models.milp_index.Index
        The block's columns (its ``buy``, ``commit`` and ``sell`` blocks are read).
    months : int
        ``staging.decide_now_months`` [months].

    Returns
    -------
    list of int
        Columns of a decision at a month index below ``months``, ascending.

    Notes
    -----
    .. math:: F = \\{ j = buy[t, d],\\ commit[o, d],\\ sell[f, c, d] : d < M \\}

    with M the decide-now months.
    """
    return sorted(int(block[key]) for block in cols if block.name in DECISION_KINDS
                  for key in block if key[-1] < months)


@dataclass
class Stacked:
    """The blocks of every path as one MILP: their variables side by side, then any extra
    (CVaR's eta and u), the here-and-now equalities, and every variable's bounds."""

    blocks: list[Block]
    cols: Index               # path[path, column], then the extra blocks
    first: list[int]          # a block's here-and-now columns (:func:`first_stage`)
    link: Rows                # nonanticipativity[path, decision]: path s's - path 0's = 0
    integer: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @property
    def nvar(self) -> int:
        """Columns of the stacked MILP.

        Returns
        -------
        int
            Every path's and the extra ones.

        Notes
        -----
        N = S x n + sum of the extra blocks' sizes, S the paths, n a block's columns.
        """
        return len(self.cols)

    @property
    def here(self) -> list[int]:
        """Path 0's here-and-now columns in the stacked MILP (the links tie the others').

        Returns
        -------
        list of int
            ``path[0, j]`` for each j of ``first``.

        Notes
        -----
        here_j = path[0, j] for each j of ``first``.
        The search bounds these columns' values box by box (models/robust_solve.py).
        """
        paths = self.cols["path"]
        return [int(paths[0, j]) for j in self.first]

    def part(self, x: np.ndarray, i: int) -> np.ndarray:
        """Block ``i``'s variables in a solution.

        Parameters
        ----------
        x : numpy.ndarray
            A solution of the stacked MILP.
        i : int
            The block (path) index.

        Returns
        -------
        numpy.ndarray
            A view of its variables, ``path[i, :]``.

        Notes
        -----
        x_i = x[path[i, 0] .. path[i, n - 1]], n a block's columns.
        """
        return x[self.cols["path"].within(i)]


def stack(blocks: list[Block], months: int, extra: Sequence[tuple[str, dict]] = ()
          ) -> Stacked:
    """Stack the paths' blocks, tie their first-stage decisions and bound every variable.

    Parameters
    ----------
    blocks : list of Block
        Each path's block.
    months : int
        ``staging.decide_now_months`` [months].
    extra : sequence of tuple, default ()
        (name, labels) of blocks of continuous variables after the paths' (free below unless
        bounded by the caller): ``("eta", {})``, ``("cvar_excess", {"path": range(S)})``.

    Returns
    -------
    Stacked
        The stacked MILP's fixed parts.

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions.

    Notes
    -----
    For each path s >= 1 and here-and-now column j (:func:`first_stage`):

    .. math:: x_{path[s, j]} - x_{path[0, j]} = 0
    """
    columns = blocks[0].prob.columns[blocks[0].prob.decisions]
    for b in blocks[1:]:
        if b.prob.columns[b.prob.decisions] != columns or b.nvar != blocks[0].nvar:
            raise StagedError("the demand scenarios' staged problems differ in their decisions")
    name = blocks[0].prob.cols.name
    cols = Index({"column": name})
    paths = cols.add("path", path=range(len(blocks)), column=range(blocks[0].nvar))
    for block, labels in extra:
        cols.add(block, **labels)
    nvar = len(cols)
    first = first_stage(blocks[0].prob.cols, months)
    link = Rows(nvar, {"decision": name})
    ties = range(1, len(blocks))
    rows = Index().add("nonanticipativity", path=ties, decision=first)   # their positions
    r, c, v = [], [], []
    for i in ties:
        for j in first:
            r += [rows[i, j]] * 2
            c += [paths[i, j], paths[0, j]]
            v += [1.0, -1.0]
    link.add("nonanticipativity", sp.csr_matrix((v, (r, c)), shape=(rows.size, nvar)), 0.0, 0.0,
             path=ties, decision=first)
    integer = np.zeros(nvar)
    lower, upper = np.full(nvar, -np.inf), np.full(nvar, np.inf)
    for i, b in enumerate(blocks):
        lo, hi = bounds(b.prob)
        at = paths.within(i)
        lower[at], upper[at] = lo, hi
        integer[at] = b.prob.integer
    return Stacked(blocks, cols, first, link, integer, lower, upper)


def stacked_rows(st: Stacked, extra: Optional[Rows]
                 ) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """A stacked MILP's rows at its blocks' present tangents: each block's, the links, then
    ``extra``.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    extra : models.milp_rows.Rows or None
        Rows beyond the blocks' and the links.

    Returns
    -------
    tuple
        (rows, lower, upper).

    Notes
    -----
    The rows, top to bottom: diag(A_1, ..., A_S) over the paths' columns (A_s path s's rows,
    :func:`models.staged_problem.assemble`; none over the extra columns), then the
    non-anticipativity rows N x = 0, then ``extra``.
    """
    parts = [assemble(b.prob, b.cuts, b.nvar) for b in st.blocks]
    diag = sp.block_diag([a for a, _, _ in parts], format="csr")
    after = st.nvar - st.cols["path"].stop         # the extra columns: no block row has them
    diag = sp.hstack([diag, sp.csr_matrix((diag.shape[0], after))], format="csr")
    link, link_lo, link_hi = st.link.matrix()
    more = [extra.matrix()] if extra is not None and len(extra) else []
    rows = sp.vstack([diag, link] + [m[0] for m in more], format="csr")
    lower = np.concatenate([lo for _, lo, _ in parts] + [link_lo] + [m[1] for m in more])
    upper = np.concatenate([hi for _, _, hi in parts] + [link_hi] + [m[2] for m in more])
    return rows, lower, upper


def block_costs(st: Stacked) -> sp.csr_matrix:
    """Each path's MILP cost as a row over the stacked variables: row s is ``prob.cost`` of
    block s at its columns (the CVaR rows, the floors and the expected PV read it).

    Parameters
    ----------
    st : Stacked
        The stacked MILP.

    Returns
    -------
    scipy.sparse.csr_matrix
        (paths, nvar) [currency per unit of each variable].

    Notes
    -----
    .. math:: C_{s, path[s, j]} = c^{(s)}_j, \\quad 0 \\text{ elsewhere}

    so that C x is each path's MILP cost less its constant.
    """
    paths = st.cols["path"]
    r, c, v = [], [], []
    for i, b in enumerate(st.blocks):
        nz = np.flatnonzero(b.prob.cost)
        r.append(np.full(nz.size, i))
        c.append(paths[i, nz])
        v.append(b.prob.cost[nz])
    return sp.csr_matrix((np.concatenate(v), (np.concatenate(r), np.concatenate(c))),
                         shape=(len(st.blocks), st.nvar))


def floors(alone: list, blocks: list[Block]) -> list[Optional[float]]:
    """Each path's proven least MILP cost, a floor under its block's cost in the stacked MILP.

    A path's own staged optimum, proven with its block's tangents (gap 0, convex), is the least
    its MILP cost can be for any schedule of the path; tangents added later only raise that
    cost, and the robust plan's schedule of the path is one such schedule. So ``prob.cost @
    x_s >= floor_s`` is valid in the extensive form, and it lifts the LP relaxation from each
    block's weak relaxation to its integer optimum (the stacked MILP's bound starts at the
    wait-and-see value, the EVPI away from the optimum).

    Parameters
    ----------
    alone : list of models.staged.StagedResult
        Each path's own optimum, solved with its block.
    blocks : list of Block
        Each path's block.

    Returns
    -------
    list of float or None
        Per path, the floor of ``prob.cost @ x_s`` [currency] (less 1e-9 of the PV for
        HiGHS's tolerances); None where the optimum is not proven.

    Notes
    -----
    .. math:: floor_s = PV^*_s - 10^{-9} \\max(1, |PV^*_s|) - base_s - const_s

    with PV*_s the path's own proven optimum.
    """
    out: list[Optional[float]] = []
    for own, b in zip(alone, blocks):
        if own.gap != 0.0 or own.limited or b.concave.any():
            out.append(None)
            continue
        out.append(own.objective - FLOOR_TOLERANCE * max(1.0, abs(own.objective))
                   - b.prob.base - b.constant)
    return out


@dataclass
class ExtensiveForm:
    """The stacked MILP of every path with the risk objective: what both methods solve."""

    st: Stacked
    cost: np.ndarray            # objective coefficients [(nvar,)]
    extra: Rows                 # cvar_excess[path] and floor[path]
    constant: float             # the objective's constant: (1 - w) sum_s p_s const_s
    p: np.ndarray               # the paths' probabilities
    alpha: float
    weight: float

    def value(self, pvs: np.ndarray) -> float:
        """The risk objective of the paths' PVs: (1 - w) E[PV] + w CVaR.

        Parameters
        ----------
        pvs : numpy.ndarray
            Each path's PV [currency].

        Returns
        -------
        float
            The objective [currency].

        Notes
        -----
        .. math:: (1 - w) \\sum_s p_s PV_s + w\\, CVaR_\\alpha(PV)

        (:func:`models.robust_result.cvar`).
        """
        return ((1.0 - self.weight) * float(self.p @ pvs)
                + self.weight * cvar(pvs, self.p, self.alpha))

    def rows(self) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """Every row at the blocks' present tangents (:func:`stacked_rows`).

        Returns
        -------
        tuple
            (rows, lower, upper).

        Notes
        -----
        (A, l, u) = :func:`stacked_rows` (st, extra): the blocks' rows, the non-anticipativity rows,
        then ``cvar_excess`` and ``floor`` (:func:`extensive_form`), l <= A x <= u.
        """
        return stacked_rows(self.st, self.extra)


def extensive_form(blocks: list[Block], paths: tuple[DemandScenario, ...], staging,
                   floor: Optional[list[Optional[float]]] = None) -> ExtensiveForm:
    """Stack the paths' blocks with the risk objective and the floors.

    Parameters
    ----------
    blocks : list of Block
        Each path's MILP parts and tangents.
    paths : tuple of DemandScenario
        The paths (their probabilities).
    staging : models.scenario_schedule.Staging
        The plan's staging section (decide-now months, risk).
    floor : list of float or None, optional
        Each block's least MILP cost (:func:`floors`), added as rows.

    Returns
    -------
    ExtensiveForm
        The stacked MILP.

    Raises
    ------
    StagedError
        The paths' MILPs differ in their decisions.

    Notes
    -----
    With p_s the paths' probabilities, c^{(s)} x_s + k_s path s's MILP cost (k_s its base and
    constant), w the risk weight and alpha the CVaR level (Rockafellar-Uryasev):

    .. math:: \\min (1 - w) \\sum_s p_s (c^{(s)} x_s + k_s) + w \\Big(\\eta
              + \\frac{1}{1 - \\alpha} \\sum_s p_s u_s\\Big)

    .. math:: u_s + \\eta - c^{(s)} x_s \\ge k_s, \\quad u_s \\ge 0, \\quad
              c^{(s)} x_s \\ge floor_s

    the u_s rows ``cvar_excess[path]`` and the floors ``floor[path]`` (only with w > 0, and
    where a path's floor is proven). The objective's constant (1 - w) sum_s p_s k_s is
    ``constant``.
    """
    alpha, w = staging.risk.cvar_alpha, staging.risk.cvar_weight
    p = np.array([q.probability for q in paths])
    S = len(blocks)
    risk = w > 0
    st = stack(blocks, staging.decide_now_months,
               [("eta", {}), ("cvar_excess", {"path": range(S)})] if risk else [])
    cols = st.cols
    cost = np.zeros(st.nvar)
    for i, b in enumerate(blocks):
        cost[cols["path"].within(i)] = (1.0 - w) * p[i] * b.prob.cost
    consts = np.array([b.prob.base + b.constant for b in blocks])
    extra = Rows(st.nvar)
    if risk:
        eta, excess = cols["eta"][()], cols["cvar_excess"]
        cost[eta] = w
        cost[excess.slice] = w * p / (1.0 - alpha)
        st.lower[excess.slice] = 0.0                   # eta is free; u >= 0
        # u_s + eta - cost_s x_s >= base_s + const_s
        ties = sp.csr_matrix((np.ones(2 * S), (np.repeat(np.arange(S), 2),
                                               np.ravel([[excess[i], eta] for i in range(S)]))),
                             shape=(S, st.nvar))
        extra.add("cvar_excess", ties - block_costs(st), consts, np.inf, path=range(S))
    proven = [i for i, f in enumerate(floor or ()) if f is not None]
    if proven:   # cost_s x_s >= floor_s (floors)
        extra.add("floor", block_costs(st)[proven], np.array([floor[i] for i in proven]),
                  np.inf, path=proven)
    return ExtensiveForm(st, cost, extra, float((1.0 - w) * (p @ consts)), p, alpha, w)


def lifted(st: Stacked, x: np.ndarray, checks: list) -> np.ndarray:
    """A stacked solution with every epigraph raised to its function's true cost (a hair
    above, for HiGHS's feasibility tolerance): it satisfies every tangent, present or to come.

    Parameters
    ----------
    st : Stacked
        The stacked MILP.
    x : numpy.ndarray
        A solution of it.
    checks : list
        Each block's (true costs, shortfalls) at ``x`` (:meth:`Block.shortfalls`).

    Returns
    -------
    numpy.ndarray
        The lifted copy of ``x``.

    Notes
    -----
    For each path's function f and group G of months, with t = sum_{m in G} f_m(l_m):

    .. math:: e_G \\leftarrow \\max(e_G,\\; t + 10^{-9} |t| + 10^{-6})
    """
    y = x.copy()
    for i, (b, (true, _short)) in enumerate(zip(st.blocks, checks)):
        part, H = st.part(y, i), b.ctx.horizon
        for which in b.order:
            at = b.reps[which]
            cost = np.bincount(b.owner[which], weights=true[which], minlength=H)[at]
            j = b.prob.epigraph(which, at)
            part[j] = np.maximum(part[j], cost + 1e-9 * np.abs(cost) + 1e-6)
    return y


def feasible(st: Stacked, rows: sp.csr_matrix, row_lower: np.ndarray, row_upper: np.ndarray,
             x: np.ndarray) -> bool:
    """Whether a point meets a stacked MILP's rows and bounds (HiGHS's 1e-7 tolerance, relative
    to each row's size), so that HiGHS takes it as its first incumbent.

    Parameters
    ----------
    st : Stacked
        The stacked MILP (bounds, integers).
    rows : scipy.sparse.csr_matrix
        Its constraint rows this round.
    row_lower : numpy.ndarray
        The rows' lower bounds.
    row_upper : numpy.ndarray
        The rows' upper bounds.
    x : numpy.ndarray
        The point.

    Returns
    -------
    bool
        True when every row and bound holds and the integers are whole.

    Notes
    -----
    Row i holds when lo_i - tol_i <= (A x)_i <= hi_i + tol_i with

    .. math:: tol_i = 10^{-9} \\max(1, \\max_j |A_{ij}| \\max_j |x_j|)

    and each bound within 1e-9.
    """
    ax = rows @ x
    size = np.maximum(1.0, np.abs(rows).max(axis=1).toarray().ravel() * np.abs(x).max())
    tol = 1e-9 * size
    ints = st.integer.astype(bool)
    return bool(np.all(ax >= row_lower - tol) and np.all(ax <= row_upper + tol)
                and np.all(x >= st.lower - 1e-9) and np.all(x <= st.upper + 1e-9)
                and np.all(x[ints] == np.round(x[ints])))
