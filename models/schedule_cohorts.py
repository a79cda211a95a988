"""A schedule of decisions as cohorts (design 5.3a): each month's purchases, sales (oldest first
within a type, or from the purchase months named) and commitments, on top of the position, and
the refusal of a schedule that cannot be carried out.

Separate from the static strategies' chains (models.static_cohorts) because a schedule's
cohorts come from dated decisions, which the staged and robust plans and the analyst's
proposal give.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.capacity import CapacityPlan, CommitmentCohort, ServerCohort, month_index
from models.fleet import default_type, fleet_types
from models.refusals import Refusal
from models.scenario import Scenario


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
