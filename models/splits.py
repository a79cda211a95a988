"""The cheapest split of a committed total over the commitment offers, in whole blocks.

A min-cost coin change: totals are counted in steps of g = gcd of the block sizes. Tables are
built by dynamic programming up to a threshold and extended by the most cost-efficient offer
beyond it, so a total of millions of GPUs costs no more than a small one.

Why the extension is exact: let k* be the offer with the lowest PV per GPU and P its block in
steps. P blocks of any other offer j (P b_j steps) can be replaced by b_j blocks of k* at no
higher cost, so some optimal split uses each other offer fewer than P times, and its other
offers add up to less than T = sum_j (P - 1) b_j steps. Every total above T therefore has an
optimal split with a block of k*: cost(i) = cost(i - P) + cost of one k* block.
"""
from __future__ import annotations

import math
from functools import reduce
from typing import Sequence

import numpy as np

from models.scenario_cloud import CommitmentOffer


class CommitmentSplits:
    """Cheapest split of every committed total 0, g, 2g, ... (index i = total / g)."""

    def __init__(self, offers: Sequence[CommitmentOffer], pv_per_gpu: dict[str, float],
                 outlay_per_gpu: dict[str, float]):
        self.offers = list(offers)
        if not self.offers:
            self.step, self.period, self.last = 1, 1, 0
            self.cost, self.outlay = np.zeros(1), np.zeros(1)
            self.counts = np.zeros((1, 0), dtype=np.int64)
            return
        g = reduce(math.gcd, [o.block_gpus for o in self.offers])
        blocks = [o.block_gpus // g for o in self.offers]
        price = [pv_per_gpu[o.id] * o.block_gpus for o in self.offers]
        spend = [outlay_per_gpu[o.id] * o.block_gpus for o in self.offers]
        unit = [p / b for p, b in zip(price, blocks)]
        cheapest = min(unit)
        tied = [j for j in range(len(blocks))
                if unit[j] <= cheapest + 1e-9 * max(1.0, abs(cheapest))]
        best = min(tied, key=lambda j: spend[j] / blocks[j])   # ties: the smaller outlay
        period = blocks[best]
        threshold = sum((period - 1) * b for j, b in enumerate(blocks) if j != best)
        last = threshold + period
        cost, outlay = np.full(last + 1, np.inf), np.full(last + 1, np.inf)
        cost[0] = outlay[0] = 0.0
        choice = np.full(last + 1, -1)
        for i in range(1, last + 1):
            for j, b in enumerate(blocks):
                if b <= i and np.isfinite(cost[i - b]):
                    c, a = cost[i - b] + price[j], outlay[i - b] + spend[j]
                    tol = 1e-9 * max(1.0, abs(c))
                    if c < cost[i] - tol or (abs(c - cost[i]) <= tol and a < outlay[i]):
                        cost[i], outlay[i], choice[i] = c, a, j
        counts = np.zeros((last + 1, len(blocks)), dtype=np.int64)
        for i in range(1, last + 1):
            if choice[i] >= 0:
                counts[i] = counts[i - blocks[choice[i]]]
                counts[i, choice[i]] += 1
        self.step, self.period, self.last, self.best = g, period, last, best
        self.cost, self.outlay, self.counts = cost, outlay, counts
        self.block_price, self.block_spend = price[best], spend[best]

    def levels(self, c_max: int) -> int:
        """How many committed totals 0, g, 2g, ... it takes to reach c_max GPUs.

        Parameters
        ----------
        c_max : int
            Largest committed total wanted [GPUs].

        Returns
        -------
        int
            Number of totals, 1 with no offer; the last one may pass c_max, since a block is bought
            whole.

        Notes
        -----
        levels = ceil(c_max / g) + 1, g the step between totals [GPUs]; 1 with no offer.
        """
        return -(-c_max // self.step) + 1 if self.offers else 1

    def at(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cheapest splits of committed totals ``index`` x g.

        Parameters
        ----------
        index : numpy.ndarray
            Totals in steps of g [steps of g GPUs, (k,)].

        Returns
        -------
        cost : numpy.ndarray
            PV cost of each total's cheapest split, inf for a total no split reaches
            [currency, (k,)].
        outlay : numpy.ndarray
            Its upfront outlay [currency, (k,)].
        counts : numpy.ndarray
            Its blocks per offer [blocks, (k, offers)].

        Notes
        -----
        For total index i (i x g GPUs, g the step [GPUs]): with L the last tabulated index and p the
        period of the cheapest offer's block [indices], e = ceil((i - L) / p) when i > L else 0
        extra blocks of that offer, i0 = i - e p: cost(i) = cost_table[i0] + e x block_price,
        outlay(i) = outlay_table[i0] + e x block_spend [currency]. Without an offer cost(0) = 0 and
        cost(i > 0) = inf.
        """
        index = np.asarray(index, dtype=np.int64)
        if not self.offers:
            return (np.where(index == 0, 0.0, np.inf), np.zeros(len(index)),
                    np.zeros((len(index), 0), dtype=np.int64))
        extra = np.where(index > self.last, -(-(index - self.last) // self.period), 0)
        base = index - extra * self.period
        cost = self.cost[base] + extra * (self.block_price if self.offers else 0.0)
        outlay = self.outlay[base] + extra * (self.block_spend if self.offers else 0.0)
        counts = self.counts[base].copy()
        if self.offers:
            counts[:, self.best] += extra
        return cost, outlay, counts

    def split(self, index: int) -> dict[str, int]:
        """GPUs per offer of the cheapest split of total ``index`` x g.

        Parameters
        ----------
        index : int
            The total in steps of g [steps of g GPUs].

        Returns
        -------
        dict of str to int
            Offer id to committed GPUs [GPUs].

        Notes
        -----
        GPUs_o = blocks_o x block_gpus_o for each offer o of :meth:`at`'s cheapest split [GPUs].
        """
        _, _, counts = self.at(np.array([index]))
        return {o.id: int(n * o.block_gpus) for o, n in zip(self.offers, counts[0])}
