"""Branch and bound over the robust plan's here-and-now decisions (issue 27).

Once the decisions made now are fixed, the demand paths no longer share anything: each path's
later decisions are its own staged plan with those first decisions held (and the risk
objective, expected PV and CVaR, grows with each path's PV, so each path at its least PV is
the least objective). The extensive form as one stacked MILP ignores that: HiGHS's tree over
it multiplies the paths' near-ties (a server bought a quarter earlier or later in one of nine
paths), and bench/robust.py's nine paths were not proven in 120 s. This search branches only
on the here-and-now decisions; a box of them is bounded by the stacked LP relaxation within
it, and a single point is priced exactly by solving each path alone. Both are exact, so the
search ends with the optimum proven (bench/robust.py --scenarios 9: 133 s and a $1,232 gap
-> under 40 s, gap 0).

The search knows nothing of plans: it gets a relaxation (box -> lower bound and the
relaxation's here-and-now values) and an exact price of a point, and returns the best point
with the bound of what it left open.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

import numpy as np

from models.highs import proven_gap

# a box is pruned when its bound is within this share of the best value: the LP relaxation's
# own tolerances (HiGHS's 1e-7 feasibility on rows of PVs) make a closer claim meaningless
PRUNE_TOLERANCE = 1e-9

Box = tuple[tuple[float, ...], tuple[float, ...]]
Relaxation = Callable[[tuple[float, ...], tuple[float, ...]], tuple[float, Optional[np.ndarray]]]


@dataclass
class SearchResult:
    """The best here-and-now point found and how far the search got."""

    point: Optional[tuple[int, ...]]   # the best point priced; None when none was
    value: float                # its exact objective [currency]
    bound: float                # least bound over what is left open and the priced points'
    # own bounds; = value when proven
    nodes: int                  # boxes bounded
    priced: int                 # points priced exactly
    limited: bool               # stopped at its work limit (boxes or points) with boxes open

    @property
    def gap(self) -> float:
        """Proven distance from ``value`` to the optimum [currency]; 0 when the search ended.

        Returns
        -------
        float
            ``value - bound``, at least 0; exactly 0 when the bound proves the value
            (:func:`models.highs.proves`: a gap that rounds to $0.00 is a proof, said as one,
            whichever floating-point path the solves took).

        Notes
        -----
        gap = max(value - bound, 0), 0 when :func:`models.highs.proves` (bound, value)
        (:func:`models.highs.proven_gap`) [currency].
        """
        return proven_gap(self.bound, self.value)


def search(relaxation: Relaxation, price: Callable[[tuple[int, ...]], float],
           lower: Iterable[float], upper: Iterable[float],
           starts: Iterable[tuple[int, ...]] = (), boxes: float = math.inf,
           points: float = math.inf,
           tolerance: float = PRUNE_TOLERANCE) -> SearchResult:
    """Least ``price`` over the integer points of a box, best bound first.

    Parameters
    ----------
    relaxation : callable
        ``(lo, hi) -> (bound, values)``: a lower bound of ``price`` over the integer points
        with ``lo <= point <= hi`` (``inf`` when there are none) and the relaxation's
        optimum's coordinates (None when infeasible).
    price : callable
        ``point -> (value, lower)``: the objective of the best completion of one point (a
        tuple of ints) and a lower bound of its least (the same when proven); ``inf`` where
        the point has no feasible completion.
    lower, upper : iterable of float
        The box to search (``upper`` may be ``inf``).
    starts : iterable of tuple of int, default ()
        Points priced first: their best is the first incumbent.
    boxes : float, default inf
        Boxes to bound at most; then stop with what is open (a work limit: never wall time,
        so the same problem stops at the same place on every machine).
    points : float, default inf
        Points to price at most (each price is a solve per path); then stop likewise.
    tolerance : float, default PRUNE_TOLERANCE
        A box whose bound is within this share of the incumbent's value is pruned.

    Returns
    -------
    SearchResult
        The best point; ``bound`` is its value when every box was pruned or priced.

    Notes
    -----
    Result: value = min over priced points x of price(x); bound = min(value, the least bound of the
    boxes left open and of each priced point's own bound) [currency].
    Every box is bounded first (and dropped when its relaxation is infeasible or no lower
    than the incumbent, bound >= value - tol x max(1, |value|)). A box whose relaxation is
    fractional in a coordinate k is split there (x_k <= floor(a_k) and x_k >= floor(a_k) + 1).
    One whose relaxation is integral has that point priced; it is then split around it in its
    first coordinate of some width: below the point, at it, above it. A box of one point is
    priced. Every split covers its box, so when the queue is empty the incumbent is the least
    price of the whole box. A start is priced only where the relaxation of its one-point box is
    feasible (a price is asked only of feasible points).
    """
    lo0, hi0 = tuple(float(v) for v in lower), tuple(float(v) for v in upper)
    priced: dict[tuple[int, ...], tuple[float, float]] = {}
    best: list = [math.inf, None]

    def value(point: tuple[int, ...]) -> None:
        if point not in priced:
            priced[point] = price(point)
            if priced[point][0] < best[0]:
                best[:] = [priced[point][0], point]

    for point in starts:     # priced only where the relaxation says the point is feasible
        point = tuple(int(v) for v in point)
        if (all(a <= v <= b for a, v, b in zip(lo0, point, hi0))
                and relaxation(tuple(map(float, point)), tuple(map(float, point)))[1]
                is not None):
            value(point)
    heap: list = [(-math.inf, 0, (lo0, hi0))]
    count, nodes, limited = 1, 0, False

    def pruned(bound: float) -> bool:
        return bound >= best[0] - tolerance * max(1.0, abs(best[0]))

    while heap:
        bound, _, (lo, hi) = heap[0]
        if pruned(bound):
            heap.clear()            # best first: every box left is bounded at least as high
            break
        if nodes >= boxes or len(priced) >= points:
            limited = True
            break
        heapq.heappop(heap)
        nodes += 1
        bound, at = relaxation(lo, hi)
        if at is None or pruned(bound):
            continue
        if lo == hi:
            value(tuple(int(v) for v in lo))
            continue
        at = np.asarray(at, float)
        frac = np.abs(at - np.round(at))
        if frac.max() > 1e-6:
            k = int(np.argmax(frac))
            cut = math.floor(at[k])
            kids = [(k, lo[k], cut), (k, cut + 1, hi[k])]
        else:
            point = tuple(int(round(v)) for v in at)
            value(point)
            k = next(k for k in range(len(lo)) if lo[k] < hi[k])
            kids = [(k, lo[k], point[k] - 1), (k, point[k], point[k]), (k, point[k] + 1, hi[k])]
        for k, a, b in kids:
            if a > b:
                continue
            kid_lo, kid_hi = list(lo), list(hi)
            kid_lo[k], kid_hi[k] = float(a), float(b)
            heapq.heappush(heap, (bound, count, (tuple(kid_lo), tuple(kid_hi))))
            count += 1
    # what is left open, and each priced point's own bound (below its value where its
    # completion is not proven optimal)
    bound = min([b for b, _, _ in heap] + [low for _, low in priced.values()],
                default=math.inf)
    return SearchResult(best[1], best[0], min(best[0], bound), nodes, len(priced), limited)
