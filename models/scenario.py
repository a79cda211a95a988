"""Scenario: every cost assumption of a plan, as frozen pydantic v2 sections (design 4.2, 9.2).

Each field carries its unit, bounds and the source of its default (design section 8).
``Scenario.model_validate({})`` is the default 8x H100 versus AWS p5 scenario.
"""
from __future__ import annotations

import math
from typing import Annotated, Literal, Optional, Union

from pydantic import BaseModel, Field, create_model, field_validator, model_validator

from models.fields import SECTION_CONFIG, field
from models.json_numbers import whole_numbers
from models.ranges import Uncertainty

# The largest fleet a scenario can name (owned, proposed, bought in one decision); the optimizers
# stop there too, so that every plan they find can be typed back in as a proposal.
MAX_SERVERS = 100_000
MONTH_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])$"
OFFER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
CURRENCY_PATTERN = r"^[A-Z]{3}$"
# Upper bounds of money fields are written in dollars and scaled by this, so that a currency
# with a small unit fits as well (1 USD is about 1,400 KRW, 150 JPY, 16,000 IDR).
SMALL_UNIT = 20_000
H100_QUOTES = "8x H100 SXM quotes $270k-$317k, 2023-2024"
LLAMA3 = ("Llama 3 405B training: 419 unexpected interruptions in 54 days on 16,384 H100 GPUs, "
          "about 1.4 per 8-GPU server-year")


class Section(BaseModel):
    model_config = SECTION_CONFIG


Month = Annotated[str, Field(pattern=MONTH_PATTERN)]
OfferId = Annotated[str, Field(pattern=OFFER_ID_PATTERN)]
Count = Annotated[int, Field(ge=0)]


def only_pattern_keys(schema: dict) -> None:
    """JSON Schema of a mapping keyed by Month or OfferId: no other key (a callable, so that
    the field stays a plain pydantic Field for models.fields.field_meta).

    Parameters
    ----------
    schema : dict
        The mapping's JSON Schema, changed in place.
    """
    schema["additionalProperties"] = False


class Finance(Section):
    start_month: Optional[str] = field(
        None, "Start month", "YYYY-MM", "First month of the plan; empty = the month after the "
        "later of the usage profile's last period and the current month. A month in the past "
        "is planned as set, with a warning.", pattern=MONTH_PATTERN)
    horizon_months: int = field(60, "Horizon", "months", "Length of the plan.",
                                essential=True, ge=1, le=240)
    discount_rate_annual: float = field(
        0.10, "Discount rate", "fraction per year", "Monthly rate is (1+r)^(1/12)-1.",
        "typical corporate hurdle rate (estimate)", essential=True, ge=0, le=1)
    currency: str = field("USD", "Reporting currency", "ISO 4217 code",
                          "Every figure of the plan is in it; owned costs and cloud prices may "
                          "be entered in another (the currency of owned costs, of cloud "
                          "prices).",
                          pattern=CURRENCY_PATTERN)
    tax_rate: float = field(0.0, "Tax rate", "fraction", "Profit tax rate for the tax shield "
                            "of deductible costs; 0 = pre-tax plan.", ge=0, le=0.9)
    tax_depreciation: Literal["straight_line", "macrs_5"] = field(
        "straight_line", "Tax depreciation", "method",
        "Straight-line over the useful life, or US MACRS 5-year (20/32/19.2/11.52/11.52/5.76 %).")
    power_price_inflation_annual: float = field(
        0.0, "Power price inflation", "fraction per year", ge=-0.5, le=1)
    staff_cost_inflation_annual: float = field(
        0.0, "Staff cost inflation", "fraction per year", ge=-0.5, le=1)
    horizon_end: Literal["liquidate", "prorate"] = field(
        "liquidate", "Horizon end rule", "liquidate | prorate",
        "liquidate: servers are sold at resale value and loans paid off at the end of the last "
        "month, and every commitment payment still owed is counted in its month and discounted "
        "(a commitment cannot be exited). prorate: a window on a going concern; commitment "
        "payments after the last month are left out and an upfront payment counts in proportion "
        "to its months inside the horizon.")
    tax_payment_lag_months: int = field(
        0, "Tax payment lag", "months", "Tax effects of a month are paid this many months "
        "later.", ge=0, le=24)


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


TYPE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
TypeId = Annotated[str, Field(pattern=TYPE_ID_PATTERN)]
# sell_from keys: a purchase month, or type:month in a scenario with server types
SOLD_COHORT_PATTERN = r"^([A-Za-z0-9_-]{1,20}:)?\d{4}-(0[1-9]|1[0-2])$"
SoldCohort = Annotated[str, Field(pattern=SOLD_COHORT_PATTERN)]


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


