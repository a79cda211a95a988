"""Cost lines per source and month (design 3, 4.2, 9.2).

``UnitCosts`` turns a scenario into per-month prices once; ``strategy_lines`` multiplies them by a
strategy's capacities and volumes. Owned costs are per server and linear in the number of
servers, except energy, whose busy part is priced per owned GPU-hour; commitments are per GPU
committed. Costs are positive; resale and the tax shield are credit lines of their own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.dispatch import Volumes
from models.finance import (depreciation_schedule, loan_schedule, resale_fraction,
                            trend_factors)
from models.profile import PlanCalendar, plan_calendar
from models.scenario import CommitmentOffer, Scenario

COST_LINES = ("capex", "loan_payment", "energy", "space", "maintenance", "staff",
              "commitment_upfront", "commitment", "spot", "on_demand", "storage", "egress",
              "cloud_setup", "cloud_support", "tax_on_resale")
CREDIT_LINES = ("resale_credit", "tax_shield")
START_OF_MONTH_LINES = ("capex", "commitment_upfront", "cloud_setup")
CLOUD_SPEND_LINES = ("commitment_upfront", "commitment", "spot", "on_demand", "storage", "egress")
DEDUCTIBLE_LINES = ("energy", "space", "maintenance", "staff", "commitment_upfront",
                    "commitment", "spot", "on_demand", "storage", "egress", "cloud_setup",
                    "cloud_support")


@dataclass(frozen=True)
class ServerSchedule:
    """Monthly cash flows of ONE owned server over the horizon, replacements included."""

    online: np.ndarray        # 1 when the server can take work [-]
    capex: np.ndarray         # purchases / down payments at the start of the month
    loan_payment: np.ndarray  # end of month, outstanding balance paid off on sale / at the end
    interest: np.ndarray      # interest part of loan payments (deductible)
    maintenance: np.ndarray
    space: np.ndarray
    staff: np.ndarray
    energy_idle: np.ndarray   # idle-power energy of an online server
    resale: np.ndarray        # credit at the end of the month of sale
    depreciation: np.ndarray  # tax depreciation
    resale_gain: np.ndarray   # resale minus remaining book value at sale (signed)
    loan_payoff: float        # loan balances settled early (at a sale or the horizon end)


def server_schedule(s: Scenario, cal: PlanCalendar, power_price: np.ndarray,
                    staff_factor: np.ndarray) -> ServerSchedule:
    o, months = s.owned, len(cal.hours)
    online = (np.arange(months) >= o.lead_time_months).astype(float)
    z = np.zeros(months)
    capex, loan, interest, maint, resale, dep, gain = (z.copy() for _ in range(7))
    payoff_total = 0.0
    for start in range(0, months, o.useful_life_months):
        price = o.server_price * (1.0 + o.hardware_price_trend_annual) ** (start / 12.0)
        basis = price + o.install_cost_per_server
        end = min(start + o.useful_life_months, months)  # exclusive month index of sale
        span = end - start
        if o.financing.kind == "loan":
            f = o.financing
            capex[start] += basis * f.down_payment_fraction
            pay, intr, payoff = loan_schedule(basis * (1 - f.down_payment_fraction), f.apr,
                                              f.term_months, span)
            loan[start:end] += pay
            interest[start:end] += intr
            payoff_total += payoff
        else:
            capex[start] += basis
        maint[start:end] = o.maintenance_fraction_annual * price / 12.0
        value = price * resale_fraction(span, o.resale_fraction_by_year)
        resale[end - 1] += value
        d = depreciation_schedule(basis, s.finance.tax_depreciation, o.useful_life_months, span)
        dep[start:end] += d
        gain[end - 1] += value - (basis - d.sum())
    return ServerSchedule(
        online=online, capex=capex, loan_payment=loan, interest=interest,
        maintenance=maint * online,
        space=o.power_kw_max * o.space_price_per_kw_month * online,
        staff=o.fte_cost_annual / 12.0 / o.servers_per_fte * staff_factor * online,
        energy_idle=o.power_kw_idle * o.pue * cal.hours * power_price * online,
        resale=resale, depreciation=dep, resale_gain=gain,
        loan_payoff=payoff_total)


@dataclass(frozen=True)
class OfferCosts:
    """Cash flows of ONE committed GPU of one offer, renewed at each term end."""

    offer: CommitmentOffer
    upfront: np.ndarray   # start of month
    monthly: np.ndarray   # end of month
    past_horizon: float   # committed payments of terms running past the horizon (not counted)


def offer_costs(offer: CommitmentOffer, s: Scenario, cal: PlanCalendar, vat: float
                ) -> OfferCosts:
    months = len(cal.hours)
    long_cal = plan_calendar(cal.months[0], months + offer.term_months)
    base = (offer.price_per_gpu_hour if offer.price_per_gpu_hour is not None
            else s.on_demand.price_per_gpu_hour * (1.0 - offer.discount)) / vat
    upfront_share = {"none": 0.0, "partial": 0.5, "all": 1.0}[offer.payment]
    upfront, monthly = np.zeros(months), np.zeros(months)
    past = 0.0
    for start in range(0, months, offer.term_months):
        rate = base * (1.0 + s.on_demand.price_trend_annual) ** (start / 12.0)
        term_hours = long_cal.hours[start:start + offer.term_months]
        inside = min(offer.term_months, months - start)
        upfront[start] += (upfront_share * rate * term_hours.sum() * inside / offer.term_months)
        monthly[start:start + inside] = (1.0 - upfront_share) * rate * term_hours[:inside]
        past += rate * term_hours[inside:].sum()
    return OfferCosts(offer, upfront, monthly, past)


class UnitCosts:
    """Per-month prices of a scenario, computed once and shared by every strategy."""

    def __init__(self, s: Scenario, cal: PlanCalendar):
        months = len(cal.hours)
        self.scenario, self.calendar = s, cal
        vat = 1.0 + s.cloud_terms.vat_rate if s.cloud_terms.prices_include_vat else 1.0
        self.vat = vat
        od = s.on_demand
        self.rounding = 1.0 + (od.billing_increment_seconds / 2.0) / (od.mean_session_hours * 3600)
        trend = trend_factors(months, od.price_trend_annual)
        self.on_demand_price = od.price_per_gpu_hour / vat * trend * self.rounding
        spot_base = (s.spot.price_per_gpu_hour if s.spot.price_per_gpu_hour is not None
                     else od.price_per_gpu_hour * (1.0 - s.spot.discount))
        self.spot_price = spot_base / vat * trend * self.rounding
        self.power_price = (s.owned.electricity_price_per_kwh
                            * trend_factors(months, s.finance.power_price_inflation_annual))
        staff_factor = trend_factors(months, s.finance.staff_cost_inflation_annual)
        self.server = server_schedule(s, cal, self.power_price, staff_factor)
        o = s.owned
        # energy of one busy owned GPU-hour above idle [currency per own GPU-hour]
        self.energy_per_busy_gpu_hour = ((o.power_kw_max - o.power_kw_idle) / o.gpus_per_server
                                         * o.pue * self.power_price)
        self.offers = {offer.id: offer_costs(offer, s, cal, vat) for offer in s.commitments}
        cd = s.cloud_data
        self.storage = np.full(months, cd.storage_tb * 1000 * cd.storage_price_per_gb_month / vat)
        self.egress = np.full(months, cd.egress_tb_per_month * 1000 * cd.egress_price_per_gb / vat)
        self.setup_fee = s.cloud_terms.setup_fee / vat
        self.support_minimum = s.cloud_terms.support_minimum_per_month / vat


def strategy_lines(u: UnitCosts, servers: int, committed: dict[str, int], v: Volumes
                   ) -> dict[str, np.ndarray]:
    """Every cost line of a strategy by month [currency], credits as positive numbers."""
    s, months = u.scenario, len(u.calendar.hours)
    o, sv = s.owned, u.server
    theta_o, theta_c = o.relative_throughput, s.on_demand.relative_throughput
    owned_gpu_hours = v.owned / theta_o
    lines = {name: np.zeros(months) for name in COST_LINES + CREDIT_LINES}
    if servers:
        for name in ("capex", "loan_payment", "maintenance", "space", "staff"):
            lines[name] = servers * getattr(sv, name)
        lines["energy"] = servers * sv.energy_idle + u.energy_per_busy_gpu_hour * owned_gpu_hours
        lines["resale_credit"] = servers * sv.resale
    for offer_id, gpus in committed.items():
        if gpus:
            lines["commitment_upfront"] = lines["commitment_upfront"] + gpus * u.offers[offer_id].upfront
            lines["commitment"] = lines["commitment"] + gpus * u.offers[offer_id].monthly
    lines["spot"] = v.spot / theta_c * u.spot_price
    lines["on_demand"] = v.on_demand / theta_c * u.on_demand_price
    uses_cloud = (sum(committed.values()) > 0 or float(v.spot.sum()) > 0
                  or float(v.on_demand.sum()) > 1e-9)
    if uses_cloud:
        lines["storage"], lines["egress"] = u.storage.copy(), u.egress.copy()
        lines["cloud_setup"][0] = u.setup_fee
        spend = sum(lines[name] for name in CLOUD_SPEND_LINES)
        terms = s.cloud_terms
        support = np.maximum(terms.support_fraction * spend, u.support_minimum)
        lines["cloud_support"] = np.where(spend > 0, support, 0.0)
    t = s.finance.tax_rate
    if t > 0:
        deductible = sum(lines[name] for name in DEDUCTIBLE_LINES)
        owned_tax = servers * (sv.interest + sv.depreciation + np.maximum(-sv.resale_gain, 0))
        lines["tax_shield"] = t * (deductible + owned_tax)
        lines["tax_on_resale"] = t * servers * np.maximum(sv.resale_gain, 0)
    return lines


def line_timing_factors(lines: dict[str, np.ndarray], start: np.ndarray, end: np.ndarray
                        ) -> dict[str, np.ndarray]:
    """Each line's discount factors: start of month for purchases and upfront payments."""
    return {name: start if name in START_OF_MONTH_LINES else end for name in lines}
