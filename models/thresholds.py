"""Alert thresholds of plan against actual (issue 43): when a month of actuals is far enough
from the approved plan to tell someone.

Three kinds, each optional (a threshold left empty is never breached):

==============================  ===============================================================
kind                            breached when (for one month with actuals)
==============================  ===============================================================
``spend_over_plan``             (actual - plan) > x / 100 * plan, the month's total spend
``commitment_utilization``      committed GPU-hours used / (committed GPUs * hours) < y / 100
``owned_utilization``           owned GPU-hours used / owned GPU-hours installed < z / 100
==============================  ===============================================================

Exactly at a threshold is **no** breach (strict inequalities): a spend exactly x % over plan,
or a utilization of exactly y %, is what the threshold allows. A utilization is only read
from GPU-hours the actuals give (a source the bills or owned actuals leave out is taken as
planned by the variance, and the plan's own utilization is no news); a month with no
committed GPUs (or no owned servers installed) has no utilization to fall short, and a month
planned at zero or less has no spend threshold.

Everything is exact rational arithmetic over the variance document's figures (the cents of
``plan`` and ``actual``, the GPU-hours by source), so the test at the threshold is exact.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping, Optional, Sequence

from pydantic import BaseModel, ConfigDict, Field

KINDS = ("spend_over_plan", "commitment_utilization", "owned_utilization")


class Thresholds(BaseModel):
    """A scenario's alert thresholds [%]; None: no alert of that kind."""
    model_config = ConfigDict(extra="forbid")

    spend_over_plan: Optional[Decimal] = Field(
        None, ge=0, le=1000, decimal_places=2,
        title="Alert when a month's spend is over its plan by more than",
        json_schema_extra={"unit": "% of the month's plan"})
    commitment_utilization: Optional[Decimal] = Field(
        None, ge=0, le=100, decimal_places=2,
        title="Alert when the utilization of commitments is under",
        json_schema_extra={"unit": "% of the committed GPU-hours"})
    owned_utilization: Optional[Decimal] = Field(
        None, ge=0, le=100, decimal_places=2,
        title="Alert when the utilization of owned servers is under",
        json_schema_extra={"unit": "% of the owned GPU-hours installed"})


@dataclass(frozen=True)
class Breach:
    """One threshold crossed in one month: ``value`` and ``threshold`` in % (exact)."""
    month: str
    kind: str
    value: Fraction
    threshold: Fraction


def _exact(x: Any) -> Fraction:
    """A figure of the document as an exact rational: decimal text as written, a float as
    the binary fraction it is (the variance engine's own rule)."""
    if isinstance(x, str):
        return Fraction(Decimal(x))
    if isinstance(x, Decimal):
        return Fraction(x)
    return Fraction(float(x))


def percent_text(x: Fraction) -> str:
    """A percentage as decimal text with two decimals (a page, an event, a message).

    Parameters
    ----------
    x : Fraction
        The percentage, exact [%].

    Returns
    -------
    str
        ``x`` rounded to 0.01, halves to even [%].

    Notes
    -----
    text = round(x, 2) = [100 x] / 100, [.] rounding to the nearest integer, halves to even
    (the decimal module's default context rounds the division's result the same way).
    """
    return f"{Decimal(x.numerator) / Decimal(x.denominator):.2f}"