class OnDemand(Section):
    price_per_gpu_hour: float = field(6.88, "On-demand price", "currency per GPU-hour",
                                      source="AWS p5.48xlarge us-east-1 $55.04/h, SkyPilot "
                                      "catalog 00148f2", essential=True, ge=0, le=1000 * SMALL_UNIT)
    price_trend_annual: float = field(0.0, "On-demand price trend", "fraction per year",
                                      "Cloud prices tend to fall: -20 % a year means each year's prices are 20 % "
                                      "below the year before's.",
                                      ge=-0.9, le=1)
    billing_increment_seconds: float = field(1, "Billing increment", "seconds",
                                             "Rounding overhead = increment/2 per session "
                                             "longer than the billing minimum.",
                                             "EC2 bills per second", guard=("le",), ge=0, le=86_400)
    billing_minimum_seconds: float = field(
        60, "Billing minimum", "seconds per session",
        "A session shorter than this is billed for this long (on demand and spot).",
        "EC2 bills per second with a 60 s minimum", guard=("le",), ge=0, le=86_400)
    mean_session_hours: float = field(24, "Mean session length", "hours",
                                      "At least one second.", guard=("ge", "le"),
                                      ge=1 / 3600, le=8760)
    relative_throughput: float = field(1.0, "Relative throughput", "work per GPU-hour vs the "
                                       "measured GPU", "Commitments and spot rent the same GPU.",
                                       guard=("ge", "le"), ge=0.01, le=100)


class CommitmentOffer(Section):
    id: str = field("1y", "Offer id", "text", pattern=OFFER_ID_PATTERN)
    term_months: int = field(12, "Term", "months", ge=1, le=120)
    discount: float = field(0.41, "Discount", "fraction of on-demand price",
                            source="Epoch AI cost model (1y 41 %, 3y 64 %)", essential=True,
                            ge=0, lt=1)
    price_per_gpu_hour: Optional[float] = field(
        None, "Committed price", "currency per GPU-hour",
        "Absolute price at first signing; overrides the discount.", ge=0, le=1000 * SMALL_UNIT)
    payment: Literal["none", "partial", "all"] = field("none", "Upfront payment", "option")
    block_gpus: int = field(8, "Block size", "GPUs per commitment unit",
                            source="one p5.48xlarge = 8 GPUs", guard=("le",), ge=1, le=1024)


DEFAULT_OFFERS = (CommitmentOffer(id="1y", term_months=12, discount=0.41),
                  CommitmentOffer(id="3y", term_months=36, discount=0.64))


class Spot(Section):
    discount: float = field(0.70, "Spot discount", "fraction of on-demand price",
                            source="AWS p5 spot from $11.25/h vs $55.04/h (us-east-2)",
                            essential=True, ge=0, lt=1)
    price_per_gpu_hour: Optional[float] = field(
        None, "Spot price", "currency per GPU-hour", "Overrides the discount.", ge=0,
        le=1000 * SMALL_UNIT)
    availability: float = field(0.8, "Spot availability", "fraction of interruptible demand",
                                "Share of interruptible work spot capacity can take; the rest "
                                "runs on demand.", "estimate", ge=0, le=1)
    interruptions_per_instance_hour: float = field(
        0.001, "Interruption rate", "per instance-hour",
        "A Spot Advisor monthly bucket f converts as -ln(1-f)/730.",
        "AWS Spot Advisor '> 20 %' bucket (estimate)", guard=("le",), ge=0, le=10)
    notice_seconds: float = field(120, "Interruption notice", "seconds",
                                  source="AWS 120 s, GCP and Azure 30 s", guard=("le",), ge=0,
                                  le=86_400)
    checkpoint_seconds: float = field(60, "Checkpoint write time", "seconds", guard=("le",),
                                      gt=0, le=86_400)
    restart_seconds: float = field(600, "Restart time", "seconds",
                                   "Re-acquire, pull image, reload data.", guard=("le",),
                                   ge=0, le=86_400)
    nodes_per_job: int = field(1, "Nodes per job", "nodes",
                               "A gang is interrupted when any node is.", guard=("le",),
                               ge=1, le=100_000)


class CloudData(Section):
    storage_tb: float = field(0, "Cloud storage", "TB", "Datasets and checkpoints.",
                              guard=("le",), ge=0, le=1e6)
    storage_price_per_gb_month: float = field(0.023, "Storage price", "currency per GB-month",
                                              source="AWS S3 Standard", ge=0, le=10 * SMALL_UNIT)
    egress_tb_per_month: float = field(0, "Egress", "TB per month", guard=("le",), ge=0, le=1e6)
    egress_price_per_gb: float = field(0.09, "Egress price", "currency per GB",
                                       source="AWS internet egress, first 10 TB", ge=0,
                                       le=10 * SMALL_UNIT)


