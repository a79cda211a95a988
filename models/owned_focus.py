"""The owned fleet of one strategy as FOCUS usage rows: its GPU-hours each month at the fully
loaded internal price per GPU-hour (issue 43, FOCUS export, item 1).

FinOps tools read the cloud's GPUs from FOCUS bills; to see the owned servers beside them, the
owned fleet is billed to itself: one usage row per month (and per server type in a fleet) whose
cost is its GPU-hours times one internal price that recovers every owned cost of the plan. The
rows are figures only; service/focus_export.py writes them as a FOCUS 1.3 or 1.4 CSV.

Owned cost lines
----------------
capex, loan_payment, energy, space, maintenance, staff, owned_storage, owned_network and
tax_on_resale, less resale_credit (models/lines.py). tax_shield is left out: it is the
company's tax saving from depreciation, not a cost of running the servers.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from models.fx_months import plan_rate
from models.variance import round_parts
from models.refusals import Worded

OWNED_COST_LINES = ("capex", "loan_payment", "energy", "space", "maintenance", "staff",
                    "owned_storage", "owned_network", "tax_on_resale")
OWNED_CREDIT_LINES = ("resale_credit",)
SINGLE = "owned"            # the type id of a plan with one server type


class OwnedExportError(Worded):
    """A strategy whose owned fleet cannot be priced; ``template`` is one of MESSAGES and
    ``values`` its placeholders (said in Korean by service/i18n/focus_export_words.py)."""


MESSAGES = (
    "the strategy %(strategy)s has no owned GPU-hours: there is no owned fleet to export",
    "%(month)s: owned GPU-hours with no server online to carry them",
    "the plan has no exchange rate for %(currency)s in %(month)s",
)


@dataclass(frozen=True)
class OwnedRow:
    """One month and server type: ``gpu_hours`` [GPU-h], ``server_hours`` [server-h] of
    ``gpus_per_server`` GPUs each, ``cost_cents`` [cents of ``currency``]."""

    month: str
    server_type: str
    gpus_per_server: int
    gpu_hours: float
    server_hours: float
    cost_cents: int


@dataclass(frozen=True)
class OwnedExport:
    """The rows, the price per GPU-hour (exact and in ``currency``), the totals."""

    currency: str
    price_per_gpu_hour: Fraction
    total_cost: Fraction
    total_gpu_hours: Fraction
    rows: tuple[OwnedRow, ...]


def _q(x: Any) -> Fraction:
    return Fraction(float(x or 0.0))          # exact: a float is a binary fraction


def owned_cost(row: Mapping[str, Any]) -> Fraction:
    """A month's owned cost, credits subtracted.

    Parameters
    ----------
    row : mapping
        A monthly row of a plan document (models.strategy_document.month_rows).

    Returns
    -------
    Fraction
        The sum of OWNED_COST_LINES less OWNED_CREDIT_LINES, exact [reporting currency].

    Notes
    -----
    c = capex + loan_payment + energy + space + maintenance + staff + owned_storage +
    owned_network + tax_on_resale - resale_credit, each the row's line [reporting currency];
    the tax shield is not an owned cost (module docstring).
    """
    return (sum((_q(row.get(n)) for n in OWNED_COST_LINES), Fraction(0))
            - sum((_q(row.get(n)) for n in OWNED_CREDIT_LINES), Fraction(0)))


def owned_export(monthly: Sequence[Mapping[str, Any]], strategy: str,
                 gpus_per_server: Mapping[str, int], currencies: Mapping[str, Any] | None,
                 currency: str) -> OwnedExport:
    """The owned fleet's FOCUS rows of one strategy.

    Parameters
    ----------
    monthly : sequence of mapping
        The strategy's monthly rows of a plan document (models.strategy_document.month_rows), in
        calendar order from the plan's first month, with the months after the horizon.
    strategy : str
        Its name (for the refusal).
    gpus_per_server : mapping of str to int
        GPUs per server by type id; ``{"owned": n}`` for a plan of one type.
    currencies : mapping or None
        The document's ``currencies`` (its exchange rate, models/fx_months.py).
    currency : str
        The owned currency: the rows' billing currency.

    Returns
    -------
    OwnedExport
        One row per month with owned GPU-hours and per server type online in it.

    Raises
    ------
    OwnedExportError
        No owned GPU-hours, GPU-hours in a month with no server online, no rate for the owned
        currency.

    Notes
    -----
    With :math:`c_m` month m's owned cost (reporting currency, credits negative) and
    :math:`r_m` the plan's rate of the owned currency in month m (1 when it is the reporting
    one), the owned cost in the owned currency is :math:`C = \\sum_m c_m / r_m` over every
    month of the strategy, after the horizon too (loan payments, resale). With :math:`g_m` the
    owned GPU-hours of month m (the work the owned servers did) and :math:`G = \\sum_m g_m`,
    the fully loaded internal price is

    .. math:: p = C / G

    and month m costs :math:`p\\,g_m`, so the rows add up to :math:`C`: a purchase is spread
    over the GPU-hours the servers deliver, idle hours included in the price. In a fleet,
    month m's GPU-hours are shared by the types' online GPUs, :math:`g_{m,t} = g_m\\,n_{m,t}
    k_t / \\sum_u n_{m,u} k_u` (:math:`n` servers online, :math:`k` GPUs per server), one price
    for all: the document gives the fleet's GPU-hours and costs, not each type's. A row's
    server-hours are :math:`g_{m,t} / k_t`. Amounts are exact rationals, rounded to cents by
    cumulative rounding in row order (models.variance.round_parts), so the rows' cents add up
    to :math:`[C]`.
    """
    first = str(monthly[0]["month"]) if monthly else ""
    total = Fraction(0)
    for row in monthly:
        month = str(row["month"])
        cost = owned_cost(row)
        if cost == 0:
            continue
        rate = plan_rate(currencies, first, month, currency)
        if rate is None:
            raise OwnedExportError(MESSAGES[2], currency=currency, month=month)
        total += cost / Fraction(rate)
    hours = [(str(r["month"]), _q(r.get("owned_gpu_hours"))) for r in monthly]
    G = sum((h for _, h in hours), Fraction(0))
    if G <= 0:
        raise OwnedExportError(MESSAGES[0], strategy=strategy)
    price = total / G
    pieces: list[tuple[str, str, Fraction]] = []
    for row, (month, g) in zip(monthly, hours):
        if g <= 0:
            continue
        online = row.get("servers_online_by_type")
        if online is None:
            online = {SINGLE: row.get("servers_online", 0.0)}
        gpus = {t: _q(n) * gpus_per_server[t] for t, n in online.items() if _q(n) > 0}
        if not gpus:
            raise OwnedExportError(MESSAGES[1], month=month)
        fleet = sum(gpus.values(), Fraction(0))
        for t, k in gpus.items():
            pieces.append((month, t, g * k / fleet))
    exact = {f"{m}|{t}": price * h for m, t, h in pieces}
    cents, _ = round_parts(exact, sum(exact.values(), Fraction(0)))
    rows = tuple(OwnedRow(m, t, int(gpus_per_server[t]), float(h),
                          float(h / gpus_per_server[t]), cents[f"{m}|{t}"])
                 for m, t, h in pieces)
    return OwnedExport(currency, price, total, G, rows)