def evaluate(months: Sequence[Mapping[str, Any]], plan_rows: Mapping[str, Mapping[str, Any]],
             thresholds: Thresholds,
             installed_by_month: Optional[Mapping[str, float]] = None) -> list[Breach]:
    """The thresholds breached by each month of a variance document.

    Parameters
    ----------
    months : sequence of dict
        The variance document's ``months`` (models.variance.variance): ``month``, ``plan``
        and ``actual`` [currency, decimal text], ``gpu_hours`` (``actual`` by source
        [GPU-hours]) and ``as_planned`` (``gpu_hours.<source>`` when not given).
    plan_rows : dict
        The baseline's monthly rows by month: ``committed_gpus`` [GPUs], ``hours`` [h].
    thresholds : Thresholds
        x, y, z [%]; None: not evaluated.
    installed_by_month : dict, optional
        Owned GPU-hours installed per month [GPU-hours] (servers online x GPUs per server x
        hours); a month without it has no owned utilization.

    Returns
    -------
    list of Breach
        In month order, then in the order of KINDS.

    Notes
    -----
    With plan P and actual A of the month's total spend, used GPU-hours u and capacity c::

        spend_over_plan         value = (A - P) / P * 100,  breach when A - P > x / 100 * P
        commitment_utilization  value = u_c / (G h) * 100,   breach when value < y  (G h > 0)
        owned_utilization       value = u_o / c_o * 100,     breach when value < z  (c_o > 0)

    A month whose plan is not above zero (nothing planned, or credits such as a resale
    larger than the costs) has no "x % of the plan" and is not evaluated for spend. Exactly
    at a threshold is no breach.
    """
    out: list[Breach] = []
    installed_by_month = installed_by_month or {}
    for entry in months:
        month = str(entry["month"])
        row = plan_rows.get(month, {})
        given = [s for s in ("committed", "owned")
                 if f"gpu_hours.{s}" not in entry.get("as_planned", ())]
        used = entry.get("gpu_hours", {}).get("actual", {})
        x = thresholds.spend_over_plan
        if x is not None:
            plan, actual = _exact(entry["plan"]), _exact(entry["actual"])
            over = actual - plan
            if plan > 0 and over > Fraction(x) / 100 * plan:
                value = over / plan * 100
                out.append(Breach(month, "spend_over_plan", value, Fraction(x)))
        y = thresholds.commitment_utilization
        capacity = _exact(row.get("committed_gpus", 0.0)) * _exact(row.get("hours", 0.0))
        if y is not None and "committed" in given and capacity > 0:
            value = _exact(used.get("committed", 0.0)) / capacity * 100
            if value < Fraction(y):
                out.append(Breach(month, "commitment_utilization", value, Fraction(y)))
        z = thresholds.owned_utilization
        installed = _exact(installed_by_month.get(month, 0.0))
        if z is not None and "owned" in given and installed > 0:
            value = _exact(used.get("owned", 0.0)) / installed * 100
            if value < Fraction(z):
                out.append(Breach(month, "owned_utilization", value, Fraction(z)))
    return out


def owned_installed(plan_rows: Sequence[Mapping[str, Any]], gpus_per_server: float,
                    gpus_by_type: Optional[Mapping[str, float]] = None) -> dict[str, float]:
    """Owned GPU-hours installed per month of a strategy's monthly rows.

    Parameters
    ----------
    plan_rows : sequence of dict
        The strategy's monthly rows: ``month``, ``hours`` [h], ``servers_online`` [servers]
        and, in a fleet of server types, ``servers_online_by_type`` [servers by type id].
    gpus_per_server : float
        GPUs per server of the one server type [GPUs].
    gpus_by_type : dict, optional
        GPUs per server of each server type [GPUs by type id].

    Returns
    -------
    dict
        Installed owned GPU-hours by month [GPU-hours].

    Notes
    -----
    c_o = h * sum_k n_k g_k over server types k (``servers_online_by_type``), or
    c_o = h * n * g with one server type (``servers_online``), g GPUs per server: the
    denominator of the plan's own ``owned_utilization`` (models.strategies).
    """
    out: dict[str, float] = {}
    for row in plan_rows:
        hours = float(row.get("hours", 0.0))
        by_type = row.get("servers_online_by_type")
        if by_type and gpus_by_type:
            gpus = sum(float(n) * float(gpus_by_type.get(k, 0.0)) for k, n in by_type.items())
        else:
            gpus = float(row.get("servers_online", 0.0)) * float(gpus_per_server)
        out[str(row["month"])] = gpus * hours
    return out