class CloudTerms(Section):
    currency: Optional[str] = field(
        None, "Currency of cloud prices", "ISO 4217 code",
        "On-demand, spot and committed prices, cloud storage and egress, setup fee and support, "
        "and the commitments already signed are billed in it; empty = the reporting currency.",
        pattern=CURRENCY_PATTERN)
    prices_include_vat: bool = field(False, "Cloud prices include VAT", "yes/no")
    vat_rate: float = field(0.0, "VAT rate", "fraction", ge=0, le=1)
    setup_fee: float = field(0.0, "Cloud setup fee", "currency", ge=0, le=1e8 * SMALL_UNIT)
    support_fraction: float = field(0.0, "Cloud support", "fraction of monthly cloud spend",
                                    ge=0, le=1)
    support_minimum_per_month: float = field(0.0, "Cloud support minimum", "currency per month",
                                             ge=0, le=1e7 * SMALL_UNIT)


class FX(Section):
    """The exchange rate between the reporting currency and the one foreign currency."""

    rate: Optional[float] = field(
        None, "Exchange rate", "reporting currency per foreign unit",
        "Units of the reporting currency per unit of the foreign one at the plan's first month "
        "(e.g. 1,400 KRW per USD). Required when owned costs or cloud prices are in another "
        "currency than the reporting one; every payment is converted at the rate of its month.",
        guard=("le",), gt=0, le=1e6)
    trend_annual: float = field(
        0.0, "Exchange rate trend", "fraction per year",
        "Yearly change of the rate; above 0 the foreign currency gets dearer.", ge=-0.5, le=1)
    as_of: Optional[str] = field(
        None, "Rate as of", "YYYY-MM-DD", "The date the rate was taken, for the record.",
        pattern=r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")


class ProfileOptions(Section):
    interruptible_share: Optional[float] = field(
        None, "Interruptible share", "fraction of demand",
        "When set, replaces the profile's own steady/interruptible split.", ge=0, le=1)
    growth_annual: float = field(0.0, "Demand growth", "fraction per year",
                                 "Hour t of the plan is scaled by (1+g)^(t/8760); the grown "
                                 "demand must stay within 10,000,000 GPUs in every hour.",
                                 essential=True, guard=("le",), ge=-0.9, le=10)
    peak_to_average: float = field(1.0, "Peak-to-average", "ratio",
                                   "Busiest hour over the average hour of a day, for daily "
                                   "and monthly rows.", ge=1, le=24)
    job_gpu_hours: Optional[float] = field(
        None, "Typical job size", "GPU-hours per job",
        "When set, the plan reports the expected cost per completed job, retries included.",
        guard=("le",), gt=0, le=1e9)
    demand_basis: Literal["allocated", "busy"] = field(
        "allocated", "Demand basis", "allocated | busy",
        "allocated: plan for the GPU-hours of the usage file (what is billed). busy: plan for "
        "the GPU-hours the GPUs were working, from a GPU busy-time file uploaded with the "
        "usage, divided by the target utilization.")
    target_utilization: float = field(
        0.8, "Target GPU utilization", "fraction of allocated time busy",
        "With demand basis 'busy': how busy owned GPUs will be once their input pipelines keep "
        "them fed; demand = busy GPU-hours / this, never more than was allocated.",
        "planning choice, not a measurement; GPUs under 50 % busy are usually starved of data",
        ge=0.05, le=1)


class PositionServers(Section):
    """Servers already owned when the plan starts."""

    count: int = field(1, "Servers owned", "servers", guard=("le",), ge=1, le=MAX_SERVERS)
    purchased: str = field("2025-01", "Purchased", "YYYY-MM",
                           "Month of purchase: sets their age (resale value, remaining life, "
                           "depreciation already taken).", pattern=MONTH_PATTERN)
    price: float = field(300_000, "Purchase price", "currency per server", ge=0,
                         le=1e8 * SMALL_UNIT)
    install_cost: float = field(0.0, "Install cost", "currency per server", ge=0,
                                le=1e8 * SMALL_UNIT)
    type: Optional[str] = field(None, "Server type", "type id",
                                "The id of one of the server types; empty = the first type.",
                                pattern=TYPE_ID_PATTERN)


class PositionCommitment(Section):
    """A commitment already signed when the plan starts: paid to its end whatever the plan
    does."""

    id: str = field("signed", "Contract id", "text", pattern=r"^[A-Za-z0-9_.:/-]{1,80}$")
    gpus: int = field(8, "GPUs committed", "GPUs", guard=("le",), ge=1, le=1_000_000)
    start: str = field("2025-01", "Term start", "YYYY-MM", pattern=MONTH_PATTERN)
    term_months: int = field(12, "Term", "months", ge=1, le=120)
    price_per_gpu_hour: float = field(2.0, "Committed price", "currency per GPU-hour",
                                      "As billed (with VAT if cloud prices include it).",
                                      ge=0, le=1000 * SMALL_UNIT)
    payment: Literal["none", "partial", "all"] = field("none", "Upfront payment", "option",
                                                       "What was paid at signing (already "
                                                       "spent before the plan).")
    currency: Optional[str] = field(
        None, "Contract currency", "ISO 4217 code",
        "The currency the contract is billed in, e.g. USD for a dollar contract in a plan in "
        "won: its payments are converted at each month's exchange rate (an upfront one at "
        "the signing month's). Empty = the currency of cloud prices.",
        pattern=CURRENCY_PATTERN)


class Position(Section):
    """What the team holds when the plan starts; every strategy starts from it.

    Checked across fields: the ``count`` of all ``servers`` rows adds up to at most 100,000.
    """

    servers: tuple[PositionServers, ...] = Field(default=(), max_length=50,
                                                 title="Servers owned")
    commitments: tuple[PositionCommitment, ...] = Field(default=(), max_length=50,
                                                        title="Commitments signed")

    @model_validator(mode="after")
    def _fleet_within_limit(self) -> "Position":
        total = sum(c.count for c in self.servers)
        if total > MAX_SERVERS:
            raise ValueError(f"position.servers: {total:,} servers in all; at most "
                             f"{MAX_SERVERS:,}")
        return self


DEMAND_SCENARIO_PATTERN = r"^[A-Za-z0-9_ .%+-]{1,40}$"


class DemandScenario(Section):
    """One path demand may take (issue 27): its growth and how likely it is."""

    name: str = field("base", "Scenario name", "text", "Names the path in the plan.",
                      pattern=DEMAND_SCENARIO_PATTERN)
    growth_annual: float = field(0.3, "Demand growth", "fraction per year",
                                 "Demand grows like this from the plan's first month if this "
                                 "path turns out.", guard=("le",), ge=-0.9, le=10)
    probability: float = field(1.0, "Probability", "fraction",
                               "How likely this path is; the paths' probabilities add up to 1.",
                               ge=0, le=1)
    peak_to_average: Optional[float] = field(
        None, "Peak-to-average", "ratio", "This path's busiest hour over the average hour of a "
        "day, for daily and monthly usage rows; empty: as the profile section says.",
        ge=1, le=24)
    interruptible_share: Optional[float] = field(
        None, "Interruptible share", "fraction of demand", "This path's share of work that "
        "may be interrupted; empty: as the profile section says.", ge=0, le=1)


class Risk(Section):
    """How the robust plan weighs the dear outcomes against the expected one (issue 27)."""

    cvar_alpha: float = field(0.9, "CVaR level", "fraction",
                              "The CVaR is the mean PV of the dearest (1 - level) share of "
                              "outcomes.", ge=0.5, le=0.99)
    cvar_weight: float = field(0.0, "Risk aversion", "fraction",
                               "0: the least expected PV; 1: the least CVaR of PV; between: "
                               "the blend (1 - w) x expected PV + w x CVaR.",
                               schema={"widget": "slider"}, ge=0, le=1)


class Staging(Section):
    """The staged plan: when to buy servers and sign commitments.

    Checked across fields: demand scenarios' names are unique and their probabilities add
    up to 1.
    """

    decision_interval_months: Literal[1, 3, 6, 12] = field(
        3, "Decision interval", "months",
        "Decisions every this many months from the plan's first month (also at the end of a "
        "useful life and of a commitment term, so that every static plan is a schedule).")
    allow_sales: bool = field(False, "Allow selling servers", "yes/no",
                              "Servers may be sold at resale value at a decision point.")
    capital_budget_per_year: Optional[float] = field(
        None, "Capital budget", "currency per calendar year",
        "Purchases and upfront commitment payments in each calendar year stay within it.",
        ge=0, le=1e11 * SMALL_UNIT)
    max_servers: Optional[int] = field(None, "Hall limit", "servers",
                                       "Servers online at once (space or power).",
                                       guard=("le",), ge=0,
                                       le=MAX_SERVERS)
    max_power_kw: Optional[float] = field(
        None, "Hall power limit", "kW", "Power of the servers online at once at maximum draw "
        "x PUE, every type together.", guard=("le",), ge=0, le=1e9)
    demand_scenarios: tuple[DemandScenario, ...] = Field(
        default=(), max_length=9, title="Demand scenarios",
        description="Paths demand may take, each with its growth and probability: the robust "
                    "plan's first decisions hold for all of them; empty: three, at the demand "
                    "growth range's low end, the plan's own growth and the high end, with "
                    "probabilities 0.25, 0.5 and 0.25 (unless 'Scenarios from the growth "
                    "range' is off, or the growth range has no width: then no robust plan).")
    # issue 27's default, with an opt-out that keeps the growth range in the tornado and the
    # Monte Carlo (a growth range of no width opts out too, but removes that uncertainty)
    scenarios_from_growth_range: bool = field(
        True, "Scenarios from the growth range", "yes/no",
        "Without demand scenarios of its own, the robust plan plans for three from the demand "
        "growth range (its low end, the plan's own growth, its high end). No: a robust plan "
        "only over demand scenarios given here.")
    decide_now_months: int = field(
        12, "Decide now", "months", "Decisions in the plan's first this many months are the "
        "same in every demand scenario; later ones adapt to the path that turns out.",
        ge=1, le=240)
    risk: Risk = Field(default_factory=Risk, title="Risk")

    @model_validator(mode="after")
    def _scenarios_add_up(self) -> "Staging":
        paths = self.demand_scenarios
        if not paths:
            return self
        names = [p.name for p in paths]
        if len(set(names)) != len(names):
            raise ValueError(f"staging.demand_scenarios: names must be unique, got {names}")
        total = math.fsum(p.probability for p in paths)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"staging.demand_scenarios: the probabilities add up to "
                             f"{total:.12g}, not 1 (off by {total - 1.0:+.3g})")
        return self


