"""The plan-wide settings of a scenario: the horizon, discounting, tax and the reporting
currency (``finance``), the exchange rate to the one foreign currency (``fx``), and how usage
becomes demand (``profile``: growth, interruptible share, peak-to-average, demand basis).

Separate from the owned servers and the cloud because none of them prices a source: they set
the calendar, the discounting, the conversion and the demand every source serves.
"""
from __future__ import annotations

from typing import Literal, Optional

from models.fields import field
from models.scenario_types import CURRENCY_PATTERN, MONTH_PATTERN, Section


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
