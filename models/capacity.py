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

from models.fleet import FleetType, default_type, fleet_types
from models.refusals import Refusal
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

    def counts(self, s: Scenario) -> dict:
        """Servers per type id (None: the one type of a scenario without server types).

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


def server_chain(s: Scenario, count: int, horizon: int, kind: Optional[FleetType] = None
                 ) -> tuple[ServerCohort, ...]:
    """``count`` servers from month 0, replaced at the end of each useful life.

    Parameters
    ----------
    s : Scenario
        The scenario (useful life and lead time of ``owned``).
    count : int
        Servers of each generation [servers]; 0 or less is none.
    horizon : int
        Months of the horizon [months]; the last generation is sold at its end.
    kind : FleetType, optional
        The server type (its life, lead time and window); None: ``owned``.

    Returns
    -------
    tuple of ServerCohort
        One cohort per generation, in purchase order; with a type, only the generations that
        start while it can be bought (a type no longer sold is not replaced).

    Notes
    -----
    Generation j is bought at b_j = j U, j = 0, 1, ... while b_j < H, online at b_j + L and sold
    at min(b_j + U, H), with U the useful life, L the lead time and H the horizon [months]; a
    type's generations only where it can be bought (:meth:`models.fleet.FleetType.can_buy`).
    Every generation, like any purchase, takes work after the lead time (the staged plan can
    order a replacement ahead to avoid the gap).
    """
    if count <= 0:
        return ()
    o = s.owned if kind is None else kind.owned
    life, lead = o.useful_life_months, o.lead_time_months
    if kind is None or kind.id is None:
        return tuple(ServerCohort(count, start, start + lead, min(start + life, horizon))
                     for start in range(0, horizon, life))
    return tuple(ServerCohort(count, start, start + lead, min(start + life, horizon),
                              type=kind.id)
                 for start in range(0, horizon, life) if kind.can_buy(start))


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


def position_plan(s: Scenario, first_month: str, horizon: int, vat: float = 1.0
                  ) -> CapacityPlan:
    """What the team holds at the start of the plan.

    Parameters
    ----------
    s : Scenario
        The scenario (its ``position``).
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    horizon : int
        Months of the horizon [months].
    vat : float, default 1.0
        1 + VAT rate when cloud prices are entered with VAT, else 1; signed rates are divided by
        it [-].

    Returns
    -------
    CapacityPlan
        Owned servers keep their age and retire at the end of their useful life; signed
        commitments run to their end. Cohorts that ended before the plan are left out.

    Notes
    -----
    A held server cohort bought in month b (:func:`month_index`) goes online at b + lead and is
    retired at sold = min(b + life, H) [months], kept when sold > 0; a held contract starting at s
    runs s .. s + T - 1, kept when s + T > 0, at its rate / v (v the VAT divisor) [currency per
    GPU-hour].
    """
    kinds = {k.id: k for k in fleet_types(s, first_month)}
    servers = []
    for held in s.position.servers:
        type_id = held.type or default_type(s)
        o = kinds[type_id].owned
        bought = month_index(held.purchased, first_month)
        sold = min(bought + o.useful_life_months, horizon)
        if sold > 0:
            servers.append(ServerCohort(held.count, bought, bought + o.lead_time_months, sold,
                                        price=held.price, install=held.install_cost,
                                        type=type_id))
    commitments = []
    for c in s.position.commitments:
        start = month_index(c.start, first_month)
        if start + c.term_months > 0:
            commitments.append(CommitmentCohort(c.id, c.gpus, start, c.term_months,
                                                rate=c.price_per_gpu_hour / vat,
                                                payment=c.payment,
                                                market=s.commitment_market(c)))
    return CapacityPlan(tuple(servers), tuple(commitments))


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


def commitment_chain(s: Scenario, offer_id: str, gpus: int, horizon: int
                     ) -> tuple[CommitmentCohort, ...]:
    """``gpus`` committed from month 0 and renewed at each term end while the horizon lasts.

    Parameters
    ----------
    s : Scenario
        The scenario (the offer's term).
    offer_id : str
        Id of the commitment offer.
    gpus : int
        Committed GPUs of each term [GPUs]; 0 or less is none.
    horizon : int
        Months of the horizon [months].

    Returns
    -------
    tuple of CommitmentCohort
        One cohort per term, in order.

    Notes
    -----
    Cohort j starts at start_j = j T, j = 0, 1, ... while start_j < H, each of ``gpus`` GPUs for
    the offer's term T [months]; H the horizon [months].
    """
    if gpus <= 0:
        return ()
    term = next(o.term_months for o in s.commitments if o.id == offer_id)
    return tuple(CommitmentCohort(offer_id, gpus, start, term)
                 for start in range(0, horizon, term))


def static_plan(s: Scenario, capacity: Capacity, horizon: int,
                position: CapacityPlan = CapacityPlan(), first_month: Optional[str] = None
                ) -> CapacityPlan:
    """The cohorts of a static decision, on top of the position.

    Parameters
    ----------
    s : Scenario
        Scenario (offers, useful life, lead time).
    capacity : Capacity
        Servers and committed GPUs per offer held for the whole horizon.
    horizon : int
        Months of the horizon [months].
    position : CapacityPlan, optional
        What the team holds at the start; none by default.
    first_month : str, optional
        The plan's first month, ``'YYYY-MM'``: places the buying windows of server types
        (required with ``server_types``).

    Returns
    -------
    CapacityPlan
        The position, a chain of server generations per type and a chain of renewals per
        offer.

    Notes
    -----
    cohorts = position + :func:`server_chain` of each type's count + :func:`commitment_chain` of
    each offer's committed GPUs (a static decision renewed for the whole horizon).
    """
    commitments: tuple[CommitmentCohort, ...] = ()
    for offer in s.commitments:
        commitments += commitment_chain(s, offer.id, capacity.committed.get(offer.id, 0),
                                        horizon)
    if not s.server_types:
        servers = server_chain(s, capacity.servers, horizon)
    else:
        if first_month is None:
            raise ValueError("static_plan: a scenario with server types needs first_month")
        counts = capacity.counts(s)
        servers = sum((server_chain(s, counts.get(k.id, 0), horizon, k)
                       for k in fleet_types(s, first_month)), ())
    return combined(position, CapacityPlan(servers, commitments), use_spot=capacity.use_spot)


class ScheduleError(Refusal):
    """A schedule that cannot be carried out (selling servers not held, a month outside)."""


def schedule_plan(s: Scenario, decisions, first_month: str, horizon: int,
                  position: CapacityPlan = CapacityPlan(), use_spot: bool = True
                  ) -> CapacityPlan:
    """The cohorts of a schedule of decisions on top of the position.

    Parameters
    ----------
    s : Scenario
        Scenario (offer terms, useful life, lead time).
    decisions : iterable of models.scenario_schedule.Decision
        The schedule: in each month, servers to buy or sell and GPUs to commit per offer.
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    horizon : int
        Months of the horizon [months].
    position : CapacityPlan, optional
        What the team holds at the start; none by default.
    use_spot : bool, default True
        May interruptible overflow run on spot?

    Returns
    -------
    CapacityPlan
        Servers bought in a month take work after the lead time and retire at the end of their
        useful life; sold servers leave at the start of the month of the sale (oldest first
        unless ``sell_from`` names their purchase months); commitments run their term.

    Raises
    ------
    ScheduleError
        A decision month outside the plan, or a sale of more servers than are held (or than
        are held from the months named).

    Notes
    -----
    A purchase in month m of a type with lead time L and useful life U [months]: online = m + L,
    sold = min(m + U, H), H the horizon; a sale in month m ends the sold cohorts at m; a
    commitment signed in month m runs m .. m + T - 1, T its offer's term [months].
    """
    kinds = {k.id: k for k in fleet_types(s, first_month)}
    default = default_type(s)
    terms = {offer.id: offer.term_months for offer in s.commitments}
    held: list[list] = [[c.bought, c.online, c.sold, c.count, c.price, c.install, c.type]
                        for c in position.servers]
    sold_cohorts: list[ServerCohort] = []
    commitments: list[CommitmentCohort] = []
    for d in sorted(decisions, key=lambda d: d.month):
        m = month_index(d.month, first_month)
        if not 0 <= m < horizon:
            raise ScheduleError(f"schedule month {d.month} is outside the plan "
                                f"({first_month} and {horizon} months)")
        sales = _by_type(d.sell_servers, d.sell, default)
        if sales and m == 0:
            # a sale is booked at the end of the month before it (when the servers leave):
            # for the first month that is before the plan, where no cash of it is counted
            raise ScheduleError(f"schedule month {d.month}: servers cannot be sold in the "
                                "plan's first month (a sale is booked at the end of the month "
                                "before it); sell them from the second month, or leave "
                                "servers sold before the plan out of position.servers")
        for type_id, count in sales:
            _sell(held, sold_cohorts, d, m, type_id, count, first_month, default)
        for type_id, count in _by_type(d.buy_servers, d.buy, default):
            kind = kinds[type_id]
            if not kind.can_buy(m):
                raise ScheduleError(f"schedule month {d.month}: server type {type_id} cannot "
                                    "be bought then (available_from, available_until)")
            o = kind.owned
            held.append([m, m + o.lead_time_months, min(m + o.useful_life_months, horizon),
                         count, None, None, type_id])
        for offer_id, gpus in d.commit.items():
            if gpus:
                commitments.append(CommitmentCohort(offer_id, gpus, m, terms[offer_id]))
    servers = tuple(ServerCohort(c[3], c[0], c[1], c[2], c[4], c[5], c[6])
                    for c in held if c[3])
    return CapacityPlan(servers + tuple(sold_cohorts),
                        position.commitments + tuple(commitments), use_spot)


def _by_type(shorthand: int, by_type: dict, default: Optional[str]) -> list[tuple]:
    """A decision's servers per type: the one-type shorthand counts for the first type."""
    out = {default: shorthand} if shorthand else {}
    for type_id, count in by_type.items():
        if count:
            out[type_id] = out.get(type_id, 0) + count
    return list(out.items())


def _sell(held: list[list], sold_cohorts: list, d, m: int, type_id: Optional[str], count: int,
          first_month: str, default: Optional[str]) -> None:
    """Sell ``count`` servers of a type at month ``m``: oldest first, or from the purchase
    months ``sell_from`` names (``type:YYYY-MM`` keys, or plain months for the first type)."""
    wanted = None
    if d.sell_from:
        wanted = {}
        for key, n in d.sell_from.items():
            kind, _, month = key.rpartition(":")
            if (kind or default) == type_id:
                wanted[month] = n
    left = count
    for cohort in sorted(held, key=lambda h: h[0]):
        if left <= 0:
            break
        if cohort[6] != type_id or cohort[2] <= m or cohort[3] <= 0 or cohort[0] >= m:
            continue                       # another type, retired, empty, or not yet bought
        label = str(np.datetime64(first_month, "M") + cohort[0])
        take = min(cohort[3], left) if wanted is None else min(cohort[3], wanted.get(label, 0))
        if take:
            sold_cohorts.append(ServerCohort(take, cohort[0], cohort[1], m, cohort[4],
                                             cohort[5], cohort[6]))
            cohort[3] -= take
            left -= take
            if wanted is not None:
                wanted[label] -= take
    if left > 0 or (wanted is not None and any(v > 0 for v in wanted.values())):
        what = "servers" if type_id is None else f"{type_id} servers"
        raise ScheduleError(f"schedule month {d.month}: sells {count} {what} but fewer are held "
                            "(or not from the months named)")