class Decision(Section):
    """One month of a schedule: buy or sell servers, sign commitments (blocks of an offer).

    Checked across fields: ``sell_from``, when given, adds up to ``sell_servers`` (with the
    servers of ``sell``); ``buy``/``sell`` by type are not given beside ``buy_servers``/
    ``sell_servers``; ``commit``
    names offers of the scenario's ``commitments``, each with a multiple of its ``block_gpus``.
    """

    month: str = field("2027-01", "Month", "YYYY-MM", pattern=MONTH_PATTERN)
    buy_servers: int = field(0, "Buy servers", "servers", guard=("le",), ge=0, le=MAX_SERVERS)
    sell_servers: int = field(0, "Sell servers", "servers", guard=("le",), ge=0, le=MAX_SERVERS)
    sell_from: dict[SoldCohort, Count] = Field(
        default_factory=dict, title="Sold servers by purchase month",
        description="Purchase month (YYYY-MM, or type:YYYY-MM with server types) -> servers "
                    "sold from it; empty: oldest first.",
        json_schema_extra=only_pattern_keys)
    buy: dict[TypeId, Count] = Field(default_factory=dict, title="Buy by type",
                                     description="Servers bought per server type id",
                                     json_schema_extra=only_pattern_keys)
    sell: dict[TypeId, Count] = Field(default_factory=dict, title="Sell by type",
                                      description="Servers sold per server type id (oldest "
                                                  "first within a type)",
                                      json_schema_extra=only_pattern_keys)
    commit: dict[OfferId, Count] = Field(default_factory=dict, title="Commit",
                                         description="GPUs committed per offer id this month",
                                         json_schema_extra=only_pattern_keys)


