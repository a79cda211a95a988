"""Plans the xlsx tests export: samples, worked examples W1-W3, loan + tax + replacement."""
from __future__ import annotations

import io
import json
import math
import pathlib
from pathlib import Path

import openpyxl

from models.lines import COST_LINES, CREDIT_LINES
from models.ledger import Ledger
from models.plan_sections import Plan
from tests.support.plans import compute_plan
from models.profile import UsageProfile
from models.scenario import Scenario
from service.ingest import load_usage
from service.xlsx.export import plan_xlsx_bytes
from service.xlsx.strategy_sheet import LINE_TITLES, TABLE_HEADER_ROW
from tests.support.engine_cases import flat_profile, robust_case, w1, w2, w3

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
HOURLY = SAMPLES / "usage_hourly.csv"
DAILY = SAMPLES / "usage_daily.csv"   # small Profile sheet: keeps LibreOffice runs short

def flat_monthly(gpus: float, months: int = 12, start: str = "2027-03",
                 interruptible: bool = False) -> UsageProfile:
    return flat_profile(gpus, start, months, interruptible)


def worked(name: str) -> tuple[Scenario, UsageProfile]:
    """The worked examples of tests/support/engine_cases.py, named so that the workbook shows it."""
    build, gpus = {"W1": (w1, 6), "W2": (w2, 10), "W3": (w3, 4)}[name]
    scenario = build().model_copy(update={"name": name})
    return scenario, flat_profile(gpus, interruptible=name == "W3")


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

