"""The whole flow in Korean through Chromium (issue 15): a Korean-speaking analyst and reviewer
log in, upload usage, read the plan, review it and download the workbook, and meet no English
word on the way except proper names and units (the allow-list below). Screenshots:
test-artifacts/ko-*.png. Hangul needs a CJK font (fonts-noto-cjk, scripts/system-packages).
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import openpyxl
import pytest

from tests.support.chromium import ARTIFACTS, assert_charts_rendered
from tests.support.client import PASSWORD
from tests.support.korean import (CONTRACT_BOXES, SOURCES, check, korean_chromium, korean_page,
                                  log_in, preview_contracts, refused_upload)
from tests.support.live_server import live_server
from tests.support.paths import SAMPLE_USAGE

pytestmark = pytest.mark.browser
SCENARIO = "서울 H100 구매 검토"
# The allow-list of English words and the page reader: tests/support/korean.py.
CHARTS = ["chart-cumulative", "chart-by-source", "chart-load-duration", "chart-screening",
          "chart-tornado", "chart-histogram"]


@pytest.fixture
def korean_server(tmp_path):
    """The app behind waitress in a child process (tests/support/live_server.py)."""
    from models.scenario import Scenario
    from service.app import create_app
    from service.web.users import create_user
    from service.web.db import write_session
    from service.plans.revisions import create_scenario
    config = {"INSTANCE_PATH": str(tmp_path / "instance"),
              "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}
    app = create_app(config)
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "ana", PASSWORD, "analyst")
            create_user(s, "rita", PASSWORD, "reviewer")
            create_scenario(s, ana, Scenario().model_copy(update={"name": SCENARIO}))
    app.extensions["buyrent_engine"].dispose()
    with live_server(config) as url:
        yield url


@pytest.fixture
def korean_browser():
    yield from korean_chromium()


def test_korean_reviewer_flow_meets_no_english(korean_server, korean_browser):
    base, problems, found = korean_server, [], {}
    page = korean_page(korean_browser, problems)
    log_in(page, base, "ana", found)
    check(page, "02-scenarios", found)
    page.click(f"text={SCENARIO}")
    check(page, "03-scenario", found)

    page.click("text=사용량 업로드 >> nth=0")
    check(page, "04-upload", found)
    page.set_input_files("#usage", str(SAMPLE_USAGE))
    page.click("#preview")
    page.wait_for_selector("#attach")
    assert_charts_rendered(page, ["chart-usage"])
    assert "시간별, 8760행" in page.inner_text("main")
    page.click("#ingest-summary summary")
    check(page, "05-preview", found)
    page.click("#attach")
    page.wait_for_url("**/revisions/2")

    assert_charts_rendered(page, CHARTS)
    assert "현재가치 비용" in page.inner_text("#summary")
    assert "전략별 누적 비용" in page.inner_text("#chart-cumulative")
    # the staged plan's Schedule section (issue 14): words, orders, cash, both charts
    assert page.inner_text("#schedule-heading") == "일정"
    assert_charts_rendered(page, ["chart-timeline-staged", "chart-cash-staged"])
    assert "월별 용량" in page.inner_text("#chart-timeline-staged")
    # money axes read in 만 and 억, not Plotly's "20M" / "1.5B" (issue 24)
    page.wait_for_function("""() => [...document.querySelectorAll(
        '#chart-cumulative .ytick text')].some(t => /[만억]$/.test(t.textContent))""")
    ticks = page.evaluate("""() => [...document.querySelectorAll(
        '.chart .xtick text, .chart .ytick text')].map(t => t.textContent)""")
    assert not [t for t in ticks if re.fullmatch(r"[-−]?[\d.,]+[kMGB]", t)], ticks
    check(page, "06-plan", found)
    # before the download: a workbook still being written answers a page that waits for it
    # and then follows to the file, leaving the page's address on plan.xlsx
    plan_url = page.url
    with page.expect_download() as download:
        page.click("#download-xlsx")
    workbook = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert workbook.sheetnames[:2] == ["요약", "가정"]
    page.context.close()

    # The reviewer asks for a change of one assumption (issue 16's review form, in Korean).
    page = korean_page(korean_browser, problems)
    log_in(page, base, "rita", found)
    assert SCENARIO in page.inner_text("#awaiting-review")
    check(page, "07-awaiting-review", found)
    page.goto(plan_url)
    assert_charts_rendered(page, CHARTS)
    page.fill("#review-comment", "이번 분기 서버 견적으로 바꿔 주세요.")
    page.select_option("#review-field", "owned.server_price")
    page.click("#request-changes")
    page.wait_for_selector("text=리비전 2에 수정을 요청했습니다.")
    assert "수정 요청" in page.inner_text("#approval")
    check(page, "08-changes-requested", found)
    page.context.close()

    # The analyst follows the request on the short form (essentials, live plan) and saves r3.
    page = korean_page(korean_browser, problems)
    log_in(page, base, "ana", found)
    assert "이번 분기 서버 견적" in page.inner_text("#changes-requested")
    check(page, "09-scenarios-changes", found)
    page.click("#changes-requested a[href*='#field-owned.server_price']")
    page.wait_for_selector("#live-status[data-seq='1']")
    assert_charts_rendered(page, ["chart-live-cumulative"])
    page.fill("[id='owned.server_price']", "260,000")
    page.wait_for_selector("#live-status[data-seq='2']")
    page.click("#advanced > summary")
    # static/js/rows.js's buttons take their words from the page
    assert page.text_content("#add-row-commitments") == "행 추가: 약정 상품"
    check(page, "10-form", found, SOURCES)
    page.click("#save")
    page.wait_for_selector("text=리비전 3으로 저장했습니다.")
    check(page, "11-saved", found)
    page.context.close()

    # The reviewer reads what changed (both curves and the waterfall) and approves r3.
    page = korean_page(korean_browser, problems)
    log_in(page, base, "rita", found)
    page.click("#awaiting-review a:has-text('r2 이후 바뀐 점')")
    assert_charts_rendered(page, ["chart-compare", "chart-waterfall"])
    assert "절감액을 바꾼 요인" in page.inner_text("main")
    check(page, "12-compare", found)
    page.click("text=r3 열기")
    assert_charts_rendered(page, CHARTS)
    plan_url = page.url
    page.fill("#review-comment", "견적과 대조해 확인했습니다.")
    page.click("#approve")
    page.wait_for_selector("text=리비전 3을 승인했습니다.")
    assert "리비전 3" in page.inner_text("#approval")
    check(page, "13-approved", found)
    page.click("text=감사 로그")
    # The audit log's cells are records as written (actor names with their role, details
    # such as "sha256=..."): screenshot only, its headings are checked on the other pages.
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ko-14-audit.png"), full_page=True)
    assert "리비전 승인" in page.inner_text("#audit")
    page.goto(f"{base}/profile")
    check(page, "15-profile", found)
    with page.expect_download() as download:
        page.goto(plan_url)
        page.click("#download-xlsx")
    assert openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes())
                                  ).sheetnames[0] == "요약"
    page.context.close()
    assert found == {}, f"English words on Korean pages: {found}"
    assert problems == []


WON_SCENARIO = "서울 H100 원화 계획"
CONTRACTS = SAMPLE_USAGE.parent / "focus_1.3_contract_commitment_sample.csv"
FILE_WORDS = {"focus", "contract", "commitment", "sample"}   # the uploaded file's name
BROKEN = b"timestamp,gpu_hours,team\n2027-01-01T00:00,x,research\n2027-01-01T01:00,-1,\n"


@pytest.fixture
def won_server(tmp_path):
    """A scenario in won (cloud prices in won too, a rate for dollar contracts)."""
    from models.scenario import Scenario
    from service.app import create_app
    from service.web.users import create_user
    from service.web.db import write_session
    from service.plans.revisions import create_scenario
    config = {"INSTANCE_PATH": str(tmp_path / "instance"),
              "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}
    app = create_app(config)
    model = Scenario.model_validate({"name": WON_SCENARIO, "finance": {"currency": "KRW"},
                                     "fx": {"rate": 1422.16, "as_of": "2025-12-31"}})
    with app.app_context():
        with write_session() as s:
            create_scenario(s, create_user(s, "ana", PASSWORD, "analyst"), model)
    app.extensions["buyrent_engine"].dispose()
    with live_server(config) as url:
        yield url


def test_korean_refusal_and_dollar_contracts_in_a_won_scenario(won_server, korean_browser,
                                                                tmp_path):
    """Issue 24: a broken usage file is refused in Korean, row by row, with no English word;
    the company's FOCUS 1.3 Contract Commitment file in USD attaches to the won scenario, the
    H100 contract checked and the L4 ones saying why."""
    base, problems, found = won_server, [], {}
    page = korean_page(korean_browser, problems)
    log_in(page, base, "ana", found)
    page.click(f"text={WON_SCENARIO}")
    page.click("text=사용량 업로드 >> nth=0")
    error = refused_upload(page, tmp_path, BROKEN)
    assert "2행, 'gpu_hours' 열" in error and "0 이상의 숫자여야 하는데 'x'입니다" in error
    assert "expected" not in error and "negative" not in error
    # the refusal is the upload's 422 answer, which the console notes: expected here
    problems[:] = [p for p in problems if "status of 422" not in p]
    check(page, "21-refused", found, {"broken", "gpu", "hours", "x"})   # file and column names
    assert preview_contracts(page, CONTRACTS) == CONTRACT_BOXES
    assert "L4 GPU 약정: 이 시나리오는 H100 계획입니다" in page.inner_text("#contracts")
    # contract ids, instance names and FOCUS skip values are the file's own words
    check(page, "22-contracts", found, {"CC", "GCP", "A3", "1Y", "cud", "l4", "1y", "G2",
                                        "H100", "3Y", "a3", "highgpu", "8g", "g2",
                                        "standard", "Nvidia", "L4", "80GB", "SPEND",
                                        "STORAGE", "N2", "A2", "NOCOST", "GiB", "Months",
                                        "EUR", "SKU", *FILE_WORDS})
    page.click("#attach-commitments-button")
    page.wait_for_url(f"{base}/scenarios/1")
    assert "1건" in page.inner_text("main") or "약정" in page.inner_text("main")
    check(page, "23-attached", found, FILE_WORDS)
    page.context.close()
    assert found == {}, f"English words on Korean pages: {found}"
    assert problems == []