class Proposed(Section):
    """The analyst's own plan, costed as the ``proposed`` strategy.

    Checked across fields: a ``schedule``, or ``servers`` and ``committed_gpus``, not both;
    the schedule has at most one decision a month; ``committed_gpus`` names offers of the
    scenario's ``commitments``, each with a multiple of its ``block_gpus``.
    """

    servers: Optional[int] = field(None, "Proposed servers", "servers", guard=("le",), ge=0,
                                   le=MAX_SERVERS)
    servers_by_type: dict[TypeId, Count] = Field(
        default_factory=dict, title="Proposed servers by type",
        description="Servers per server type id, held for the whole horizon",
        json_schema_extra=only_pattern_keys)
    committed_gpus: dict[OfferId, Count] = Field(default_factory=dict,
                                                 title="Proposed commitments",
                                                 description="GPUs committed per offer id",
                                                 json_schema_extra=only_pattern_keys)
    schedule: tuple[Decision, ...] = Field(
        default=(), max_length=240, title="Proposed schedule",
        description="Decisions by month (months without one omitted); when given, the "
                    "proposed strategy is this schedule from the position.")
    # an empty schedule cannot say "keep what is held": every stored scenario dumps
    # "schedule": [] for "no proposal", so the proposal of no decision is its own field
    # (issue 37, item 5)
    hold_only: bool = field(False, "Propose keeping only what is held", "yes/no",
                            "Cost holding the servers and contracts of 'What you hold today' "
                            "and buying or signing nothing more (work beyond them on demand or "
                            "spot). Not with proposed servers, commitments or a schedule.")


