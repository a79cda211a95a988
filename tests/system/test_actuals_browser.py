"""Issue 43's "Done when" walked in Korean through Chromium, in one test: the reviewer
approves the demo plan naming the strategy the sample actuals were made for (``proposed``, which
owns servers: the sample's owned actuals have a late delivery and idle servers); the analyst
sets an alert threshold on the scenario's alerts page (spend over plan by more than 70 %, which
the sample breaches in 2027-03, 613.08 %, and 2027-04, 77.85 %), uploads a broken bill (refused
by row and column, nothing saved) and then the six sample months of bills and owned actuals;
the Plan vs actual page names each part of the variance, whose cents add up to each month's and
the year to date's total, and shows the two breaches, as does the scenario list's badge; the
analyst re-plans from the actual position, the worker plans the new revision, and the
comparison page shows what changed. Screenshots: test-artifacts/ko-actuals-*.png."""
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
OWNED = SAMPLES / "actuals" / "owned_2027-01_2027-06.csv"
# the sample bills' file names in the uploads table, and the words of the demo scenario's
# name (data its analyst typed, shown as typed)
ALLOWED = {"focus", "owned", "usage", "actuals", "to", "csv"} | set(
    re.findall(r"[A-Za-z][A-Za-z0-9]+", json.loads(SAMPLE_SCENARIO.read_text())["name"]))
# spend over plan by more than 70 %: the sample's months against `proposed` are -19.30, 63.29,
# 613.08, 77.85, 62.82 and 64.31 % over their plan (total variance / plan, from the cents)
THRESHOLD = "70"
BREACHES = ["2027-03: 지출이 계획보다 613.08% 많음 (알림 기준 70.00% 초과)",
            "2027-04: 지출이 계획보다 77.85% 많음 (알림 기준 70.00% 초과)"]
# volume, mix, price and idle commitments as the Korean catalog names them
PART_NAMES = {"물량(작업 증감)", "구성(다른 조달 방식의 작업)", "가격(계획 대비 지불 단가)", "유휴 약정"}
# and the owned fleet's: idle servers, the late delivery, the purchases moved between months
OWNED_PART_NAMES = {"유휴 서버(일하지 않은 자체 보유 용량)", "시기: 서버 납품 지연 또는 조기 납품",
                    "시기: 서버 구매"}


@pytest.fixture
def server(tmp_path):
    yield from server_fixture(tmp_path)


@pytest.fixture
def korean_browser():
    yield from korean_chromium()


def read_variance(page) -> tuple[dict[str, list[int]], list[int]]:
    """The variance table: each part's label -> its cents per column, and the totals."""
    parts = {}
    for row in page.query_selector_all("#variance-table tr.part"):
        label = row.query_selector("th").inner_text().strip()
        parts[label] = [int(td.get_attribute("data-cents"))
                        for td in row.query_selector_all("td")]
    total = [int(td.get_attribute("data-cents"))
             for td in page.query_selector_all("#variance-table tr.total td")]
    return parts, total


