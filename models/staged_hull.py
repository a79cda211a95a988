"""Valid inequalities for the staged MILP's budget and power rows (issue 37, item 2; issue 38).

Why: with a binding capital budget and hall power limit, the LP relaxation buys fractions of
servers (3.64 b200 servers in a year whose $2M budget pays for 3) and the MILP's branch and
bound spends its time closing that gap: the three-type fleet of bench/staged.py searched
4,441 nodes in its first cutting-plane round (58 s CPU). Each budget row and each month's power
row is a knapsack over integer server counts; the facets of that knapsack's integer hull,
added as rows, cut the fractional purchases off before branching (the same case: 49 nodes,
0.7 s). They remove no schedule: every integer point of the knapsack lies in its integer hull,
and each facet is checked, in exact integer arithmetic, against every integer point of a
slightly larger knapsack (capacity plus a tolerance above HiGHS's feasibility tolerance), so
no schedule the MILP accepts today is cut off and the optimum is unchanged.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.spatial import ConvexHull

# a knapsack is enumerated only up to this many candidate points (the product of each
# group's count bound plus one); a larger one gets no hull rows, as before issue 38
MAX_POINTS = 20_000
# points within this relative slack of the capacity count as inside: a superset of what
# HiGHS accepts (primal feasibility tolerance 1e-7 absolute on rows of size ~ capacity)
SLACK = 1e-6


def knapsack_points(weights, capacity: float) -> list[tuple[int, ...]]:
    """Every nonnegative integer point of a knapsack.

    Parameters
    ----------
    weights : sequence of float
        Positive weight of one unit of each group [the row's unit].
    capacity : float
        The row's bound [the row's unit].

    Returns
    -------
    list of tuple of int
        The points n >= 0 with w . n <= C (1 + SLACK), or an empty list when there are more
        than MAX_POINTS candidates.

    Notes
    -----
    .. math:: P = \\{ n \\in \\mathbb{Z}^g_{\\ge 0} : \\sum_i w_i n_i \\le C (1 + \\epsilon) \\}

    with each n_i <= floor(C (1 + eps) / w_i).
    """
    cap = capacity * (1 + SLACK) + SLACK
    if cap < 0:
        return []
    top = [int(math.floor(cap / w)) for w in weights]
    if math.prod(t + 1 for t in top) > MAX_POINTS:
        return []
    return [p for p in itertools.product(*(range(t + 1) for t in top))
            if float(np.dot(weights, p)) <= cap]


def knapsack_facets(weights, capacity: float) -> list[tuple[tuple[int, ...], int]]:
    """The facets of a knapsack's integer hull that join at least two groups.

    Parameters
    ----------
    weights : sequence of float
        Positive weight of one unit of each group (at least two groups).
    capacity : float
        The knapsack's capacity.

    Returns
    -------
    list of (tuple of int, int)
        (a, c) of each inequality a . n <= c, integer a >= 0 with two or more nonzero entries,
        sorted; each holds at every point of :func:`knapsack_points` (checked exactly).

    Notes
    -----
    The integer hull conv(P) of the points P of :func:`knapsack_points` is
    {n : a_k . n <= c_k for each facet k}. A facet's coefficients come from qhull in floating
    point; they are rounded to integers (through fractions of denominator at most 1,000) and
    c is then set to max_{n in P} a . n in integer arithmetic, so a rounding can only weaken a
    row, never make it cut off an integer point. Facets with one nonzero entry are bounds
    the knapsack row already implies for integer n and are left out.
    """
    points = knapsack_points(weights, capacity)
    if len(points) < len(weights) + 1:
        return []
    P = np.array(points, dtype=np.int64)
    try:
        hull = ConvexHull(P.astype(float))
    except Exception:          # the points lie in a lower-dimensional set: no facet to add
        return []
    found = set()
    for eq in hull.equations:          # a . n + b <= 0 inside
        a = eq[:-1]
        if np.any(a < -1e-9) or np.count_nonzero(a > 1e-9) < 2:
            continue
        scale = float(np.max(a))
        fracs = [Fraction(float(v) / scale).limit_denominator(1000) for v in a]
        den = math.lcm(*(f.denominator for f in fracs))
        coef = np.array([int(f * den) for f in fracs], dtype=np.int64)
        if np.count_nonzero(coef) < 2:
            continue
        g = math.gcd(*(int(v) for v in coef))
        coef //= g
        # the least c valid at every point, exactly: a rounded facet stays valid
        found.add((tuple(int(v) for v in coef), int((P @ coef).max())))
    return sorted(found)


def hull_rows(units: list[sp.csr_matrix], weights: list[float], capacity: np.ndarray,
              held: list[np.ndarray]) -> tuple[sp.csr_matrix, np.ndarray]:
    """Integer-hull rows for a block of knapsack rows over groups of integer counts.

    Parameters
    ----------
    units : list of scipy.sparse.csr_matrix
        Per group g, U_g (r, nvars): the group's count in each row per unit of each variable
        (integer: servers bought, sold or online).
    weights : list of float
        Per group g, w_g > 0: the row's unit per count [currency or kW].
    capacity : numpy.ndarray
        Each row's capacity C_r over all counts, held ones included (r,).
    held : list of numpy.ndarray
        Per group g, h_g: its count in each row that no variable holds (r,).

    Returns
    -------
    rows : scipy.sparse.csr_matrix
        The hull rows (k, nvars).
    upper : numpy.ndarray
        Their upper bounds (k,).

    Notes
    -----
    Row r of the block reads sum_g w_g N_{g,r} <= C_r with N_{g,r} = h_{g,r} + (U_g x)_r an
    integer count, nonnegative in every schedule (no cohort sells more than it has). For each
    facet a . N <= c of that knapsack over the groups present in the row
    (:func:`knapsack_facets`):

    .. math:: \\sum_g a_g (U_g x)_r \\le c - \\sum_g a_g h_{g,r}
    """
    nvars = units[0].shape[1] if units else 0
    out_rows, out_hi = [], []
    for r in range(len(capacity)):
        rows_g = [u.getrow(r) for u in units]
        present = [g for g, u in enumerate(rows_g) if u.nnz]
        if len(present) < 2 or not math.isfinite(capacity[r]):
            continue
        for a, c in knapsack_facets([weights[g] for g in present], float(capacity[r])):
            row = sp.csr_matrix((1, nvars))
            for ai, g in zip(a, present):
                row = row + ai * rows_g[g]
            out_rows.append(row)
            out_hi.append(c - sum(ai * float(held[g][r]) for ai, g in zip(a, present)))
    if not out_rows:
        return sp.csr_matrix((0, nvars)), np.zeros(0)
    return sp.vstack(out_rows, format="csr"), np.array(out_hi, dtype=float)
