"""What the team holds after the months with actuals (issue 43, re-plan): the position a plan
made again from the actuals starts from.

An approved strategy is a list of purchases, sales and signings (a static strategy's chain of
server generations and commitment renewals, or a schedule's decisions). Executed through the
last month with actuals, they leave servers (by type, with their purchase month and price) and
commitments (with their start, term and rate) that a new plan must carry as its ``position``.
Owned-fleet actuals may say that purchases or sales went otherwise (a late delivery, another
price): they are given as ``actual`` events and replace the strategy's own through that month.

Pure: the scenario and the strategy's entry of a plan document in, a
:class:`models.scenario_position.Position` out (prices from
:class:`models.prices.PriceBook`, the book the plan was priced with).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from models.capacity import month_index
from models.fleet import default_type, fleet_types
from models.prices import PriceBook
from models.profile import plan_calendar
from models.scenario import Scenario
from models.scenario_position import Position, PositionCommitment, PositionServers


@dataclass(frozen=True)
class ServerEvent:
    """Servers bought (``action`` "buy") or sold ("sell") at the start of ``month``.

    ``price`` and ``install`` are per server in the owned currency (a purchase's; None: the
    plan's price book at that month); ``sell_from`` names the purchase months a sale takes
    from (``'YYYY-MM'``, or ``'type:YYYY-MM'``), else the oldest first."""
    month: str
    action: str
    count: int
    type: Optional[str] = None
    price: Optional[float] = None
    install: Optional[float] = None
    sell_from: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Signing:
    """``gpus`` committed under ``offer`` from ``month`` for ``term_months``, at
    ``price_per_gpu_hour`` as billed (cloud currency, with VAT where cloud prices include it)
    and the offer's upfront ``payment``."""
    month: str
    offer: str
    gpus: int
    term_months: int
    price_per_gpu_hour: float
    payment: str = "none"


def _type_of(s: Scenario, type_id: Optional[str]) -> Optional[str]:
    return type_id or default_type(s)


def planned_events(s: Scenario, entry: Mapping[str, Any], first_month: str, horizon: int
                   ) -> tuple[list[ServerEvent], list[Signing]]:
    """The purchases, sales and signings of one strategy of a plan document, with its prices.

    Parameters
    ----------
    s : Scenario
        The scenario the plan was made of (offers, useful life, server types).
    entry : mapping
        The strategy's entry of the plan document (``doc["strategies"][name]``): a
        ``schedule`` (staged, proposed), else ``servers`` (a count, or by type id) and
        ``committed_gpus`` by offer held for the whole horizon.
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    horizon : int
        Months of the plan's horizon [months].

    Returns
    -------
    events : list of ServerEvent
        Purchases and sales in month order, priced.
    signings : list of Signing
        Commitments signed, in month order, at the rate fixed at signing.

    Notes
    -----
    A static strategy holds its level for the whole horizon (models.static_cohorts.static_plan):
    servers bought in month 0 and replaced at the end of each useful life L (purchases at
    months 0, L, 2L, ... < H, a type only while it can be bought), and each offer's GPUs
    signed at month 0 and renewed at each term end T (0, T, 2T, ... < H). Prices are the
    plan's own: a server bought in month m costs :math:`P (1+g)^{m/12}` (P the server price,
    g the hardware price trend; models.prices.PriceBook.server_price) plus the install cost;
    a signing in month m fixes the rate :math:`r_0 (1+t)^{m/12}` (:math:`r_0` the offer's
    price or the on-demand price less its discount, t the on-demand trend;
    PriceBook.offer_rate), given here as billed (times 1 + VAT when prices include it):

        price_m = P (1 + g)^(m/12) + install,    rate_m = r_0 (1 + t)^(m/12) (1 + v)

    with v the VAT rate where prices include VAT, else 0.
    """
    s = s.as_fleet()
    book = PriceBook(s, plan_calendar(first_month, horizon))
    labels = book.labels
    kinds = {k.id: k for k in fleet_types(s, first_month)}
    offers = {o.id: o for o in s.commitments}

    def buy(m: int, count: int, type_id: Optional[str]) -> ServerEvent:
        type_id = _type_of(s, type_id)
        own = book.for_type(type_id)
        owned = kinds[type_id].owned
        return ServerEvent(labels[m], "buy", count, type_id,
                           float(own.server_price(m)[0]), float(owned.install_cost_per_server))

    def sign(m: int, offer_id: str, gpus: int) -> Signing:
        offer = offers[offer_id]
        return Signing(labels[m], offer_id, gpus, offer.term_months,
                       float(book.offer_rate(offer, m)[0]) * book.vat, offer.payment)

    events: list[ServerEvent] = []
    signings: list[Signing] = []
    schedule = entry.get("schedule")
    if schedule:
        for d in sorted(schedule, key=lambda d: d["month"]):
            m = month_index(d["month"], first_month)
            if d.get("buy_servers"):
                events.append(buy(m, int(d["buy_servers"]), None))
            for type_id, n in (d.get("buy") or {}).items():
                if n:
                    events.append(buy(m, int(n), type_id))
            if d.get("sell_servers"):
                events.append(ServerEvent(d["month"], "sell", int(d["sell_servers"]),
                                          _type_of(s, None),
                                          sell_from=dict(d.get("sell_from") or {})))
            for type_id, n in (d.get("sell") or {}).items():
                if n:
                    events.append(ServerEvent(d["month"], "sell", int(n), type_id))
            for offer_id, gpus in (d.get("commit") or {}).items():
                if gpus:
                    signings.append(sign(m, offer_id, int(gpus)))
        return events, signings
    servers = entry.get("servers") or 0
    counts = servers if isinstance(servers, dict) else {_type_of(s, None): int(servers)}
    for type_id, n in counts.items():
        if not n:
            continue
        life = kinds[type_id].owned.useful_life_months
        for m in range(0, horizon, life):
            if kinds[type_id].can_buy(m):
                events.append(buy(m, int(n), type_id))
    for offer_id, gpus in (entry.get("committed_gpus") or {}).items():
        if gpus:
            for m in range(0, horizon, offers[offer_id].term_months):
                signings.append(sign(m, offer_id, int(gpus)))
    events.sort(key=lambda e: e.month)
    signings.sort(key=lambda c: c.month)
    return events, signings


def _sell(held: list[list], event: ServerEvent) -> None:
    """Take ``event.count`` servers of its type out of ``held`` (rows [type, purchased,
    count, price, install]): from the purchase months named, else the oldest first."""
    left = event.count
    named = [(k.split(":")[1] if ":" in k else k, n) for k, n in event.sell_from.items()]
    for month, n in named or [(None, event.count)]:
        want = n
        for row in sorted(held, key=lambda r: r[1]):
            if want == 0:
                break
            if row[0] != event.type or (month is not None and row[1] != month):
                continue
            take = min(want, row[2])
            row[2] -= take
            want -= take
        left -= n - want
    if left:
        raise ValueError(f"{event.month}: {event.count} servers of type {event.type} sold, "
                         f"{event.count - left} held")
    held[:] = [row for row in held if row[2] > 0]


def held_position(s: Scenario, first_month: str, through: str,
                  events: Sequence[ServerEvent], signings: Sequence[Signing],
                  actual: Optional[Sequence[ServerEvent]] = None) -> Position:
    """The position after the months up to ``through``: servers and contracts held then.

    Parameters
    ----------
    s : Scenario
        The scenario of the plan (its own ``position``, useful lives).
    first_month : str
        The plan's first month, ``'YYYY-MM'``.
    through : str
        The last month with actuals, ``'YYYY-MM'``; the new position is held at the start of
        the month after it.
    events : sequence of ServerEvent
        The strategy's purchases and sales (:func:`planned_events`).
    signings : sequence of Signing
        The strategy's signings.
    actual : sequence of ServerEvent, optional
        Purchases and sales as they happened (owned-fleet actuals): when given, they replace
        ``events`` up to ``through`` (a purchase delivered late is in its actual month, at
        its actual price); ``events`` after ``through`` are left out either way.

    Returns
    -------
    Position
        ``servers``: the scenario's own held servers and every purchase up to ``through``,
        less the sales up to then (oldest first within a type unless the sale names purchase
        months; servers past their useful life are not sold: they left at its end), less the
        servers whose useful life has ended by the new start; one row per
        type, purchase month and price. ``commitments``: the scenario's own contracts and
        every signing up to ``through`` that still runs at the new start (start + term >
        new start), with the plan's rate and term, named ``offer:YYYY-MM``.

    Raises
    ------
    ValueError
        A sale of more servers than are held.

    Notes
    -----
    With the new start :math:`n` = ``through`` + 1 month, a row bought in month b with life
    L is held when :math:`b \\le` ``through`` and :math:`b + L > n`; a contract signed in s
    for T months when :math:`s \\le` ``through`` and :math:`s + T > n`.
    """
    start = month_index(through, first_month) + 1
    kinds = {k.id: k for k in fleet_types(s, first_month)}
    held: list[list] = [[_type_of(s, p.type), p.purchased, p.count, p.price, p.install_cost]
                        for p in s.position.servers]
    done = [e for e in (actual if actual is not None else events) if e.month <= through]
    def retire(month: int) -> None:      # servers leave at the end of their useful life
        held[:] = [r for r in held if month_index(r[1], first_month)
                   + kinds[r[0]].owned.useful_life_months > month]

    for e in sorted(done, key=lambda e: (e.month, e.action != "sell")):
        retire(month_index(e.month, first_month))
        if e.action == "buy":
            owned = kinds[_type_of(s, e.type)].owned   # an actual purchase without a price:
            held.append([_type_of(s, e.type), e.month, e.count,      # the scenario's price
                         owned.server_price if e.price is None else e.price,
                         owned.install_cost_per_server if e.install is None else e.install])
        else:
            _sell(held, ServerEvent(e.month, "sell", e.count, _type_of(s, e.type),
                                    sell_from=e.sell_from))
    retire(start)
    rows: dict[tuple, int] = {}
    for type_id, purchased, count, price, install in held:
        key = (type_id, purchased, price, install)
        rows[key] = rows.get(key, 0) + count
    servers = tuple(PositionServers(count=n, purchased=purchased, price=price,
                                    install_cost=install or 0.0,
                                    type=type_id if s.server_types else None)
                    for (type_id, purchased, price, install), n in rows.items() if n)
    contracts = [c for c in s.position.commitments
                 if month_index(c.start, first_month) + c.term_months > start]
    for c in signings:
        if c.month <= through and month_index(c.month, first_month) + c.term_months > start:
            contracts.append(PositionCommitment(
                id=f"{c.offer}:{c.month}", gpus=c.gpus, start=c.month,
                term_months=c.term_months, price_per_gpu_hour=c.price_per_gpu_hour,
                payment=c.payment))
    return Position(servers=servers, commitments=tuple(contracts))