class Scenario(Section):
    """Every assumption of a plan; ``{}`` is the default scenario.

    Checked across fields, beyond each section's own rules (a 422 names the rule): the ids of
    ``commitments`` are unique; ``proposed.committed_gpus`` and each ``proposed.schedule[].commit``
    name offers of ``commitments`` with a multiple of the offer's ``block_gpus``; at most one
    currency other than ``finance.currency`` among ``owned.currency`` and
    ``cloud_terms.currency``, and when there is one ``fx.rate`` is required; the ids of
    ``server_types`` are unique, each type's ``owned`` (``owned`` with its overrides) keeps
    the rules of ``owned``, a ``successor`` and every type a position row, a proposal or a
    decision names (``type``, ``servers_by_type``, ``buy``, ``sell``, ``type:`` keys of
    ``sell_from``) names one of ``server_types``, and a type's ``available_until`` is not
    before its ``available_from``. The engine also
    refuses a plan whose demand, grown by ``profile.growth_annual``, needs more than
    10,000,000 GPUs in an hour.
    """

    name: str = field("Built-in defaults: 8x H100 vs AWS p5 on demand", "Scenario name",
                      "text", max_length=200)
    finance: Finance = Field(default_factory=Finance)
    owned: Owned = Field(default_factory=Owned)
    on_demand: OnDemand = Field(default_factory=OnDemand)
    commitments: tuple[CommitmentOffer, ...] = Field(default=DEFAULT_OFFERS, max_length=8,
                                                  title="Commitment offers")
    spot: Spot = Field(default_factory=Spot)
    cloud_data: CloudData = Field(default_factory=CloudData)
    cloud_terms: CloudTerms = Field(default_factory=CloudTerms)
    fx: FX = Field(default_factory=FX)
    profile: ProfileOptions = Field(default_factory=ProfileOptions)
    position: Position = Field(default_factory=Position)
    staging: Staging = Field(default_factory=Staging)
    proposed: Proposed = Field(default_factory=Proposed)
    uncertainty: Uncertainty = Field(default_factory=Uncertainty)
    server_types: tuple[ServerType, ...] = Field(
        default=(), max_length=8, title="Server types",
        description="Generations of servers a fleet may hold, each naming what differs from "
                    "the owned servers section; empty: one type, the owned servers.")

    @model_validator(mode="after")
    def _server_types_consistent(self) -> "Scenario":
        ids = [t.id for t in self.server_types]
        if len(set(ids)) != len(ids):
            raise ValueError(f"server_types: ids must be unique, got {ids}")
        for t in self.server_types:
            owned = type_owned(self.owned, t)      # raises on idle > max or rising resale
            if owned.currency and owned.currency != self.finance.currency and (
                    owned.currency != (self.foreign_currency() or owned.currency)
                    or self.fx.rate is None):
                raise ValueError(f"server_types[{t.id}].currency {owned.currency}: one foreign "
                                 "currency, with fx.rate, for the whole plan")
            if t.successor is not None and t.successor not in ids:
                raise ValueError(f"server_types[{t.id}].successor names unknown type "
                                 f"{t.successor!r}; types are {ids}")
            if t.available_from and t.available_until and t.available_until < t.available_from:
                raise ValueError(f"server_types[{t.id}]: available_until {t.available_until} "
                                 f"is before available_from {t.available_from}")
        named = [(f"position.servers[{i}].type", p.type) for i, p in
                 enumerate(self.position.servers)]
        named += [("proposed.servers_by_type", k) for k in self.proposed.servers_by_type]
        for d in self.proposed.schedule:
            named += [(f"proposed.schedule[{d.month}].buy", k) for k in d.buy]
            named += [(f"proposed.schedule[{d.month}].sell", k) for k in d.sell]
            named += [(f"proposed.schedule[{d.month}].sell_from", k.split(":")[0])
                      for k in d.sell_from if ":" in k]
        for where, type_id in named:
            if type_id is not None and type_id not in ids:
                raise ValueError(f"{where} names unknown server type {type_id!r}; "
                                 f"server_types are {ids}")
        p = self.proposed
        if p.hold_only and (p.servers is not None or p.servers_by_type or p.committed_gpus
                            or p.schedule):
            raise ValueError("proposed.hold_only: keeping only what is held proposes no "
                             "servers, commitments or schedule; clear them or untick it")
        if self.proposed.servers_by_type and (self.proposed.servers is not None
                                              or self.proposed.schedule):
            raise ValueError("proposed: give servers or servers_by_type, not both (and no "
                             "schedule with them)")
        for d in self.proposed.schedule:
            if (d.buy or d.sell) and (d.buy_servers or d.sell_servers):
                raise ValueError(f"proposed.schedule[{d.month}]: give buy/sell by type or "
                                 "buy_servers/sell_servers, not both")
        return self

    @model_validator(mode="after")
    def _one_exchange_rate(self) -> "Scenario":
        reporting = self.finance.currency
        foreign = sorted({c for c in (self.owned.currency, self.cloud_terms.currency)
                          if c and c != reporting})
        if len(foreign) > 1:
            raise ValueError(f"owned.currency ({self.owned.currency}) and cloud_terms.currency "
                             f"({self.cloud_terms.currency}) both differ from the reporting "
                             f"currency ({reporting}); one exchange rate converts one foreign "
                             "currency")
        for c in self.position.commitments:
            if c.currency and c.currency != reporting and foreign and c.currency != foreign[0]:
                raise ValueError(f"position.commitments: contract {c.id} is in {c.currency}, "
                                 f"prices are in {reporting} and {foreign[0]}; one exchange "
                                 "rate converts one foreign currency")
            if c.currency and c.currency != reporting and not foreign:
                foreign = [c.currency]
        if foreign and self.fx.rate is None:
            raise ValueError(f"fx.rate is required: prices in {foreign[0]} are converted into "
                             f"the reporting currency {reporting} (units of {reporting} per "
                             f"{foreign[0]})")
        return self

    def market_currency(self, market: str) -> str:
        """The currency a market's prices are entered in.

        Parameters
        ----------
        market : str
            ``"owned"``, ``"cloud"`` or ``"reporting"``.

        Returns
        -------
        str
            ISO 4217 code; the reporting currency when the market names none.
        """
        own = {"owned": self.owned.currency, "cloud": self.cloud_terms.currency}.get(market)
        return own or self.finance.currency

    def converts(self, market: str) -> bool:
        """Whether a market's prices are converted at the exchange rate.

        Parameters
        ----------
        market : str
            Market, ``"owned"`` or ``"cloud"``.

        Returns
        -------
        bool
            True when the market's currency is not the reporting one.
        """
        return self.market_currency(market) != self.finance.currency

    def foreign_currency(self) -> Optional[str]:
        """The one currency other than the reporting one that prices are entered in, if any.

        Returns
        -------
        str or None
            ISO 4217 code; None for a plan in one currency.
        """
        for market in ("owned", "cloud"):
            if self.converts(market):
                return self.market_currency(market)
        return next((c.currency for c in self.position.commitments
                     if c.currency and c.currency != self.finance.currency), None)

    def commitment_market(self, c: "PositionCommitment") -> str:
        """Whose exchange rate converts a signed contract's payments.

        Parameters
        ----------
        c : PositionCommitment
            A contract of the position.

        Returns
        -------
        str
            ``"cloud"`` for a contract in the cloud prices' currency (its default),
            ``"reporting"`` for one in the reporting currency (not converted), ``"foreign"``
            for one in the foreign currency when cloud prices are not (converted at the rate).
        """
        currency = c.currency or self.market_currency("cloud")
        if currency == self.market_currency("cloud"):
            return "cloud"
        return "reporting" if currency == self.finance.currency else "foreign"

    @model_validator(mode="after")
    def _proposed_matches_offers(self) -> "Scenario":
        ids = [offer.id for offer in self.commitments]
        if len(set(ids)) != len(ids):
            raise ValueError(f"commitment ids must be unique, got {ids}")
        offers = {offer.id: offer for offer in self.commitments}
        _check_blocks("proposed.committed_gpus", self.proposed.committed_gpus, offers)
        months = [d.month for d in self.proposed.schedule]
        if len(set(months)) != len(months):
            raise ValueError("proposed.schedule has two decisions for the same month")
        if self.proposed.schedule and (self.proposed.servers is not None
                                       or self.proposed.committed_gpus):
            raise ValueError("proposed: give either a schedule or servers and committed_gpus")
        for d in self.proposed.schedule:
            _check_blocks(f"proposed.schedule[{d.month}].commit", d.commit, offers)
            selling = d.sell_servers + sum(d.sell.values())
            if d.sell_from and sum(d.sell_from.values()) != selling:
                raise ValueError(f"proposed.schedule[{d.month}]: sell_from adds up to "
                                 f"{sum(d.sell_from.values())}, sell_servers is "
                                 f"{selling}")
        return self

    def with_changes(self, **sections: dict) -> "Scenario":
        """A what-if copy with some fields of some sections changed, revalidated.

        Parameters
        ----------
        **sections : dict
            Section name to the fields to change (``owned={"server_price": 250_000}``); a section
            that is a list (``commitments``) is replaced whole.

        Returns
        -------
        Scenario
            The copy.

        Raises
        ------
        pydantic.ValidationError
            A change that breaks a bound or a rule.
        """
        data = self.model_dump()
        for section, changes in sections.items():
            if isinstance(data[section], dict):
                data[section] = {**data[section], **changes}
            else:
                data[section] = changes
        return Scenario.model_validate(data)


