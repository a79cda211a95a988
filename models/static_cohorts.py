"""The cohorts of what is held when the plan starts and of a static strategy: the position's
servers and signed contracts as cohorts that start before month 0, and one static level held
for the whole horizon as a chain of server generations (each bought again after the lead time
at the end of a useful life) and commitment renewals (design 5.1).

Separate from the cohort records (models.capacity) and from a schedule of decisions
(models.schedule_cohorts): these cohorts follow from a count, not from dated decisions.
"""
from __future__ import annotations

from typing import Optional

from models.capacity import (Capacity, CapacityPlan, CommitmentCohort, ServerCohort, combined,
                             month_index)
from models.fleet import FleetType, default_type, fleet_types
from models.scenario import Scenario


def server_chain(s: Scenario, count: int, horizon: int, kind: FleetType
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
    kind : FleetType
        The server type (its life, lead time and window).

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
    life, lead = kind.owned.useful_life_months, kind.owned.lead_time_months
    return tuple(ServerCohort(count, start, start + lead, min(start + life, horizon),
                              type=kind.id)
                 for start in range(0, horizon, life) if kind.can_buy(start))


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
        (required).

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
    if first_month is None:
        raise ValueError("static_plan: the servers' buying windows need first_month")
    counts = capacity.counts(s)
    servers = sum((server_chain(s, counts.get(k.id, 0), horizon, k)
                   for k in fleet_types(s, first_month)), ())
    return combined(position, CapacityPlan(servers, commitments), use_spot=capacity.use_spot)
