"""Plans the xlsx tests export: samples, worked examples W1-W3, loan + tax + replacement."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from models.plan import Plan, compute_plan
from models.profile import UsageProfile, period_starts
from models.scenario import Scenario
from service.ingest import load_usage

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
HOURLY = SAMPLES / "usage_hourly.csv"
DAILY = SAMPLES / "usage_daily.csv"   # small Profile sheet: keeps LibreOffice runs short

WORKED_COMMON = {
    "finance": {"start_month": "2027-03", "horizon_months": 12, "discount_rate_annual": 0.12},
    "on_demand": {"price_per_gpu_hour": 3.0, "billing_increment_seconds": 60,
                  "mean_session_hours": 1},
    "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0},
}
W1_OWNED = {"gpus_per_server": 8, "server_price": 200000, "install_cost_per_server": 10000,
            "lead_time_months": 0, "resale_fraction_by_year": [0.7, 0.5, 0.35, 0.2, 0.1],
            "power_kw_max": 6.5, "power_kw_idle": 2.0, "pue": 1.4,
            "electricity_price_per_kwh": 0.12, "space_price_per_kw_month": 120,
            "maintenance_fraction_annual": 0.05, "servers_per_fte": 25,
            "fte_cost_annual": 120000, "availability": 0.97, "financing": {"kind": "cash"}}


def merge(base: dict, extra: dict) -> dict:
    out = json.loads(json.dumps(base))
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def flat_monthly(gpus: float, months: int = 12, start: str = "2027-03",
                 interruptible: bool = False) -> UsageProfile:
    starts = period_starts(np.datetime64(start, "h"), months, "month")
    hours = ((starts.astype("datetime64[M]") + 1).astype("datetime64[h]") - starts).astype(float)
    volume = gpus * hours
    zero = np.zeros(months)
    return UsageProfile("month", starts, zero if interruptible else volume,
                        volume if interruptible else zero, has_workload=True)


def worked(name: str) -> tuple[Scenario, UsageProfile]:
    if name == "W1":
        doc = merge(WORKED_COMMON, {"name": "W1", "owned": W1_OWNED,
                                    "proposed": {"servers": 1, "committed_gpus": {}}})
        return Scenario.model_validate(doc), flat_monthly(6)
    if name == "W2":
        doc = merge(WORKED_COMMON, {
            "name": "W2", "on_demand": {"price_trend_annual": -0.2},
            "commitments": [{"id": "1y", "term_months": 12, "discount": 0.35, "payment": "none",
                             "block_gpus": 8}],
            "proposed": {"servers": 0, "committed_gpus": {"1y": 8}}})
        return Scenario.model_validate(doc), flat_monthly(10)
    doc = merge(WORKED_COMMON, {
        "name": "W3", "owned": {"failures_per_server_year": 0},
        "spot": {"discount": 0.7, "availability": 1.0, "interruptions_per_instance_hour": 0.002,
                 "notice_seconds": 120, "checkpoint_seconds": 60, "restart_seconds": 300,
                 "nodes_per_job": 1},
        "proposed": {"servers": 0, "committed_gpus": {}}})
    return Scenario.model_validate(doc), flat_monthly(4, interruptible=True)


# Every branch of the cost formulas: loan with early payoff, MACRS tax with resale gains,
# replacements at a falling hardware price, lead time, inflation, VAT-inclusive prices,
# setup fee and support minimum, upfront commitments running past the horizon, absolute
# committed and spot prices, growth and an interruptible share.
LOAN_TAX_REPLACEMENT = {
    "name": "Loan + MACRS tax + replacement",
    "finance": {"horizon_months": 60, "discount_rate_annual": 0.09, "tax_rate": 0.25,
                "tax_depreciation": "macrs_5", "power_price_inflation_annual": 0.03,
                "staff_cost_inflation_annual": 0.04},
    "owned": {"useful_life_months": 24, "lead_time_months": 2,
              "hardware_price_trend_annual": -0.15, "resale_fraction_by_year": [0.6, 0.4],
              "financing": {"kind": "loan", "apr": 0.07, "term_months": 36,
                            "down_payment_fraction": 0.1}},
    "on_demand": {"price_trend_annual": -0.08, "billing_increment_seconds": 60,
                  "mean_session_hours": 2},
    "commitments": [
        {"id": "1y", "term_months": 12, "discount": 0.4, "payment": "partial", "block_gpus": 8},
        {"id": "3y-all", "term_months": 36, "discount": 0.6, "payment": "all", "block_gpus": 8},
        {"id": "abs", "term_months": 24, "price_per_gpu_hour": 3.1, "payment": "none",
         "block_gpus": 4}],
    "spot": {"price_per_gpu_hour": 2.5, "nodes_per_job": 4},
    "cloud_data": {"storage_tb": 120, "egress_tb_per_month": 8},
    "cloud_terms": {"prices_include_vat": True, "vat_rate": 0.2, "setup_fee": 15000,
                    "support_fraction": 0.03, "support_minimum_per_month": 5000},
    "profile": {"interruptible_share": 0.4, "growth_annual": 0.15},
    "proposed": {"servers": 12, "committed_gpus": {"1y": 16, "3y-all": 24, "abs": 8}},
}
STRAIGHT_LINE_CASH = {
    "name": "Cash, straight-line tax, life shorter than horizon",
    "finance": {"horizon_months": 30, "tax_rate": 0.3, "start_month": "2027-02"},
    "owned": {"useful_life_months": 18, "resale_fraction_by_year": [0.5]},
    "proposed": {"servers": 5, "committed_gpus": {"1y": 8}},
}


def sample_scenario(name: str) -> Scenario:
    return Scenario.model_validate(json.loads((SAMPLES / name).read_text(encoding="utf-8")))


def hourly_profile() -> UsageProfile:
    return load_usage(HOURLY).profile


def daily_profile() -> UsageProfile:
    return load_usage(DAILY).profile


CASES = ("h100", "l40s", "W1", "W2", "W3", "loan_tax_replacement", "straight_line_cash")


def case(name: str) -> tuple[Scenario, UsageProfile]:
    if name == "h100":
        return sample_scenario("scenario_h100.json"), hourly_profile()
    if name == "l40s":
        return sample_scenario("scenario_l40s.json"), hourly_profile()
    if name in ("W1", "W2", "W3"):
        return worked(name)
    if name == "loan_tax_replacement":
        return Scenario.model_validate(LOAN_TAX_REPLACEMENT), daily_profile()
    return Scenario.model_validate(STRAIGHT_LINE_CASH), daily_profile()


def case_plan(name: str) -> Plan:
    scenario, profile = case(name)
    return compute_plan(scenario, profile)