def scenario_document(s: Scenario) -> dict:
    """A scenario as the plan document echoes it: JSON types, and the fields of server types
    (issue 26) left out where they are empty, so that a plan of one type reads as before.

    Parameters
    ----------
    s : Scenario
        The scenario.

    Returns
    -------
    dict
        ``s.model_dump(mode="json")`` without an empty ``server_types``, ``proposed
        .servers_by_type``, ``staging.max_power_kw``, ``position.servers[].type`` or
        ``proposed.schedule[].buy`` / ``sell``.
    """
    data = s.model_dump(mode="json")
    pairs = [(data, "server_types"), (data["proposed"], "servers_by_type"),
             (data["staging"], "max_power_kw"), (data["staging"], "demand_scenarios")]
    pairs += [(row, "type") for row in data["position"]["servers"]]
    pairs += [(d, k) for d in data["proposed"]["schedule"] for k in ("buy", "sell")]
    for holder, key in pairs:
        if holder.get(key) in (None, {}, []):
            del holder[key]
    return data


def scenario_from_json(text: str | bytes) -> Scenario:
    """A scenario document (the JSON of a file, an API body or an upload part), its types
    checked as JSON has them.

    Parameters
    ----------
    text : str or bytes
        JSON text of a scenario object.

    Returns
    -------
    Scenario
        The validated scenario.

    Raises
    ------
    pydantic.ValidationError
        Broken JSON, a bound or rule broken, or a value of the wrong JSON type: a number in a
        string (``"8"``) or a boolean for a number is refused, not converted (the form's text
        inputs go through :meth:`Scenario.model_validate`, which reads numbers from text). A
        whole number written ``8.0`` is the integer 8, as JSON Schema reads it
        (models.json_numbers).
    """
    return Scenario.model_validate_json(whole_numbers(text), strict=True)


