"""Issue 37 item 5: with spot off (availability 0) the page, the CLI and the workbook show no
breakeven against spot and say once why, in English and in Korean."""
from __future__ import annotations

import re

import pytest
from flask import render_template

from models.document import plan_document
from models.scenario import Scenario
from service.cli.report import breakeven_lines
from service.i18n import using_locale
from service.xlsx.summary import breakeven_items
from tests.support.engine_cases import flat_profile
from tests.support.plans import compute_plan

OFF = {"en": "Spot is off in this scenario", "ko": "이 시나리오에서는 스팟을 쓰지 않으므로"}


@pytest.fixture(scope="module")
def spot_off_doc() -> dict:
    s = Scenario.model_validate({"finance": {"start_month": "2027-01"},
                                 "spot": {"availability": 0.0}})
    return plan_document(compute_plan(s, flat_profile(40, "2026-01", 12, interruptible=True)))


@pytest.mark.parametrize("locale, spot", [("en", "spot"), ("ko", "스팟")])
def test_page_table_has_no_spot_row_and_says_once_that_spot_is_off(app, spot_off_doc,
                                                                   locale, spot):
    with app.test_request_context("/"), using_locale(locale):
        html = render_template("plans/_economics.html", doc=spot_off_doc, currency="USD")
    table = re.search(r'<table class="num" id="breakeven-table">(.*?)</table>', html, re.S)
    rows = re.findall(r"<tr><td>(.*?)</td>", table.group(1))
    assert rows and spot not in " ".join(rows)
    assert html.count(OFF[locale]) == 1
    assert re.search(r'<p id="spot-off">' + OFF[locale], html)


@pytest.mark.parametrize("locale", ["en", "ko"])
def test_cli_and_workbook_say_spot_is_off_once_and_compare_nothing_with_it(spot_off_doc,
                                                                           locale):
    with using_locale(locale):
        cli = breakeven_lines(spot_off_doc)
        items = breakeven_items(spot_off_doc["breakeven"])
    assert sum(OFF[locale] in line for line in cli) == 1
    assert not [line for line in cli if "vs spot" in line or "vs 스팟" in line]
    notes = [note for _, _, _, note in items if OFF[locale] in note]
    assert len(notes) == 1
    assert not [key for key, *_ in items if key.endswith(".spot")]
    assert not [note for _, _, _, note in items if "dearer than spot" in note]
