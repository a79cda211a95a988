"""Capacity a plan holds, month by month: cohorts of servers and of committed GPUs.

A *cohort* is one decision with its own dates: servers bought in a month (online after the lead
time, sold at the end of their useful life or of the horizon), or GPUs committed under one offer
from a month for a term. Every strategy is a set of cohorts. The static strategies hold one
level for the whole horizon (models/static_cohorts.py: a chain of generations or renewals); the
staged plan varies it (models/schedule_cohorts.py); contracts and servers held before the plan
are cohorts that start before month 0. The cost rules (models/costs.py) price any set of
cohorts, so they are written once. Month indices are 0-based from the plan's first month.

This module holds the records (a static decision, the two kinds of cohort, a plan of cohorts),
month indices and the union of plans.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.fleet import default_type
from models.scenario import Scenario


@dataclass(frozen=True)
class Capacity:
    """A static decision: servers and committed GPUs per offer held for the whole horizon."""

    servers: int = 0
    committed: dict[str, int] = field(default_factory=dict)
    use_spot: bool = True
    servers_by_type: dict[str, int] = field(default_factory=dict)  # fleet scenarios (issue 26)

    def key(self) -> tuple:
        """Identity of the decision: zero commitments are the same as none.

        Returns
        -------
        tuple
            (servers, sorted (offer id, GPUs) pairs with GPUs > 0, use_spot), and the sorted
            (type id, servers) pairs with servers > 0 when there are any.
        """
        key = (self.servers, tuple(sorted((k, v) for k, v in self.committed.items() if v)),
               self.use_spot)
        by_type = tuple(sorted((k, v) for k, v in self.servers_by_type.items() if v))
        return key + (by_type,) if by_type else key

    @property
    def server_count(self) -> int:
        """Servers of every type the decision holds.

        Returns
        -------
        int
            Servers [servers].

        Notes
        -----
        n = servers + sum_type servers_by_type[type] [servers].
        """
        return self.servers + sum(self.servers_by_type.values())

    def counts(self, s: Scenario) -> dict:
        """Servers per type id.

        Parameters
        ----------
        s : Scenario
            The scenario (its first server type takes ``servers``).

        Returns
        -------
        dict
            Type id to servers [servers], types without any left out.

        Notes
        -----
        n_type = servers_by_type[type] for each type with servers, plus ``servers`` (the one-type
        shorthand) added to the first type's (:func:`models.fleet.default_type`) [servers].
        """
        out = {k: v for k, v in self.servers_by_type.items() if v}
        if self.servers:
            key = default_type(s)
            out[key] = out.get(key, 0) + self.servers
        return out


@dataclass(frozen=True)
class ServerCohort:
    """``count`` servers bought at the start of month ``bought``, taking work from month
    ``online`` and sold at the end of month ``sold - 1``."""

    count: int
    bought: int
    online: int
    sold: int
    price: Optional[float] = None    # per server; None: the price book's price at ``bought``
    install: Optional[float] = None  # per server; None: the scenario's install cost
    type: Optional[str] = None       # server type id; None: ``owned`` (no server types)


@dataclass(frozen=True)
class CommitmentCohort:
    """``gpus`` GPUs committed under offer ``offer`` for ``term`` months from month ``start``."""

    offer: str
    gpus: int
    start: int
    term: int
    rate: Optional[float] = None      # per GPU-hour ex VAT; None: the offer's rate at signing
    payment: Optional[str] = None     # none | partial | all; None: the offer's
    market: str = "cloud"             # whose exchange rate converts it (prices.PriceBook.fx)


@dataclass(frozen=True)
class CapacityPlan:
    """Every cohort of a strategy, and whether interruptible overflow may run on spot."""

    servers: tuple[ServerCohort, ...] = ()
    commitments: tuple[CommitmentCohort, ...] = ()
    use_spot: bool = True

    def servers_online(self, months: int) -> np.ndarray:
        """Servers taking work in each month.

        Parameters
        ----------
        months : int
            Months to count from month 0 [months].

        Returns
        -------
        numpy.ndarray
            Servers online [servers, (months,)].

        Notes
        -----
        n(m) = sum over server cohorts k with online_k <= m < sold_k of count_k, for m = 0..months-1
        [servers].
        """
        out = np.zeros(months)
        for c in self.servers:
            out[max(c.online, 0):max(min(c.sold, months), 0)] += c.count
        return out

    def servers_online_by_type(self, months: int) -> dict:
        """Servers taking work in each month, by type.

        Parameters
        ----------
        months : int
            Months to count from month 0 [months].

        Returns
        -------
        dict
            Type id (None without server types) to servers online [servers, (months,)]; a type
            appears when the plan has a cohort of it.

        Notes
        -----
        n_type(m) = sum over the type's server cohorts k with online_k <= m < sold_k of count_k
        [servers].
        """
        out: dict = {}
        for c in self.servers:
            row = out.setdefault(c.type, np.zeros(months))
            row[max(c.online, 0):max(min(c.sold, months), 0)] += c.count
        return out

    def committed_gpus(self, months: int) -> np.ndarray:
        """GPUs under commitment in each month, every offer together.

        Parameters
        ----------
        months : int
            Length of the result, from month 0 [months].

        Returns
        -------
        numpy.ndarray
            Committed GPUs [GPUs, (months,)].

        Notes
        -----
        c(m) = sum over cohorts k with start_k <= m < start_k + term_k of gpus_k, for m =
        0..months-1 [GPUs].
        """
        out = np.zeros(months)
        for c in self.commitments:
            out[max(c.start, 0):max(min(c.start + c.term, months), 0)] += c.gpus
        return out

    def committed_by_offer(self, months: int) -> dict[str, np.ndarray]:
        """GPUs under commitment in each month, by offer.

        Parameters
        ----------
        months : int
            Length of each row, from month 0 [months]; a cohort signed before the plan counts
            from month 0.

        Returns
        -------
        dict of str to numpy.ndarray
            Offer id to committed GPUs [GPUs, (months,)]; an offer appears only when the plan
            has a cohort of it.

        Notes
        -----
        c_o(m) = sum over cohorts k of offer o with start_k <= m < start_k + term_k of gpus_k, for
        m = 0..months-1 [GPUs].
        """
        out: dict[str, np.ndarray] = {}
        for c in self.commitments:
            row = out.setdefault(c.offer, np.zeros(months))
            row[max(c.start, 0):max(min(c.start + c.term, months), 0)] += c.gpus
        return out


def month_index(month: str, first_month: str) -> int:
    """Months from the plan's first month to a month.

    Parameters
    ----------
    month : str
        The month, ``'YYYY-MM'``.
    first_month : str
        The plan's first month, ``'YYYY-MM'``.

    Returns
    -------
    int
        0-based month index; negative before the plan [months].

    Notes
    -----
    i = (12 y + m) - (12 y_0 + m_0), (y, m) the month's year and month, (y_0, m_0) the plan's first
    [months].

    Examples
    --------
    >>> month_index("2026-11", "2027-01")
    -2
    """
    return int((np.datetime64(month, "M") - np.datetime64(first_month, "M")).astype(int))


def combined(*plans: CapacityPlan, use_spot: bool = True) -> CapacityPlan:
    """Every cohort of several plans in one.

    Parameters
    ----------
    *plans : CapacityPlan
        The plans, in order.
    use_spot : bool, default True
        Whether the combined plan may send interruptible overflow to spot.

    Returns
    -------
    CapacityPlan
        Their server cohorts and commitment cohorts, concatenated.
    """
    return CapacityPlan(sum((p.servers for p in plans), ()),
                        sum((p.commitments for p in plans), ()), use_spot)