# Cohorts as formulas: a position bought before the plan (no loan on it, depreciation already
# taken), a signed contract with a partial upfront payment, a proposed schedule with a loan,
# MACRS tax, all three offers (partial, all upfront, absolute price), the prorate horizon rule.
SCHEDULE_LOAN_TAX = {
    **LOAN_TAX_REPLACEMENT,
    "name": "Schedule + position + loan + MACRS + prorate",
    "finance": {**LOAN_TAX_REPLACEMENT["finance"], "horizon_end": "prorate",
                "start_month": "2027-01", "horizon_months": 40},
    "staging": {"decision_interval_months": 6},   # keeps the staged MILP of this case short
    "position": {"servers": [{"count": 3, "purchased": "2026-03", "price": 250000,
                              "install_cost": 10000},
                             {"count": 2, "purchased": "2024-11", "price": 200000}],
                 "commitments": [{"id": "old", "gpus": 8, "start": "2026-09", "term_months": 12,
                                  "price_per_gpu_hour": 3.5, "payment": "partial"}]},
    "proposed": {"schedule": [{"month": "2027-01", "buy_servers": 2, "commit": {"1y": 8}},
                              {"month": "2027-07", "buy_servers": 3, "commit": {"3y-all": 8}},
                              {"month": "2028-04", "commit": {"abs": 4}},
                              {"month": "2029-01", "buy_servers": 1}]},
    "uncertainty": {"draws": 0},
}
# A proposed schedule that sells servers: its server cohorts are the engine's values.
SCHEDULE_SALES = {
    **STRAIGHT_LINE_CASH,
    "name": "Schedule with a sale",
    "position": {"servers": [{"count": 4, "purchased": "2026-06", "price": 280000}]},
    "proposed": {"schedule": [{"month": "2027-02", "buy_servers": 3, "commit": {"1y": 8}},
                              {"month": "2027-10", "sell_servers": 5}]},
    "uncertainty": {"draws": 0},
}
# Two currencies (issue 15): the schedule case with its cloud prices (the signed contract too)
# in dollars at a rising rate, reported in won; the loan case with owned costs in euros at a
# falling rate (replacement generations bought at later rates, depreciation at each's own).
FX_CLOUD_SCHEDULE = {
    **SCHEDULE_LOAN_TAX,
    "name": "Schedule + position, cloud in USD reported in KRW",
    "finance": {**SCHEDULE_LOAN_TAX["finance"], "currency": "KRW"},
    "cloud_terms": {**LOAN_TAX_REPLACEMENT["cloud_terms"], "currency": "USD",
                    "support_minimum_per_month": 900},
    "fx": {"rate": 1400, "trend_annual": 0.04},
}
FX_OWNED_LOAN = {
    **LOAN_TAX_REPLACEMENT,
    "name": "Loan + replacement, owned costs in EUR",
    "owned": {**LOAN_TAX_REPLACEMENT["owned"], "currency": "EUR"},
    "fx": {"rate": 1.08, "trend_annual": -0.06},
    "uncertainty": {"draws": 0},
}
# Issue 24: a plan in US dollars holding contracts signed in Canadian dollars (converted at each
# month's rate, the upfront at signing's) and one in the reporting currency.
FX_HELD_CONTRACTS = {
    **LOAN_TAX_REPLACEMENT,
    "name": "Loan + replacement, dollar contracts held",
    "fx": {"rate": 1.3, "trend_annual": 0.05},
    "position": {"commitments": [
        {"id": "usd-3y", "gpus": 16, "start": "2026-06", "term_months": 36,
         "price_per_gpu_hour": 2.1, "payment": "partial", "currency": "CAD"},
        {"id": "usd-1y", "gpus": 8, "start": "2027-03", "term_months": 12,
         "price_per_gpu_hour": 2.5, "payment": "all", "currency": "CAD"},
        {"id": "own-1y", "gpus": 8, "start": "2026-12", "term_months": 12,
         "price_per_gpu_hour": 3.0, "payment": "none"}]},
    "uncertainty": {"draws": 0},
}
# A fleet of three server types (issue 26): H100 held and sold (its successor B200 drops its
# resale value), B200 priced in euros with its own lead time, life and maintenance, L40S with
# its own GPUs, power, electricity, PUE, space, staff, price trend and a window; a loan, MACRS
# tax with a lag, a signed contract and an offer; the proposed schedule buys, sells (sell_from
# type:YYYY-MM) and commits by type.
FLEET_THREE = {
    "name": "Fleet of three types: held H100 sold, B200 in euros, L40S",
    "finance": {"start_month": "2027-01", "horizon_months": 36, "discount_rate_annual": 0.09,
                "tax_rate": 0.25, "tax_depreciation": "macrs_5", "tax_payment_lag_months": 2,
                "power_price_inflation_annual": 0.03, "staff_cost_inflation_annual": 0.04},
    "owned": {"financing": {"kind": "loan", "apr": 0.07, "term_months": 24,
                            "down_payment_fraction": 0.2}},
    "on_demand": {"price_per_gpu_hour": 6.5, "price_trend_annual": -0.1},
    "commitments": [{"id": "1y", "term_months": 12, "discount": 0.5, "payment": "partial",
                     "block_gpus": 8}],
    "cloud_data": {"storage_tb": 80, "egress_tb_per_month": 5},
    "fx": {"rate": 1.1, "trend_annual": -0.03},
    "profile": {"growth_annual": 0.8},
    "staging": {"decision_interval_months": 6, "allow_sales": True},
    "server_types": [
        {"id": "h100", "successor": "b200", "resale_drop_at_successor": 0.2,
         "resale_fraction_by_year": [0.6, 0.4, 0.25]},
        {"id": "b200", "available_from": "2027-07", "server_price": 480000,
         "install_cost_per_server": 30000, "power_kw_max": 14.3, "power_kw_idle": 4.3,
         "relative_throughput": 2.2, "lead_time_months": 2, "useful_life_months": 48,
         "maintenance_fraction_annual": 0.06, "currency": "EUR"},
        {"id": "l40s", "available_until": "2028-12", "gpus_per_server": 4,
         "server_price": 90000, "install_cost_per_server": 8000, "power_kw_max": 3.2,
         "power_kw_idle": 1.0, "relative_throughput": 0.45, "useful_life_months": 30,
         "electricity_price_per_kwh": 0.11, "pue": 1.2, "space_price_per_kw_month": 150,
         "servers_per_fte": 80, "fte_cost_annual": 180000, "hardware_price_trend_annual": -0.2}],
    "position": {"servers": [{"count": 6, "purchased": "2025-06", "price": 290000,
                              "install_cost": 20000, "type": "h100"}],
                 "commitments": [{"id": "old", "gpus": 8, "start": "2026-09", "term_months": 12,
                                  "price_per_gpu_hour": 3.5, "payment": "partial"}]},
    "proposed": {"schedule": [
        {"month": "2027-01", "buy": {"l40s": 3}, "commit": {"1y": 8}},
        {"month": "2027-07", "buy": {"b200": 2}, "sell": {"h100": 2},
         "sell_from": {"h100:2025-06": 2}},
        {"month": "2028-01", "buy": {"b200": 1, "l40s": 2}, "sell": {"h100": 4}},
        {"month": "2028-07", "sell": {"l40s": 1}}]},
    "uncertainty": {"draws": 0},
}
# The same fleet with B200 buyable from the start: static strategies of several types.
FLEET_STATIC = {
    **FLEET_THREE,
    "name": "Fleet of three types, static proposal with replacements",
    "server_types": [FLEET_THREE["server_types"][0],
                     {**FLEET_THREE["server_types"][1], "available_from": None},
                     FLEET_THREE["server_types"][2]],
    "staging": {"decision_interval_months": 12},
    "proposed": {"servers_by_type": {"l40s": 4, "b200": 2}, "committed_gpus": {"1y": 8}},
}
GROWTH_DRAWS = 200   # the Sensitivity sheet's staged Monte Carlo, kept short for the tests


