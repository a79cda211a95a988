"""The owned fleet's actuals (issue 43): what the servers cost and did, month by month and server
type, turned into the variance engine's monthly actuals (models/variance.py), and the servers
actually held at the end of the last actual month (for a re-plan's ``position``).

A row (one month and server type; the CSV template is service/owned_actuals.py) gives the
servers online, optionally their busy GPU-hours, the energy (kWh priced at the plan's energy
price of the month, or a cost), space, staff and maintenance paid, one lot of servers bought
(count, price per server all-in, month delivered) and one lot sold (count, price per server).
The lot's price is paid in the row's month (``capex``); the servers count as held from the
month delivered. A sale's proceeds are the ``resale_credit`` of the row's month.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable, Mapping, Optional, Sequence

from models.variance import MonthActuals

# the cost columns of a row and the plan's line each one is (energy is priced separately)
LINE_COLUMNS = ("space", "staff", "maintenance")


@dataclass(frozen=True)
class OwnedRow:
    """One month and server type of the owned fleet's actuals (reporting currency).

    A cost left None was not given (its line stays as planned); ``busy_gpu_hours`` None: no
    busy time measured.
    """

    month: str
    server_type: str
    servers_online: float
    busy_gpu_hours: Optional[float] = None
    energy_kwh: Optional[float] = None
    energy_cost: Optional[float] = None
    space: Optional[float] = None
    staff: Optional[float] = None
    maintenance: Optional[float] = None
    purchased: int = 0
    purchase_price: float = 0.0
    delivered: Optional[str] = None
    sold: int = 0
    sale_price: float = 0.0


@dataclass(frozen=True)
class Fleet:
    """What a plan says of its owned fleet, for reading actuals against it.

    ``first_month`` the plan's first month; ``kwh_price`` the energy price per kWh in its first
    month and ``power_inflation`` its annual rise; ``gpus_per_server`` by server type id (the
    first type is the default); ``held`` the servers held when the plan starts, as
    :func:`held_servers` records; ``kwh_currency`` the currency of the plan's energy price when
    it is not the reporting currency (kWh cannot then be priced without an exchange rate), else
    None.
    """

    first_month: str
    kwh_price: float
    power_inflation: float
    gpus_per_server: dict[str, float]
    held: tuple[dict, ...] = ()
    kwh_currency: Optional[str] = None

    @property
    def types(self) -> tuple[str, ...]:
        """Server type ids of the plan, the default (first) type first.

        Returns
        -------
        tuple of str
            The keys of ``gpus_per_server``.
        """
        return tuple(self.gpus_per_server)


DEFAULT_TYPE = "server"     # the one type of a plan without server types


def fleet_of(doc: Mapping[str, Any]) -> Fleet:
    """The :class:`Fleet` of a plan document (``buyrent plan --json``).

    Parameters
    ----------
    doc : mapping
        The plan document: ``months`` and ``scenario`` (its ``owned``, ``finance``,
        ``server_types`` and ``position``).

    Returns
    -------
    Fleet
        Types by id (a plan without server types has one, ``server``), GPUs per server and
        the position's servers.
    """
    s = doc.get("scenario") or {}
    owned = s.get("owned") or {}
    finance = s.get("finance") or {}
    g = float(owned.get("gpus_per_server", 8))
    types = {str(t["id"]): float(t.get("gpus_per_server") or g)
             for t in s.get("server_types") or []}
    gpus = types or {DEFAULT_TYPE: g}
    first = next(iter(gpus))
    held = tuple({"type": str(p.get("type") or first), "count": int(p["count"]),
                  "purchased": str(p["purchased"]),
                  "price": float(p.get("price", 0.0)) + float(p.get("install_cost", 0.0))}
                 for p in (s.get("position") or {}).get("servers") or [])
    currencies = doc.get("currencies") or {}
    owned_currency = currencies.get("owned") or currencies.get("reporting")
    return Fleet(first_month=str((doc.get("months") or ["2000-01"])[0]),
                 kwh_price=float(owned.get("electricity_price_per_kwh", 0.0)),
                 power_inflation=float(finance.get("power_price_inflation_annual", 0.0)),
                 gpus_per_server=gpus, held=held,
                 kwh_currency=(owned_currency if owned_currency != currencies.get("reporting")
                               else None))


def month_index(month: str) -> int:
    """Months since year 0 of a month.

    Parameters
    ----------
    month : str
        ``YYYY-MM``.

    Returns
    -------
    int
        :math:`12 y + m - 1`.
    """
    return int(month[:4]) * 12 + int(month[5:7]) - 1


def kwh_price(fleet: Fleet, month: str) -> float:
    """The plan's energy price of a month [currency per kWh].

    Parameters
    ----------
    fleet : Fleet
        The plan's fleet (its first month, price and inflation).
    month : str
        ``YYYY-MM``.

    Returns
    -------
    float
        :math:`c_0 (1 + i)^{k/12}`, :math:`c_0` the scenario's ``electricity_price_per_kwh``,
        :math:`i` its ``power_price_inflation_annual``, :math:`k` the months since the plan's
        first month (as models/prices.py prices the plan's energy).

    Notes
    -----
    The price of a kWh at the meter: the plan's PUE is already in a facility's kWh.
    """
    k = month_index(month) - month_index(fleet.first_month)
    return fleet.kwh_price * math.exp(k * math.log1p(fleet.power_inflation) / 12.0)


def held_servers(rows: Iterable[OwnedRow], initial: Sequence[Mapping[str, Any]] = (),
                 until: Optional[str] = None) -> list[dict]:
    """The servers actually held at the end of the last actual month, per type and lot.

    Parameters
    ----------
    rows : iterable of OwnedRow
        The owned fleet's actuals.
    initial : sequence of mapping
        Servers held before the first row (the plan's ``position``): ``type``, ``count``,
        ``purchased`` (``YYYY-MM``) and ``price`` per server.
    until : str, optional
        Last month counted (``YYYY-MM``); default the last month of ``rows``.

    Returns
    -------
    list of dict
        One record per lot still held, in order of delivery: ``type``, ``count``,
        ``purchased`` (the month delivered) and ``price`` (per server, all-in), the shape of a
        scenario's ``position.servers`` entries (with ``install_cost`` 0).

    Notes
    -----
    A purchase counts from its month delivered, once that month is at most ``until``; a sale
    removes servers of its type, oldest lot first (first in, first out).
    """
    rows = sorted(rows, key=lambda r: r.month)
    last = until or (rows[-1].month if rows else None)
    lots = [dict(p) for p in initial]
    events = []
    for r in rows:
        if r.purchased and r.delivered and (last is None or r.delivered <= last):
            events.append((r.delivered, 0, r))
        if r.sold and (last is None or r.month <= last):
            events.append((r.month, 1, r))
    for _month, kind, r in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == 0:
            lots.append({"type": r.server_type, "count": int(r.purchased),
                         "purchased": r.delivered, "price": float(r.purchase_price)})
            continue
        left = int(r.sold)
        for lot in sorted((x for x in lots if x["type"] == r.server_type),
                          key=lambda x: x["purchased"]):
            take = min(left, lot["count"])
            lot["count"] -= take
            left -= take
        lots = [x for x in lots if x["count"] > 0]
    return [{"type": x["type"], "count": int(x["count"]), "purchased": str(x["purchased"]),
             "price": float(x["price"]), "install_cost": 0.0}
            for x in sorted(lots, key=lambda x: x["purchased"])]


def month_actuals(rows: Iterable[OwnedRow], fleet: Fleet) -> list[MonthActuals]:
    """The owned rows as the variance engine's monthly actuals, one per month.

    Parameters
    ----------
    rows : iterable of OwnedRow
        The owned fleet's actuals (each month and type once).
    fleet : Fleet
        The plan's fleet (energy price, GPUs per server).

    Returns
    -------
    list of MonthActuals
        In calendar order, with ``costs`` of the lines the rows give: energy
        (:math:`\\sum kWh \\times` :func:`kwh_price`, or the cost), space, staff, maintenance,
        capex (:math:`\\sum` purchased x purchase price) and resale_credit (:math:`\\sum` sold x
        sale price); ``owned`` the GPUs online (:math:`\\sum_t N_t g_t`), GPUs per server by
        type, the busy GPU-hours (their sum, or None unless every row of the month gives
        them) and the rows themselves (``rows``, for :func:`owned_rows`).

    Notes
    -----
    A line no row of the month gives is left out (as planned). Energy of a row is its kWh
    priced at the month's plan price when it gives kWh, else its cost.
    """
    by_month: dict[str, list[OwnedRow]] = {}
    for r in rows:
        by_month.setdefault(r.month, []).append(r)
    out = []
    for month in sorted(by_month):
        group = by_month[month]
        costs: dict[str, float] = {}
        price = kwh_price(fleet, month)
        for r in group:
            energy = (r.energy_kwh * price if r.energy_kwh is not None else r.energy_cost)
            if energy is not None:
                costs["energy"] = costs.get("energy", 0.0) + energy
            for name in LINE_COLUMNS:
                value = getattr(r, name)
                if value is not None:
                    costs[name] = costs.get(name, 0.0) + value
        costs["capex"] = sum(r.purchased * r.purchase_price for r in group)
        costs["resale_credit"] = sum(r.sold * r.sale_price for r in group)
        gpus = sum(r.servers_online * fleet.gpus_per_server.get(
            r.server_type, next(iter(fleet.gpus_per_server.values()))) for r in group)
        busy = ([r.busy_gpu_hours for r in group]
                if all(r.busy_gpu_hours is not None for r in group) else None)
        out.append(MonthActuals(month, costs=costs, owned={
            "gpus_online": float(gpus), "gpus_per_server": dict(fleet.gpus_per_server),
            "busy_gpu_hours": None if busy is None else float(sum(busy)),
            "rows": [asdict(r) for r in group]}))
    return out


OWNED_LINES = ("energy", "space", "staff", "maintenance", "capex", "resale_credit")


def merge(cloud: Optional[MonthActuals], owned: Optional[MonthActuals]) -> MonthActuals:
    """One month's actuals from its bills and its owned fleet's actuals.

    Parameters
    ----------
    cloud : MonthActuals or None
        What the bills gave (cloud lines and GPU-hours).
    owned : MonthActuals or None
        What the owned actuals gave (owned lines and ``owned``).

    Returns
    -------
    MonthActuals
        The bills' costs, GPU-hours and idle commitments with the owned actuals' lines and
        ``owned`` (the owned actuals win on the owned lines).
    """
    if cloud is None and owned is None:
        raise ValueError("nothing to merge")
    if owned is None:
        return cloud
    if cloud is None:
        return owned
    costs = {**cloud.costs, **{k: v for k, v in owned.costs.items() if k in OWNED_LINES}}
    return replace(cloud, costs=costs, owned=owned.owned)


def is_owned(actuals: MonthActuals) -> bool:
    """Whether a month's actuals are the owned fleet's (not a bill's).

    Parameters
    ----------
    actuals : MonthActuals
        One month's actuals, as stored with an upload.

    Returns
    -------
    bool
        True for :func:`month_actuals` of owned rows (``owned`` set, no cloud GPU-hours).
    """
    return actuals.owned is not None and not actuals.gpu_hours



def split(actuals: MonthActuals) -> tuple[Optional[MonthActuals], Optional[MonthActuals]]:
    """A month's stored actuals as its bills' part and its owned part (the inverse of
    :func:`merge`).

    Parameters
    ----------
    actuals : MonthActuals
        One month, from bills, owned actuals or both.

    Returns
    -------
    tuple
        ``(cloud, owned)``: the bills' part (None without cloud GPU-hours) and the owned part
        (None without ``owned``).
    """
    cloud = owned = None
    if actuals.gpu_hours:
        cloud = replace(actuals, owned=None, costs={k: v for k, v in actuals.costs.items()
                                                    if k not in OWNED_LINES or
                                                    actuals.owned is None})
    if actuals.owned is not None:
        owned = MonthActuals(actuals.month, costs={k: v for k, v in actuals.costs.items()
                                                   if k in OWNED_LINES}, owned=actuals.owned)
    return cloud, owned


def combine(bills: Iterable[MonthActuals], owned: Iterable[MonthActuals]) -> list[MonthActuals]:
    """Bills' and owned actuals' months merged month by month (:func:`merge`).

    Parameters
    ----------
    bills : iterable of MonthActuals
        Months read from bills.
    owned : iterable of MonthActuals
        Months of the owned fleet's actuals (:func:`month_actuals`).

    Returns
    -------
    list of MonthActuals
        One per month of either, in calendar order.
    """
    cloud = {a.month: a for a in bills}
    fleet = {a.month: a for a in owned}
    return [merge(cloud.get(m), fleet.get(m)) for m in sorted(set(cloud) | set(fleet))]


def owned_rows(actuals: Iterable[MonthActuals]) -> list[OwnedRow]:
    """The owned rows held in months of actuals (what :func:`held_servers` reads).

    Parameters
    ----------
    actuals : iterable of MonthActuals
        Months as stored (from bills, owned actuals or both).

    Returns
    -------
    list of OwnedRow
        Every row of every month that has owned actuals, in calendar order.
    """
    out = []
    for a in sorted(actuals, key=lambda x: x.month):
        for row in (a.owned or {}).get("rows", ()):
            out.append(OwnedRow(**row))
    return out
