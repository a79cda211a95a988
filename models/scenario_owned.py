"""The owned servers of a scenario: the ``owned`` section (price, power, space, staff, resale,
financing) and the server types of a fleet, each ``owned`` with its overrides (issue 26).

Separate from the cloud and the plan-wide settings because it is the one section a fleet
repeats per type: ``ServerType`` is generated from ``Owned``'s fields, and ``type_owned``
rebuilds a type's ``owned``.
"""
from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, Field, create_model, field_validator, model_validator

from models.fields import field
from models.scenario_types import (CURRENCY_PATTERN, MONTH_PATTERN, SMALL_UNIT, TYPE_ID_PATTERN,
                                   Section)

H100_QUOTES = "8x H100 SXM quotes $270k-$317k, 2023-2024"
LLAMA3 = ("Llama 3 405B training: 419 unexpected interruptions in 54 days on 16,384 H100 GPUs, "
          "about 1.4 per 8-GPU server-year")


class CashFinancing(Section):
    kind: Literal["cash"] = "cash"


class LoanFinancing(Section):
    kind: Literal["loan"] = "loan"
    apr: float = field(0.08, "Loan APR", "fraction per year", "Monthly rate is APR/12.",
                       "typical equipment loan (estimate)", ge=0, le=1)
    term_months: int = field(36, "Loan term", "months", ge=1, le=240)
    down_payment_fraction: float = field(0.2, "Down payment", "fraction of capex", ge=0, le=1)


Financing = Annotated[Union[CashFinancing, LoanFinancing], Field(discriminator="kind")]


class Owned(Section):
    """Owned servers: price, power, space, staff, resale and financing.

    Checked across fields (a 422 names the rule): ``power_kw_idle`` <= ``power_kw_max``;
    ``resale_fraction_by_year`` does not increase with age.
    """

    currency: Optional[str] = field(
        None, "Currency of owned costs", "ISO 4217 code",
        "Server and install prices, power, space, staff, maintenance, owned storage and "
        "network, and the servers already owned are priced in it; empty = the reporting "
        "currency.", pattern=CURRENCY_PATTERN)
    gpus_per_server: int = field(8, "GPUs per server", "GPUs", source="DGX/HGX H100",
                                 essential=True, ge=1, le=64)
    server_price: float = field(300_000, "Server price", "currency per server",
                                source=H100_QUOTES, essential=True, ge=0, le=1e8 * SMALL_UNIT)
    install_cost_per_server: float = field(30_000, "Install and network capex",
                                           "currency per server", source="estimate", ge=0,
                                           le=1e8 * SMALL_UNIT)
    lead_time_months: int = field(0, "Lead time", "months",
                                  "Servers come online the month after the lead time; demand "
                                  "before that goes to the cloud.", ge=0, le=36)
    useful_life_months: int = field(60, "Useful life", "months",
                                    "Servers are replaced at end of life.", ge=1, le=240)
    resale_fraction_by_year: tuple[float, ...] = field(
        (0.65, 0.45, 0.30, 0.20, 0.10), "Resale value by year of age", "fraction of server price",
        "At the end of each year of age; linear by month in between, from 100 % when new.",
        "market reports (low confidence)", min_length=1, max_length=20,
        schema={"items": {"type": "number", "minimum": 0, "maximum": 1}})
    power_kw_max: float = field(10.2, "Maximum power", "kW per server", source="DGX H100 spec",
                                essential=True, guard=("le",), gt=0, le=200)
    power_kw_idle: float = field(3.0, "Idle power", "kW per server",
                                 source="about 0.3 of max (estimate)", guard=("le",), ge=0, le=200)
    pue: float = field(1.3, "PUE", "ratio", source="new AI halls < 1.3; Uptime Institute 2024",
                       ge=1, le=3)
    electricity_price_per_kwh: float = field(0.08, "Electricity price", "currency per kWh",
                                             source="EIA 2023 US industrial average $0.0806",
                                             essential=True, ge=0, le=5 * SMALL_UNIT)
    space_price_per_kw_month: float = field(184.06, "Colocation price",
                                            "currency per kW-month of maximum power",
                                            source="CBRE H2 2024 wholesale", essential=True,
                                            ge=0, le=10_000 * SMALL_UNIT)
    maintenance_fraction_annual: float = field(0.08, "Maintenance and support",
                                               "fraction of server price per year",
                                               source="HPC rule of thumb 4-8 %", ge=0, le=1)
    servers_per_fte: float = field(50, "Servers per FTE", "servers per FTE", source="estimate",
                                   guard=("le",), gt=0, le=10_000)
    fte_cost_annual: float = field(200_000, "Staff cost", "currency per FTE-year",
                                   source="estimate", ge=0, le=1e7 * SMALL_UNIT)
    availability: float = field(0.99, "Availability", "fraction of hours",
                                "Hours a server can take work after repairs and maintenance.",
                                LLAMA3, ge=0.01, le=1)
    hardware_price_trend_annual: float = field(0.0, "Hardware price trend", "fraction per year",
                                               "Applies to replacements at end of life.",
                                               ge=-0.9, le=1)
    failures_per_server_year: float = field(1.4, "Failures", "per server-year",
                                            "Interrupt gang jobs with no notice.",
                                            LLAMA3, guard=("le",), ge=0, le=1000)
    relative_throughput: float = field(1.0, "Relative throughput", "work per GPU-hour vs "
                                       "the measured GPU", guard=("ge", "le"), ge=0.01, le=100)
    storage_price_per_tb_month: float = field(
        10.0, "Owned storage price", "currency per TB-month",
        "Storage next to owned servers: disks, their power and support.",
        "estimate: enterprise NAS over 5 years", ge=0, le=10_000 * SMALL_UNIT)
    network_price_per_tb: float = field(
        5.0, "Owned network price", "currency per TB out",
        "Data sent out from the owned hall.", "estimate: colocation IP transit", ge=0,
        le=10_000 * SMALL_UNIT)
    financing: Financing = Field(default_factory=CashFinancing, title="Financing",
                                 description="cash, or a loan with APR, term and down payment")

    @field_validator("resale_fraction_by_year")
    @classmethod
    def _resale_in_range(cls, values: tuple[float, ...]) -> tuple[float, ...]:
        for value in values:
            if not 0 <= value <= 1:
                raise ValueError(f"each resale fraction must be between 0 and 1, got {value}")
        if any(b > a for a, b in zip(values, values[1:])):
            raise ValueError("resale fractions must not increase with age")
        return values

    @model_validator(mode="after")
    def _idle_below_max(self) -> "Owned":
        if self.power_kw_idle > self.power_kw_max:
            raise ValueError(f"power_kw_idle ({self.power_kw_idle}) must be <= power_kw_max "
                             f"({self.power_kw_max})")
        return self