def test_approve_alert_upload_read_the_variance_re_plan_and_compare_in_korean(
        server, korean_browser, tmp_path):
    base, problems, found = server, [], {}
    rita = korean_page(korean_browser, problems)
    log_in(rita, base, "rita", found, "actuals-01-login")
    rita.goto(f"{base}/scenarios/1/revisions/1")
    rita.select_option("#review-strategy", "proposed")
    assert "제안" in rita.inner_text("#review-strategy option:checked")
    rita.fill("#review-comment", "청구서와 비교할 기준으로 승인합니다.")
    rita.click("#approve")
    rita.wait_for_selector("#plan-vs-actual-link")
    assert "승인된 전략" in rita.inner_text("#reviews")

    ana = korean_page(korean_browser, problems)
    log_in(ana, base, "ana", found, "actuals-02-login")
    ana.goto(f"{base}/scenarios/1")
    ana.click("#alert-settings")
    ana.wait_for_selector("#alerts-form")
    ana.fill("#spend_over_plan", THRESHOLD)
    ana.click("#save-alerts")
    ana.wait_for_selector("#alerts-form")
    assert ana.input_value("#spend_over_plan") in ("70", "70.00")
    # the webhook field names the products it posts to and the URL scheme it takes
    check(ana, "actuals-03-alert-threshold", found,
          ALLOWED | {"Slack", "Microsoft", "Teams", "URL", "https"})

    ana.goto(f"{base}/scenarios/1")
    ana.click("#actual-bills")
    ana.wait_for_selector("#actuals-form")
    check(ana, "actuals-04-upload", found, ALLOWED)

    lines = BILLS[0].read_text().splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    row[header.index("PricingCurrency")] = "EUR"
    lines[1] = ",".join(row)
    broken = tmp_path / "broken.csv"
    broken.write_text("\n".join(lines) + "\n")
    ana.set_input_files("#bills", [str(broken)])
    ana.click("#upload-actuals")
    ana.wait_for_selector("#upload-error")
    refusal = ana.inner_text("#upload-error")
    assert "BillingCurrency" in refusal and "EUR" in refusal and "저장" in refusal
    assert "아직 올린 실제 청구서가 없습니다" in ana.inner_text("#actual-uploads")
    check(ana, "actuals-05-refused", found, ALLOWED | {"broken", "EUR", "BillingCurrency"})

    assert "자체 보유 실적 템플릿" in ana.inner_text("#owned-actuals-help")
    ana.set_input_files("#bills", [str(p) for p in BILLS] + [str(OWNED)])
    ana.click("#upload-actuals")
    ana.wait_for_url("**/revisions/1/actual")
    check(ana, "actuals-06-plan-vs-actual", found, ALLOWED)

    rita.goto(f"{base}/scenarios/1/revisions/1/actual")
    assert rita.inner_text("h1").startswith("계획 대비 실적")
    parts, total = read_variance(rita)
    assert PART_NAMES | OWNED_PART_NAMES <= set(parts), parts
    assert len(total) == 7                            # six months and the year to date
    for column in range(7):                           # each part named, adding up to the cent
        assert sum(cents[column] for cents in parts.values()) == total[column]
    assert "연초 대비 누계 2027-01~2027-06" in rita.inner_text("#variance-table")
    assert "누적 전망" in rita.inner_text("#cumulative-table")
    assert rita.inner_text("#forecast-total")
    # the threshold breached: on the Plan vs actual page and the scenario list's badge
    assert [li.inner_text().strip() for li in rita.query_selector_all(
        "#alerts li.alert-breach")] == BREACHES
    check(rita, "actuals-07-reviewer", found, ALLOWED)
    for client in (ana, rita):
        client.goto(f"{base}/scenarios/")
        badges = [b.inner_text().strip() for b in client.query_selector_all(".alert-badge")]
        assert badges == ["계획 초과 지출: 2027-04 외 1개월"], badges
    check(rita, "actuals-08-scenario-list", found, ALLOWED)

    # re-plan from the actual position, then compare
    ana.goto(f"{base}/scenarios/1/revisions/1/actual")
    assert ana.inner_text("#replan-heading") == "실적으로 재계획"
    replan_and_compare(ana, found, ALLOWED, "actuals-09-re-plan")
    # the proposal now holds the servers only: a yes or no in words, not the JSON's true/false
    held = [r.inner_text().split("\t") for r in ana.query_selector_all("#assumption-diffs tr")
            if "보유분만 유지" in r.inner_text()]
    assert [cells[1:] for cells in held] == [["아니요", "예"]], held
    check(ana, "actuals-10-compare", found, ALLOWED | {"3y"})
    assert found == {}, "\n".join(f"{k}: {w}" for k, words in found.items() for w in words)
    # the one refused upload answers 422, which Chromium logs; nothing else
    assert [p for p in problems if "status of 422" not in p] == [], problems
    assert len(problems) == 1, problems
