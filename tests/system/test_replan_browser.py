"""Re-plan from actuals walked in Korean through Chromium (issue 43, re-plan): the reviewer
approves the demo plan's cloud_only strategy, the analyst uploads the six sample months and
clicks "실적으로 재계획" on the Plan vs actual page; the new revision is planned by a worker,
its page says it was re-planned from revision 1's actuals and links what changed (both curves
and the waterfall), and the Plan vs actual page gains the forecast re-planned column.
Screenshots: test-artifacts/ko-replan-*.png."""
from __future__ import annotations

import json
import re

import pytest

from tests.support.chromium import server_fixture
from tests.support.korean import check, korean_chromium, korean_page, log_in
from tests.support.paths import SAMPLE_SCENARIO, SAMPLES
from tests.support.replan_walk import replan_and_compare

pytestmark = pytest.mark.browser
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
# the sample bills' and the re-plan's usage file names, the contract id the position names
# and the words of the demo scenario's name (data, shown as typed)
ALLOWED = {"focus", "usage", "actuals", "to", "csv"} | set(
    re.findall(r"[A-Za-z][A-Za-z0-9]+", json.loads(SAMPLE_SCENARIO.read_text())["name"]))


@pytest.fixture
def server(tmp_path):
    yield from server_fixture(tmp_path)


@pytest.fixture
def korean_browser():
    yield from korean_chromium()


def test_re_plan_from_the_actuals_and_compare_in_korean(server, korean_browser):
    base, problems, found = server, [], {}
    rita = korean_page(korean_browser, problems)
    log_in(rita, base, "rita", found, "replan-01-login")
    rita.goto(f"{base}/scenarios/1/revisions/1")
    rita.select_option("#review-strategy", "cloud_only")
    rita.fill("#review-comment", "청구서와 비교할 기준으로 승인합니다.")
    rita.click("#approve")
    rita.wait_for_selector("#plan-vs-actual-link")

    ana = korean_page(korean_browser, problems)
    log_in(ana, base, "ana", found, "replan-02-login")
    ana.goto(f"{base}/scenarios/1/actuals")
    ana.set_input_files("#bills", [str(p) for p in BILLS])
    ana.click("#upload-actuals")
    ana.wait_for_url("**/revisions/1/actual")
    assert ana.inner_text("#replan-heading") == "실적으로 재계획"
    check(ana, "replan-03-plan-vs-actual", found, ALLOWED)

    replan_and_compare(ana, found, ALLOWED, "replan-04-new-revision")
    check(ana, "replan-05-compare", found, ALLOWED | {"3y"})

    rita.goto(f"{base}/scenarios/1/revisions/1/actual")
    heading = rita.inner_text("#replanned-heading")
    assert heading == "재계획 전망(리비전 2)", heading
    cells = [int(td.get_attribute("data-cents"))
             for td in rita.query_selector_all("#forecast-summary td[data-cents]")]
    to_date, year, total = cells
    assert to_date > 0 and total > year > to_date         # the re-plan's months come after
    assert "재계획 전망: 2027-06까지는 실적" in rita.inner_text("#replanned-note")
    assert "리비전 1에서 2(으)로 바뀐 점" not in rita.inner_text("#replanned")  # fitted
    check(rita, "replan-06-forecast", found, ALLOWED)
    assert found == {}, "\n".join(w for words in found.values() for w in words)
    assert problems == [], problems
