"""Two currencies (issue 15): owned costs and cloud prices in their own currency, every payment
converted into the reporting currency at the rate of its month.

Rule (docs/README-currencies.md): rate(m) = fx.rate x (1 + fx.trend_annual)^(m/12) reporting
units per foreign unit, m = 0 in the plan's first month (and negative before it). A price fixed
at purchase or signing stays fixed in its own currency; what it costs in the reporting currency
moves with the rate. Depreciation is taken on the purchase price at the purchase month's rate.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose
from pydantic import ValidationError

from models.capacity import Capacity, CommitmentCohort, ServerCohort
from models.cohort_costs import commitment_schedule, server_schedule
from models.document import plan_document
from models.plan import build_state
from tests.support.plans import compute_plan
from models.prices import PriceBook
from models.profile import plan_calendar
from models.scenario import Scenario
from tests.support.engine_cases import csv_profile, flat_profile
from tests.support.paths import SAMPLE_USAGE, SAMPLES

START = "2027-01"
QUIET = {"uncertainty": {"draws": 0}}


def scenario(**sections) -> Scenario:
    data = {"finance": {"start_month": START, "horizon_months": 24}, **QUIET}
    for key, value in sections.items():
        data[key] = {**data.get(key, {}), **value}
    return Scenario.model_validate(data)


def book_of(s: Scenario) -> PriceBook:
    return PriceBook(s, plan_calendar(START, s.finance.horizon_months))


# ---- one currency: the plan as before ------------------------------------------------------

def test_a_rate_without_a_foreign_currency_changes_nothing():
    # owned and cloud in the reporting currency: fx.rate is never applied, byte for byte
    profile = flat_profile(40, START, 24)
    plain = plan_document(compute_plan(scenario(), profile))
    named = plan_document(compute_plan(scenario(
        owned={"currency": "USD"}, cloud_terms={"currency": "USD"},
        fx={"rate": 1400, "trend_annual": 0.1}), profile))
    named["scenario"], plain["scenario"] = None, None
    assert json.dumps(named, sort_keys=True) == json.dumps(plain, sort_keys=True)


def test_rate_one_in_a_foreign_currency_equals_the_single_currency_plan():
    profile = flat_profile(40, START, 24)
    plain = compute_plan(scenario(finance={"tax_rate": 0.2}), profile)
    both = compute_plan(scenario(finance={"tax_rate": 0.2}, owned={"currency": "EUR"},
                                 cloud_terms={"currency": "EUR"}, fx={"rate": 1.0}), profile)
    for name, r in plain.strategies.items():
        assert_allclose(both.strategies[name].pv_cost, r.pv_cost, rtol=1e-12)


# ---- cloud in dollars, reported in won --------------------------------------------------------

def test_cloud_lines_are_converted_at_each_months_rate():
    """KRW reporting, cloud billed in USD at 1,400 KRW/USD rising 12 % a year.

    | month index m | rate(m) = 1400 x 1.12^(m/12)        |
    |---------------|-------------------------------------|
    | 0             | 1400                                |
    | 1             | 1400 x 1.0094888 = 1413.2843        |
    | 12            | 1400 x 1.12      = 1568             |
    So every on-demand line of the won plan is the dollar plan's line times rate(m).
    """
    profile = flat_profile(16, START, 24)
    usd = scenario(finance={"currency": "USD"})
    krw = scenario(finance={"currency": "KRW"}, cloud_terms={"currency": "USD"},
                   fx={"rate": 1400, "trend_annual": 0.12})
    a = build_state(usd, profile).evaluate("on_demand", Capacity(0))
    b = build_state(krw, profile).evaluate("on_demand", Capacity(0))
    rate = b.lines["on_demand"][:24] / a.lines["on_demand"][:24]
    assert_allclose(rate[[0, 1, 12]], [1400, 1413.2843, 1568], rtol=1e-7)
    assert_allclose(rate, 1400 * 1.12 ** (np.arange(24) / 12), rtol=1e-12)


def test_cloud_plan_without_trend_is_the_dollar_plan_times_the_rate():
    # every cost is a cloud cost, the rate is flat: PV in won = 1,400 x PV in dollars
    profile = flat_profile(16, START, 24)
    terms = {"setup_fee": 5000, "support_fraction": 0.05, "support_minimum_per_month": 2000}
    usd = scenario(cloud_terms=terms, finance={"tax_rate": 0.25},
                   cloud_data={"storage_tb": 20, "egress_tb_per_month": 3})
    krw = scenario(cloud_terms={**terms, "currency": "USD"}, fx={"rate": 1400},
                   finance={"currency": "KRW", "tax_rate": 0.25},
                   cloud_data={"storage_tb": 20, "egress_tb_per_month": 3})
    for cap in (Capacity(0), Capacity(0, {"1y": 8}), Capacity(0, {"3y": 16})):
        a = build_state(usd, profile).evaluate("x", cap).pv_cost
        b = build_state(krw, profile).evaluate("x", cap).pv_cost
        assert_allclose(b, 1400 * a, rtol=1e-12)


def test_commitment_upfront_at_signing_rate_monthly_at_each_months_rate():
    """A 12-month offer at $2.00/GPU-h, half upfront, signed in month index 2 (March 2027).

    March 2027 has 744 h; the term's hours (February 2028 has 29 days):
    744+720+744+720+744+744+720+744+720+744+744+696 = 8,784. Upfront = 0.5 x 2.00 x 8,784
    = $8,784, paid at rate(2) = 1400 x 1.1^(2/12) = 1,422.4166 KRW/USD -> 12,494,508 KRW.
    The first monthly payment (March) is 0.5 x 2.00 x 744 = $744 at the same rate
    = 1,058,278 KRW; April's $720 at rate(3) = 1400 x 1.1^(3/12) = 1,433.7592
    -> 1,032,307 KRW.
    """
    s = Scenario.model_validate({
        "finance": {"start_month": START, "horizon_months": 24, "currency": "KRW"},
        "cloud_terms": {"currency": "USD"}, "fx": {"rate": 1400, "trend_annual": 0.1},
        "commitments": [{"id": "1y", "term_months": 12, "price_per_gpu_hour": 2.0,
                         "payment": "partial"}], **QUIET})
    book = book_of(s)
    sch = commitment_schedule(book, CommitmentCohort("1y", 1, 2, 12))
    assert_allclose(sch["upfront"][2, 0], 8784 * 1400 * 1.1 ** (2 / 12), rtol=1e-12)
    assert_allclose(sch["upfront"][2, 0], 12_494_508, rtol=1e-7)
    assert_allclose(sch["monthly"][2, 0], 1_058_278, rtol=1e-6)
    assert_allclose(sch["monthly"][3, 0], 1_032_307, rtol=1e-6)
    # the prepaid part is deducted over the term at the signing rate (its cost when paid)
    assert_allclose(sch["prepaid_deduction"][2:14, 0], 12_494_508 / 12, rtol=1e-7)


# ---- owned servers in euros, reported in dollars ------------------------------------------

def test_server_paid_and_resold_at_their_months_rates_depreciated_at_purchase_rate():
    """One server at EUR 100,000 + EUR 10,000 install, bought in month index 0, 1.10 USD/EUR
    falling 10 % a year; 36-month life on a 24-month horizon, straight-line tax depreciation.

    | item                       | EUR                   | rate                  | USD      |
    | capex (start of month 0)   | 110,000               | 1.10                  | 121,000  |
    | maintenance, month 12      | 100,000 x 0.05/12=416.67 | 1.10 x 0.9 = 0.99  | 412.50   |
    | depreciation, each month   | 110,000/36 = 3,055.56 | 1.10 (purchase month) | 3,361.11 |
    | resale at end of month 23  | 100,000 x f(24)       | 1.10 x 0.9^(23/12)    |          |
    Gain = resale in USD - 121,000 x (1 - 24/36): a currency move shows in it.
    """
    s = scenario(finance={"tax_rate": 0.2}, owned={
        "currency": "EUR", "server_price": 100_000, "install_cost_per_server": 10_000,
        "maintenance_fraction_annual": 0.05, "useful_life_months": 36, "lead_time_months": 0},
        fx={"rate": 1.10, "trend_annual": -0.10})
    book = book_of(s)
    sch = server_schedule(book, ServerCohort(1, 0, 0, 24))
    assert_allclose(sch["capex"][0, 0], 121_000, rtol=1e-12)
    assert_allclose(sch["maintenance"][12, 0], 412.5, rtol=1e-12)
    assert_allclose(sch["depreciation"][:24, 0], 110_000 / 36 * 1.1, rtol=1e-12)
    fraction = float(book.resale_fraction(24)[0])
    resale = 100_000 * fraction * 1.1 * 0.9 ** (23 / 12)
    assert_allclose(sch["resale"][23, 0], resale, rtol=1e-12)
    assert_allclose(sch["gain"][23, 0], resale - 121_000 * (1 - 24 / 36), rtol=1e-12)


def test_servers_owned_before_the_plan_keep_their_purchase_rate():
    # bought 12 months before the plan: its remaining depreciation uses rate(-12) = 1.10/0.9
    s = Scenario.model_validate({
        "finance": {"start_month": START, "horizon_months": 24, "tax_rate": 0.2},
        "owned": {"currency": "EUR", "useful_life_months": 36, "lead_time_months": 0},
        "fx": {"rate": 1.10, "trend_annual": -0.10},
        "position": {"servers": [{"count": 1, "purchased": "2026-01", "price": 90_000,
                                  "install_cost": 0}]}, **QUIET})
    ctx = build_state(s, flat_profile(8, START, 24))
    cohort = ctx.position.servers[0]
    sch = server_schedule(ctx.book, cohort)
    assert cohort.bought == -12
    assert_allclose(sch["depreciation"][:24, 0], 90_000 / 36 * 1.1 / 0.9, rtol=1e-12)
    assert not sch["capex"].any()       # paid before the plan


# ---- validation -----------------------------------------------------------------------------

def test_a_foreign_currency_needs_a_rate_and_only_one_is_allowed():
    with pytest.raises(ValidationError, match="fx.rate is required: prices in USD"):
        Scenario.model_validate({"finance": {"currency": "KRW"},
                                 "cloud_terms": {"currency": "USD"}})
    with pytest.raises(ValidationError, match="one exchange rate converts one foreign"):
        Scenario.model_validate({"finance": {"currency": "KRW"}, "owned": {"currency": "EUR"},
                                 "cloud_terms": {"currency": "USD"}, "fx": {"rate": 1400}})
    ok = Scenario.model_validate({"finance": {"currency": "KRW"}, "fx": {"rate": 1400},
                                  "cloud_terms": {"currency": "USD"}})
    assert ok.foreign_currency() == "USD" and ok.converts("cloud") and not ok.converts("owned")


def test_won_prices_fit_the_schema():
    # an 8x H100 server at about 420 million won and power at 170 won/kWh validate
    s = Scenario.model_validate({"finance": {"currency": "KRW"}, "owned": {
        "server_price": 420_000_000, "electricity_price_per_kwh": 170,
        "fte_cost_annual": 120_000_000}})
    assert s.owned.server_price == 420_000_000


def test_the_recommendation_says_how_it_converted():
    s = scenario(finance={"currency": "KRW"}, cloud_terms={"currency": "USD"},
                 fx={"rate": 1400, "trend_annual": 0.03})
    doc = plan_document(compute_plan(s, flat_profile(16, START, 24)))
    text = doc["explanation"]
    assert doc["currencies"] == {"reporting": "KRW", "owned": "KRW", "cloud": "USD", "fx": {
        "foreign": "USD", "rate": 1400, "trend_annual": 0.03, "as_of": None}}
    assert ("cloud prices in USD are converted at 1,400.00 KRW per USD in 2027-01, changing "
            "3.0% a year") in text
    plain = plan_document(compute_plan(scenario(), flat_profile(16, START, 24)))
    assert "converted at" not in plain["explanation"] and plain["currencies"]["fx"] is None


def test_seoul_sample_equals_the_same_scenario_typed_in_won():
    """With a flat rate, entering the cloud in dollars at 1,422.16 equals typing every cloud
    price already multiplied: on demand 9.4944 x 1,422.16 = 13,502.5 KRW per GPU-hour."""
    data = json.loads((SAMPLES / "scenario_seoul.json").read_text())
    data["uncertainty"] = {"draws": 0}
    two = Scenario.model_validate(data)
    rate = two.fx.rate
    won = dict(data, cloud_terms={"vat_rate": 0.1}, fx={},
               on_demand={**data["on_demand"], "price_per_gpu_hour": 9.4944 * rate},
               cloud_data={**data["cloud_data"]},
               commitments=[o.model_dump(mode="json") for o in two.commitments])
    one = Scenario.model_validate(won).with_changes(cloud_data={
        "storage_price_per_gb_month": two.cloud_data.storage_price_per_gb_month * rate,
        "egress_price_per_gb": two.cloud_data.egress_price_per_gb * rate})
    assert one.foreign_currency() is None
    profile = csv_profile(SAMPLE_USAGE)
    a, b = compute_plan(two, profile), compute_plan(one, profile)
    for name in ("on_demand", "cloud_only", "optimal", "proposed"):
        assert_allclose(a.strategies[name].pv_cost, b.strategies[name].pv_cost, rtol=1e-9)


# ---- signed contracts in their own currency (issue 24) -------------------------------------

def held(currency=None, price=2.0, payment="partial", start="2026-07"):
    return {"commitments": [{"id": "aws-3y", "gpus": 16, "start": start, "term_months": 36,
                             "price_per_gpu_hour": price, "payment": payment,
                             **({"currency": currency} if currency else {})}]}


@pytest.mark.parametrize("payment", ["none", "partial", "all"])
@pytest.mark.parametrize("start", ["2026-07", "2027-04"])   # signed before / in the plan
def test_a_dollar_contract_in_a_won_plan_costs_its_won_price_at_a_flat_rate(payment, start):
    """Cloud prices in won, a contract signed in dollars at p = $2.00/GPU-h: with the rate
    flat at 1,400 KRW/USD it costs exactly what the same contract at p x rate = 2,800 KRW/GPU-h
    costs, in every strategy, whatever its upfront share and whether it was signed before
    the plan (its monthly payments converted at each month's rate, an upfront one at the
    signing month's, all 1,400 here)."""
    profile = flat_profile(24, START, 24)
    won = {"finance": {"currency": "KRW", "tax_rate": 0.2}, "fx": {"rate": 1400}}
    dollars = scenario(**won, position=held("USD", 2.0, payment, start))
    in_won = scenario(**won, position=held(None, 2.0 * 1400, payment, start))
    assert dollars.commitment_market(dollars.position.commitments[0]) == "foreign"
    assert in_won.commitment_market(in_won.position.commitments[0]) == "cloud"
    for cap in (Capacity(0), Capacity(2), Capacity(0, {"1y": 8})):
        a = build_state(dollars, profile).evaluate("x", cap).pv_cost
        b = build_state(in_won, profile).evaluate("x", cap).pv_cost
        assert_allclose(a, b, rtol=1e-12)


def test_a_dollar_contract_follows_the_rate_month_by_month():
    """The same contract with the rate rising 10 % a year: the month-m payment is $-priced x
    1400 x 1.1^(m/12). Monthly payment of a no-upfront contract in April 2027 (m = 3, 720 h,
    16 GPUs): 16 x 2.00 x 720 = $23,040 -> 23,040 x 1400 x 1.1^(3/12) = 32,256,000 x 1.0241137 = 33,033,811 KRW."""
    s = scenario(finance={"currency": "KRW"}, fx={"rate": 1400, "trend_annual": 0.1},
                 position=held("USD", 2.0, "none"))
    book = book_of(s)
    cohort = CommitmentCohort("aws-3y", 16, -6, 36, rate=2.0, payment="none", market="foreign")
    sch = commitment_schedule(book, cohort)
    assert_allclose(16 * sch["monthly"][3, 0], 23_040 * 1400 * 1.1 ** 0.25, rtol=1e-12)
    assert_allclose(16 * sch["monthly"][3, 0], 33_033_811, rtol=1e-7)


def test_a_contract_in_the_reporting_currency_is_not_converted():
    # cloud in dollars, reporting in won, a contract signed in won: paid as written
    s = scenario(finance={"currency": "KRW"}, cloud_terms={"currency": "USD"},
                 fx={"rate": 1400}, position=held("KRW", 2800.0, "none"))
    assert s.commitment_market(s.position.commitments[0]) == "reporting"
    sch = commitment_schedule(book_of(s), CommitmentCohort("aws-3y", 1, -6, 36, rate=2800.0,
                                                           payment="none", market="reporting"))
    assert_allclose(sch["monthly"][0, 0], 2800.0 * 744, rtol=1e-12)


def test_a_contract_in_a_third_currency_or_without_a_rate_is_refused():
    with pytest.raises(ValidationError, match="one exchange rate converts one foreign"):
        scenario(finance={"currency": "KRW"}, cloud_terms={"currency": "USD"},
                 fx={"rate": 1400}, position=held("EUR"))
    with pytest.raises(ValidationError, match="fx.rate is required"):
        scenario(finance={"currency": "KRW"}, position=held("USD"))


def test_the_recommendation_names_the_contracts_it_converted():
    plan = compute_plan(scenario(finance={"currency": "KRW"}, fx={"rate": 1400},
                                 position=held("USD")), flat_profile(24, START, 24))
    assert ("Figures are in KRW; the contracts held in USD are converted at 1,400.00 KRW per "
            "USD in 2027-01") in plan_document(plan)["explanation"]
