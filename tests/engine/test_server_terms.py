"""A server cohort's price, basis and loan, written once (models/server_terms.py, issue 36,
item 1): hand-checked, with numpy-financial's ipmt/ppmt as the independent check of the loan,
and the same terms read by the cost kernel's schedule and the workbook's ledger row.

Case: one server of 100,000 with 5,000 install, bought in month 1 (2027-01) and sold at the
horizon's end after 12 months; a loan of 6 % APR over 24 months with 25 % down.
"""
import numpy as np
import numpy_financial as npf
import pytest
from numpy.testing import assert_allclose

from models.capacity import ServerCohort
from models.cohort_costs import server_schedule
from models.ledger_cohorts import server_row
from models.scenario import Scenario
from models.server_terms import server_terms
from tests.support.engine_cases import context_of, flat_profile, merged
from tests.support.plans import compute_plan

LOAN = {"kind": "loan", "apr": 0.06, "term_months": 24, "down_payment_fraction": 0.25}
OWNED = {"server_price": 100_000, "install_cost_per_server": 5_000, "financing": LOAN,
         "lead_time_months": 0}
BASE = {"finance": {"start_month": "2027-01", "horizon_months": 12, "discount_rate_annual": 0.1},
        "owned": OWNED, "commitments": [], "proposed": {"servers": 1, "committed_gpus": {}},
        "cloud_data": {"storage_tb": 0, "egress_tb_per_month": 0}}
BOUGHT = ServerCohort(count=1, bought=0, online=0, sold=12)
RATE = 0.06 / 12


def book_of(**sections):
    s = Scenario.model_validate(merged(BASE, **sections))
    return context_of(compute_plan(s, flat_profile(4.0, "2027-01", 12))).book


@pytest.fixture(scope="module")
def book():
    return book_of()


def test_price_basis_down_payment_and_principal(book):
    t = server_terms(book, BOUGHT)
    assert_allclose(t.price, [100_000.0])            # the book's price in the purchase month
    assert t.install == 5_000.0
    assert_allclose(t.basis, [105_000.0])            # 100,000 + 5,000
    assert_allclose(t.down, [26_250.0])              # 105,000 x 0.25
    assert_allclose(t.principal, [78_750.0])         # 105,000 x 0.75
    # 78,750 x 0.005 / (1 - 1.005^-24) = 3,490.2480574...
    assert_allclose(t.payment, [3_490.248057404677], rtol=1e-12)
    assert_allclose(t.payment, npf.pmt(RATE, 24, -78_750.0), rtol=1e-12)


def test_the_loan_over_the_months_held_against_numpy_financial(book):
    t = server_terms(book, BOUGHT)
    payments, interest, payoff = t.loan(12)
    k = np.arange(1, 13)
    # ipmt/ppmt come out negative (money out) for a positive principal received
    assert_allclose(interest[:, 0], -npf.ipmt(RATE, k, 24, 78_750.0), rtol=1e-10)
    assert interest[0, 0] == pytest.approx(393.75, rel=1e-12)      # 78,750 x 0.005
    repaid = -npf.ppmt(RATE, k, 24, 78_750.0).sum()
    # the balance after 12 of 24 payments: 3,490.248... x (1 - 1.005^-12) / 0.005 = 40,552.955...
    assert payoff[0] == pytest.approx(40_552.95507532204, rel=1e-10)
    assert payoff[0] == pytest.approx(78_750.0 - repaid, rel=1e-10)
    assert_allclose(payments[:11, 0], 3_490.248057404677, rtol=1e-12)
    assert payments[11, 0] == pytest.approx(3_490.248057404677 + 40_552.95507532204, rel=1e-12)


def test_the_cost_kernel_and_the_ledger_read_the_same_terms(book):
    sch = server_schedule(book, BOUGHT)
    assert sch["capex"][0, 0] == pytest.approx(26_250.0, rel=1e-12)
    assert_allclose(sch["loan_payment"][:11, 0], 3_490.248057404677, rtol=1e-12)
    assert sch["payoff"][11, 0] == pytest.approx(40_552.95507532204, rel=1e-10)
    assert_allclose(sch["interest"][:12, 0], -npf.ipmt(RATE, np.arange(1, 13), 24, 78_750.0),
                    rtol=1e-10)
    row = server_row(book, "chain", 1, BOUGHT, 12)
    assert row.params["price"] == 100_000.0
    assert row.params["basis"] == 105_000.0
    assert row.params["principal"] == 78_750.0
    assert row.params["pmt"] == pytest.approx(3_490.248057404677, rel=1e-12)


def test_a_held_server_and_a_cash_purchase(book):
    # bought before the plan at its own price: its loan is not the plan's, nothing paid
    held = server_terms(book, ServerCohort(count=2, bought=-6, online=-6, sold=12,
                                           price=90_000.0, install=1_000.0))
    assert_allclose(held.basis, [91_000.0])
    assert_allclose(held.principal, [68_250.0])       # 91,000 x 0.75, a parameter of the row
    assert_allclose(held.payment, [0.0])
    cash = server_terms(book_of(owned={"financing": {"kind": "cash"}}), BOUGHT)
    assert_allclose(cash.down, [105_000.0])           # the whole basis at purchase
    assert_allclose(cash.principal, [0.0])
    assert_allclose(cash.payment, [0.0])
    assert_allclose(cash.loan(12)[0], np.zeros((12, 1)))