def validation_messages(error) -> list[str]:
    """One line per problem of a pydantic ValidationError.

    Parameters
    ----------
    error : pydantic.ValidationError
        The error.

    Returns
    -------
    list of str
        ``'owned.pue: must be >= 1 (got 0.5)'`` style lines: the field path, the message and
        the value given.
    """
    lines = []
    for item in error.errors():
        path = ".".join(str(part) for part in item["loc"]) or "scenario"
        got = item.get("input")
        suffix = "" if isinstance(got, (dict, list)) or got is None else f" (got {got!r})"
        lines.append(f"{path}: {item['msg']}{suffix}")
    return lines


def _check_blocks(where: str, committed: dict[str, int], offers: dict) -> None:
    """GPUs committed per offer: known offers, whole non-negative blocks."""
    for offer_id, gpus in committed.items():
        if offer_id not in offers:
            raise ValueError(f"{where} names unknown offer {offer_id!r}; offers are "
                             f"{list(offers)}")
        if gpus < 0 or gpus % offers[offer_id].block_gpus:
            raise ValueError(f"{where}[{offer_id!r}] = {gpus} must be a non-negative multiple "
                             f"of block_gpus {offers[offer_id].block_gpus}")


# Which market's currency a money field is entered in (forms, the workbook and the CLI label
# money inputs with it); a path not listed is in the reporting currency.
MARKET_OF_SECTION = {"owned": "owned", "position.servers": "owned", "on_demand": "cloud",
                     "commitments": "cloud", "spot": "cloud", "cloud_data": "cloud",
                     "cloud_terms": "cloud", "position.commitments": "cloud"}


def market_of(path: str) -> str:
    """The market whose currency a money field is entered in.

    Parameters
    ----------
    path : str
        Dotted field path, list indices included (``"position.servers.0.price"``).

    Returns
    -------
    str
        ``"owned"``, ``"cloud"`` or ``"reporting"``.

    Examples
    --------
    >>> market_of("position.servers.0.price"), market_of("finance.discount_rate_annual")
    ('owned', 'reporting')
    """
    parts = [p for p in path.replace("[", ".").replace("]", "").split(".") if not p.isdigit()]
    for n in (2, 1):
        market = MARKET_OF_SECTION.get(".".join(parts[:n]))
        if market:
            return market
    return "reporting"