# Read from ``owned`` for the whole fleet: hardware failures set the waste of gang jobs on every
# source (one rate per plan, design 4.4), storage and network next to the servers are the
# hall's, not a type's, and one financing (cash or a loan's terms) pays for every purchase.
FLEET_WIDE = ("failures_per_server_year", "storage_price_per_tb_month", "network_price_per_tb",
              "financing")


def _optional_owned_fields() -> dict:
    """Every field of :class:`Owned` as an optional override: same title, unit, help and bounds,
    default None (= the ``owned`` value)."""
    out = {}
    for name, info in Owned.model_fields.items():
        if name in FLEET_WIDE:
            continue
        inner = Annotated[(info.annotation, *info.metadata)] if info.metadata else \
            info.annotation
        out[name] = (Optional[inner], Field(None, title=info.title, description=info.description,
                                            json_schema_extra=info.json_schema_extra))
    return out


class _ServerTypeBase(Section):
    """A server type of a fleet of several generations (issue 26): what differs from ``owned``,
    when it can be bought, and what its successor does to its resale value."""

    id: str = field("h100", "Type id", "text", "Names the type in counts, decisions and "
                    "positions.", pattern=TYPE_ID_PATTERN)
    available_from: Optional[str] = field(
        None, "Available from", "YYYY-MM", "First month it can be bought; empty = any time.",
        pattern=MONTH_PATTERN)
    available_until: Optional[str] = field(
        None, "Available until", "YYYY-MM", "Last month it can be bought; empty = no end.",
        pattern=MONTH_PATTERN)
    successor: Optional[str] = field(
        None, "Successor", "type id", "The type whose arrival (its first month available) "
        "lowers this type's resale value.", pattern=TYPE_ID_PATTERN)
    resale_drop_at_successor: float = field(
        0.0, "Resale drop at successor", "fraction of resale value",
        "Share of the resale value lost for a sale in or after the month the successor becomes "
        "available.", "estimate", ge=0, le=1)


ServerType = create_model("ServerType", __base__=_ServerTypeBase,
                          __doc__=_ServerTypeBase.__doc__ + " Every field of ``owned`` may be "
                          "set (None: as ``owned``); checked across fields as ``owned`` is.",
                          **_optional_owned_fields())
ServerType.__module__ = __name__


def type_owned(base: "Owned", server_type) -> "Owned":
    """The ``owned`` section of one server type: ``owned`` with the type's overrides.

    Parameters
    ----------
    base : Owned
        The scenario's ``owned`` section.
    server_type : ServerType
        The type.

    Returns
    -------
    Owned
        Validated (``power_kw_idle`` <= ``power_kw_max``, resale fractions not increasing).
    """
    changes = {name: getattr(server_type, name) for name in Owned.model_fields
               if name not in FLEET_WIDE and getattr(server_type, name) is not None}
    if not changes:
        return base
    return Owned.model_validate({**base.model_dump(), **{
        k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in changes.items()}})