def sample_scenario(name: str) -> Scenario:
    return Scenario.model_validate(json.loads((SAMPLES / name).read_text(encoding="utf-8")))


def hourly_profile() -> UsageProfile:
    return load_usage(HOURLY).profile


def daily_profile() -> UsageProfile:
    return load_usage(DAILY).profile


CASES = ("h100", "l40s", "W1", "W2", "W3", "loan_tax_replacement", "straight_line_cash",
         "growth", "schedule_loan_tax", "schedule_sales", "seoul", "fx_cloud_schedule",
         "fx_owned_loan", "fx_held_contracts", "robust")


# Fleets of several server types: the generations sample and the two cases above.
FLEET_CASES = ("generations", "fleet_three", "fleet_static")


def case(name: str) -> tuple[Scenario, UsageProfile]:
    if name == "generations":
        s = sample_scenario("scenario_generations.json")
        return s.with_changes(uncertainty={"draws": 0}), daily_profile()
    if name == "fleet_three":
        return Scenario.model_validate(FLEET_THREE), daily_profile()
    if name == "fleet_static":
        return Scenario.model_validate(FLEET_STATIC), daily_profile()
    if name == "h100":
        return sample_scenario("scenario_h100.json"), hourly_profile()
    if name == "l40s":
        return sample_scenario("scenario_l40s.json"), hourly_profile()
    if name in ("W1", "W2", "W3"):
        return worked(name)
    if name == "loan_tax_replacement":
        return Scenario.model_validate(LOAN_TAX_REPLACEMENT), daily_profile()
    if name == "growth":
        s = sample_scenario("scenario_growth.json")
        return s.with_changes(uncertainty={"draws": GROWTH_DRAWS}), hourly_profile()
    if name == "schedule_loan_tax":
        return Scenario.model_validate(SCHEDULE_LOAN_TAX), daily_profile()
    if name == "schedule_sales":
        return Scenario.model_validate(SCHEDULE_SALES), daily_profile()
    if name == "seoul":
        s = sample_scenario("scenario_seoul.json")
        return s.with_changes(uncertainty={"draws": 0}), hourly_profile()
    if name == "fx_cloud_schedule":
        return Scenario.model_validate(FX_CLOUD_SCHEDULE), daily_profile()
    if name == "fx_owned_loan":
        return Scenario.model_validate(FX_OWNED_LOAN), daily_profile()
    if name == "robust":     # issue 27: three demand scenarios, the first year decided now
        return robust_case(3, months=24, interval=6)
    if name == "fx_held_contracts":
        return Scenario.model_validate(FX_HELD_CONTRACTS), daily_profile()
    return Scenario.model_validate(STRAIGHT_LINE_CASH), daily_profile()


