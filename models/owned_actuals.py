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

        Notes
        -----
        types = (t_1, ..., t_n), the ids of ``gpus_per_server`` in order; t_1 is the type of a
        row that names none.
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

    Notes
    -----
    Each position lot's price per server all-in is P = price + install_cost [currency per
    server]; a type's GPUs per server g_t = its ``gpus_per_server``, else the scenario's
    ``owned.gpus_per_server`` [GPUs].
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

    Notes
    -----
    k = 12 y + m - 1, with y the year and m the month (1-12) of ``YYYY-MM`` [months].
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
    .. math:: c(k) = c_0 \\exp\\left(\\tfrac{k}{12} \\ln(1 + i)\\right) = c_0 (1 + i)^{k/12}

    with :math:`c_0` [currency per kWh], :math:`i` [fraction a year] and :math:`k` [months],
    as models/prices.py prices the plan's energy. The price of a kWh at the meter: the plan's
    PUE is already in a facility's kWh.
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
    For type t at the end of month M = ``until``:

    .. math:: H_t(M) = H_t^0 + \\sum_{d \\le M} B_t(d) - \\sum_{s \\le M} S_t(s)

    :math:`H_t^0` the servers held before the first row, :math:`B_t(d)` those bought and
    delivered in month d, :math:`S_t(s)` those sold in month s [servers]. A purchase counts
    from its month delivered, once that month is at most ``until``; a sale removes servers of
    its type, oldest lot first (first in, first out), so each lot keeps its own month and
    price.
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
    Over the rows r of a month (their server types):

    .. math::

        \\text{energy} &= \\sum_r (e_r\\,c \\text{ if kWh given, else } E_r) \\\\
        \\text{capex} &= \\sum_r n_r P_r, \\qquad
        \\text{resale\\_credit} = \\sum_r s_r R_r \\\\
        G &= \\sum_r N_r g_{t(r)}, \\qquad a_o = \\sum_r b_r

    with :math:`e_r` kWh, :math:`c` :func:`kwh_price` of the month, :math:`E_r` the energy
    cost, :math:`n_r, P_r` servers bought and their price, :math:`s_r, R_r` servers sold and
    their price, :math:`N_r` servers online, :math:`g_t` GPUs per server of the row's type and
    :math:`b_r` busy GPU-hours. A line no row of the month gives is left out (as planned).
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

    Notes
    -----
    costs = bills' costs, then for each owned line l (energy, space, staff, maintenance,
    capex, resale_credit) costs[l] = the owned actuals' cost of l.
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

    Notes
    -----
    is_owned = (owned is not None) and (gpu_hours = {}).
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

    Notes
    -----
    cloud.costs = the costs not of an owned line (all of them for a bill alone); owned.costs =
    the costs of the owned lines, so that merge(split(m)) = m.
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

    Notes
    -----
    combine(B, O)[m] = merge(B[m], O[m]) for each month m of B or O.
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

    Notes
    -----
    rows = the concatenation over months m (in order) of m.owned["rows"].
    """
    out = []
    for a in sorted(actuals, key=lambda x: x.month):
        for row in (a.owned or {}).get("rows", ()):
            out.append(OwnedRow(**row))
    return out


def server_events(rows: Iterable[OwnedRow]) -> list[dict]:
    """The purchases and sales of owned rows as they happened, as the re-plan's events.

    Parameters
    ----------
    rows : iterable of OwnedRow
        The owned fleet's actuals (:func:`owned_rows` of the stored months).

    Returns
    -------
    list of dict
        In calendar order, each with the fields of the re-plan's
        ``models.actual_position.ServerEvent`` (``ServerEvent(**event)``): ``month`` (a
        purchase's month delivered, a sale's month), ``action`` ``buy`` or ``sell``,
        ``count``, ``type`` (None for the one type of a plan without server types), and for a
        purchase ``price`` (per server, all-in) and ``install`` 0.

    Notes
    -----
    buy = (delivered month d, n, P) for each row with n = purchased > 0; sell = (month, s)
    for each row with s = sold > 0; the held servers after them are :func:`held_servers`'.
    """
    out = []
    for r in sorted(rows, key=lambda x: x.month):
        kind = None if r.server_type == DEFAULT_TYPE else r.server_type
        if r.purchased:
            out.append({"month": r.delivered, "action": "buy", "count": int(r.purchased),
                        "type": kind, "price": float(r.purchase_price), "install": 0.0})
        if r.sold:
            out.append({"month": r.month, "action": "sell", "count": int(r.sold),
                        "type": kind})
    return sorted(out, key=lambda e: (e["month"], e["action"] == "sell"))
