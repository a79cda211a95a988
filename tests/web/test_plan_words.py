"""What the plan page says beside its figures (issue 23, "words that mislead"): each sentence
rendered from a plan document, in English and in Korean."""
from __future__ import annotations

import re

import pytest
from flask import render_template

from models.document import plan_document
from models.plan import compute_plan
from service.i18n import using_locale
from service.plans.headline import payback
from tests.support.engine_cases import growth_sample, payback_case


@pytest.fixture(scope="module")
def growth_doc() -> dict:
    """The growth sample without its Monte Carlo."""
    return plan_document(compute_plan(*growth_sample()))


def test_breakeven_table_says_why_marginal_and_all_in_differ(app, growth_doc):
    """The growth sample's marginal and all-in verdicts against spot differ (see
    tests/engine/test_breakeven.py); the sentence under the table says why."""
    with app.test_request_context("/"):
        html = render_template("plans/_economics.html", doc=growth_doc, currency="USD")
        with using_locale("ko"):
            korean = render_template("plans/_economics.html", doc=growth_doc, currency="USD")
    why = re.search(r'<p id="breakeven-difference">(.*?)</p>', html, re.S).group(1)
    assert "Marginal and all-in figures can disagree" in why
    assert "서로 다른 질문에 답하므로" in re.search(
        r'<p id="breakeven-difference">(.*?)</p>', korean, re.S).group(1)


def test_cards_say_a_plan_never_dearer_than_on_demand_has_nothing_to_pay_back(app):
    """Issue 23: a 1-month commitment paid upfront, renewed monthly, is never dearer than on
    demand (tests/engine/test_breakeven.py); its card said "Payback: month 1"."""
    doc = plan_document(payback_case({"id": "1m", "term_months": 1, "discount": 0.41,
                                      "payment": "all", "block_gpus": 8},
                                     {"committed_gpus": {"1m": 8}}, 3_000_000))
    with app.test_request_context("/"):
        html = render_template("plans/_cards.html", doc=doc, payback=payback(doc))
        with using_locale("ko"):
            korean = render_template("plans/_cards.html", doc=doc, payback=payback(doc))
    card = re.search(r'data-strategy="proposed">(.*?)</div>', html, re.S).group(1)
    assert ("<p>Payback: never costs more than on demand in any month: nothing to pay "
            "back</p>") in " ".join(card.split())
    assert "month 1" not in card
    card = re.search(r'data-strategy="proposed">(.*?)</div>', korean, re.S).group(1)
    assert "회수할 것이 없습니다" in card