def case_plan(name: str) -> Plan:
    scenario, profile = case(name)
    return compute_plan(scenario, profile)


# --- reading the workbooks back (tests/io/test_export_xlsx.py, tests/system/test_xlsx_recalculation.py)

REL, ABS = 1e-9, 1e-7
INJECTIONS = ('=HYPERLINK("http://x","y")', "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3",
              "\tTAB=1+1", "\r=1+1")
MONEY_HEADERS = {LINE_TITLES[k] for k in COST_LINES + CREDIT_LINES} | {
    "Total cost", "Cumulative cost", "Discounted cost", "Discounted cumulative cost",
    "Paid at month start", "Paid at month end (net of credits)"}


def close(a, b) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=REL, abs_tol=ABS)
    return a == b


def read_cells(path: pathlib.Path, data_only: bool) -> dict[tuple[str, str], object]:
    """(sheet, coordinate) -> value of every cell outside the (value-only) Profile sheet."""
    wb = openpyxl.load_workbook(path, read_only=True, data_only=data_only)
    out = {(ws.title, c.coordinate): c.value for ws in wb.worksheets if ws.title != "Profile"
           for row in ws.iter_rows() for c in row if c.value is not None}
    wb.close()
    return out


def formula_cells(path: pathlib.Path) -> list[tuple[str, str]]:
    return [key for key, value in read_cells(path, False).items()
            if isinstance(value, str) and value.startswith("=")]


def header_columns(ws) -> dict[str, int]:
    return {ws.cell(TABLE_HEADER_ROW + 1, c).value: c for c in range(1, ws.max_column + 1)
            if ws.cell(TABLE_HEADER_ROW + 1, c).value}


def injected_plan():
    scenario = Scenario(name=INJECTIONS[0])
    base = case("W1")[1]
    profile = UsageProfile(base.period, base.starts, base.steady, base.interruptible,
                           teams={text: 1.0 for text in INJECTIONS})
    return compute_plan(scenario.model_copy(update={"finance": case("W1")[0].finance}), profile)


def sheet_strategies(plan):
    """The strategies the workbook has a monthly sheet for: every one."""
    return dict(plan.strategies)


def plan_workbook(plan: Plan, doc: dict | None = None, **options) -> bytes:
    """The workbook of a computed plan, from its document (or ``doc``) and its ledger."""
    return plan_xlsx_bytes(plan.document if doc is None else doc, plan.ledger, **options)


def stored_workbook(plan: Plan) -> bytes:
    """The workbook written as the service writes it: from the plan's document and ledger as
    stored (JSON) and read back, not from the objects the engine built."""
    doc = json.loads(json.dumps(plan.document, allow_nan=False))
    ledger = Ledger.from_dict(json.loads(json.dumps(plan.ledger.to_dict(), allow_nan=False)))
    return plan_xlsx_bytes(doc, ledger)


def growth_workbook():
    """The growth sample's plan, its workbook's bytes and the workbook read by openpyxl."""
    plan = case_plan("growth")
    data = plan_workbook(plan)
    return plan, data, openpyxl.load_workbook(io.BytesIO(data))


def korean_workbook(path: pathlib.Path, plan: Plan) -> pathlib.Path:
    """The plan's workbook in Korean, written to ``path``."""
    path.write_bytes(plan_workbook(plan, lang="ko"))
    return path
