"""Capacity a plan holds, month by month: cohorts of servers and of committed GPUs.

A *cohort* is one decision with its own dates: servers bought in a month (online after the lead
time, sold at the end of their useful life or of the horizon), or GPUs committed under one offer
from a month for a term. Every strategy is a set of cohorts. The static strategies hold one
level for the whole horizon (:func:`static_plan`: a chain of generations or renewals); the staged
plan varies it; contracts and servers held before the plan are cohorts that start before
month 0. The cost rules (models/costs.py) price any set of cohorts, so they are written once.
Month indices are 0-based from the plan's first month.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from models.scenario import Scenario


@dataclass(frozen=True)
class Capacity:
    """A static decision: servers and committed GPUs per offer held for the whole horizon."""

    servers: int = 0
    committed: dict[str, int] = field(default_factory=dict)
    use_spot: bool = True

    def key(self) -> tuple:
        """Identity of the decision: zero commitments are the same as none."""
        return (self.servers, tuple(sorted((k, v) for k, v in self.committed.items() if v)),
                self.use_spot)


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


@dataclass(frozen=True)
class CommitmentCohort:
    """``gpus`` GPUs committed under offer ``offer`` for ``term`` months from month ``start``."""

    offer: str
    gpus: int
    start: int
    term: int
    rate: Optional[float] = None      # per GPU-hour ex VAT; None: the offer's rate at signing
    payment: Optional[str] = None     # none | partial | all; None: the offer's


@dataclass(frozen=True)
class CapacityPlan:
    """Every cohort of a strategy, and whether interruptible overflow may run on spot."""

    servers: tuple[ServerCohort, ...] = ()
    commitments: tuple[CommitmentCohort, ...] = ()
    use_spot: bool = True

    def servers_online(self, months: int) -> np.ndarray:
        """Servers taking work in each month [servers, (months,)]."""
        out = np.zeros(months)
        for c in self.servers:
            out[max(c.online, 0):max(min(c.sold, months), 0)] += c.count
        return out

    def committed_gpus(self, months: int) -> np.ndarray:
        """GPUs under commitment in each month [GPUs, (months,)]."""
        out = np.zeros(months)
        for c in self.commitments:
            out[max(c.start, 0):max(min(c.start + c.term, months), 0)] += c.gpus
        return out

    def committed_by_offer(self, months: int) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for c in self.commitments:
            row = out.setdefault(c.offer, np.zeros(months))
            row[max(c.start, 0):max(min(c.start + c.term, months), 0)] += c.gpus
        return out


def server_chain(s: Scenario, count: int, horizon: int) -> tuple[ServerCohort, ...]:
    """``count`` servers from month 0, replaced at the end of each useful life.

    The first generation takes work after the lead time; replacements are ordered ahead and
    take work at once (but never before the first generation could have).
    """
    if count <= 0:
        return ()
    o = s.owned
    life, lead = o.useful_life_months, o.lead_time_months
    return tuple(ServerCohort(count, start, max(start, lead), min(start + life, horizon))
                 for start in range(0, horizon, life))


def commitment_chain(s: Scenario, offer_id: str, gpus: int, horizon: int
                     ) -> tuple[CommitmentCohort, ...]:
    """``gpus`` committed from month 0 and renewed at each term end while the horizon lasts."""
    if gpus <= 0:
        return ()
    term = next(o.term_months for o in s.commitments if o.id == offer_id)
    return tuple(CommitmentCohort(offer_id, gpus, start, term)
                 for start in range(0, horizon, term))


def static_plan(s: Scenario, capacity: Capacity, horizon: int) -> CapacityPlan:
    """The cohorts of a static decision."""
    commitments: tuple[CommitmentCohort, ...] = ()
    for offer in s.commitments:
        commitments += commitment_chain(s, offer.id, capacity.committed.get(offer.id, 0),
                                        horizon)
    return CapacityPlan(server_chain(s, capacity.servers, horizon), commitments,
                        capacity.use_spot)
