"""The whole flow in Korean through Chromium (issue 15): a Korean-speaking analyst and reviewer
log in, upload usage, read the plan, review it and download the workbook, and meet no English
word on the way except proper names and units (the allow-list below). Screenshots:
test-artifacts/ko-*.png. Hangul needs a CJK font (fonts-noto-cjk, scripts/system-packages).
"""
from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PASSWORD, SAMPLE_USAGE
from tests.test_browser import ARTIFACTS, ARGS, CHROMIUM, assert_charts_rendered, stop_server

pytestmark = pytest.mark.browser
SCENARIO = "서울 H100 구매 검토"
# Proper names, units, formats and codes a Korean reader meets as they are.
ALLOWED = {
    "buyrent", "AWS", "H100", "GPU", "PV", "CSV", "XLSX", "xlsx", "json", "kW", "kWh", "UTC",
    "P10", "P50", "P90", "US", "USD", "KRW", "PUE", "TB", "GB", "FTE", "ISO", "VAT", "Excel",
    "API",
}
REVISION = re.compile(r"r\d+")   # r1, r2: revision references
# What the test itself typed or uploaded: user names, team names, the usage file's name.
USER_DATA = {"ana", "rita", "serving", "research", "usage", "hourly", "csv"}
CHARTS = ["chart-cumulative", "chart-by-source", "chart-load-duration", "chart-screening",
          "chart-tornado", "chart-histogram"]
# Visible text of a page: element text without <code> (hashes, keys) and without what is
# marked lang="en" (the language switch's own name, engine sentences the plan document gives
# only in English until the engine provides messages), plus every chart's SVG text.
VISIBLE_TEXT = """() => {
  const root = document.body.cloneNode(true);
  root.querySelectorAll('code, script, [lang=en], .chart, select option:not(:checked)')
      .forEach(e => e.remove());
  const charts = [...document.querySelectorAll('.chart svg text')].map(t => t.textContent);
  return [root.innerText, charts.join(' ')].join(' ');
}"""


def english_words(page) -> list[str]:
    text = page.evaluate(VISIBLE_TEXT)
    words = re.findall(r"[A-Za-z][A-Za-z0-9]+", text)
    return sorted({w for w in words if w not in ALLOWED | USER_DATA
                   and not REVISION.fullmatch(w)})


@pytest.fixture
def korean_server(tmp_path):
    from waitress import create_server

    from models.scenario import Scenario
    from service import create_app
    from service.auth import create_user
    from service.db import write_session
    from service.revisions import create_scenario
    app = create_app({"INSTANCE_PATH": str(tmp_path / "instance"),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "ana", PASSWORD, "analyst")
            create_user(s, "rita", PASSWORD, "reviewer")
            create_scenario(s, ana, Scenario().model_copy(update={"name": SCENARIO}))
    httpd = create_server(app, host="127.0.0.1", port=0, threads=4)
    import threading
    thread = threading.Thread(target=httpd.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.effective_port}"
    stop_server(httpd, thread)
    app.extensions["buyrent_engine"].dispose()


@pytest.fixture
def korean_browser():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/system-packages")
    family = subprocess.run(["fc-match", "-f", "%{family}", ":lang=ko"], capture_output=True,
                            text=True).stdout
    if "CJK" not in family:
        pytest.fail(f"no CJK font for Hangul (fc-match gives {family!r}): install "
                    "fonts-noto-cjk (scripts/system-packages)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + ["--lang=ko-KR"])
        yield chromium
        chromium.close()


def korean_page(browser, problems: list[str]):
    context = browser.new_context(accept_downloads=True, locale="ko-KR",
                                  extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"},
                                  viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.set_default_timeout(30_000)
    return page


def check(page, name: str, found: dict[str, list[str]]) -> None:
    """Screenshot the page and collect its English words (asserted at the end)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"ko-{name}.png"), full_page=True)
    words = english_words(page)
    if words:
        found[name] = words


def log_in(page, base: str, name: str, found) -> None:
    page.goto(f"{base}/login")
    assert page.locator("html").get_attribute("lang") == "ko"
    check(page, "01-login", found)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.narrow button[type=submit]")
    page.wait_for_url(f"{base}/scenarios/")


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
    check(page, "06-plan", found)
    with page.expect_download() as download:
        page.click("#download-xlsx")
    import openpyxl
    workbook = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert workbook.sheetnames[:2] == ["요약", "가정"]
    plan_url = page.url
    page.context.close()

    page = korean_page(korean_browser, problems)
    log_in(page, base, "rita", found)
    page.goto(plan_url)
    assert_charts_rendered(page, CHARTS)
    page.fill("textarea[name=comment]", "견적과 대조해 확인했습니다.")
    page.click("#approve")
    page.wait_for_selector("text=리비전 2을(를) 승인했습니다.")
    assert "리비전 2" in page.inner_text("#approval")
    check(page, "07-approved", found)
    page.click("text=감사 로그")
    # The audit log's cells are records as written (actor names with their role, details
    # such as "sha256=..."): screenshot only, its headings are checked on the other pages.
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ko-08-audit.png"), full_page=True)
    assert "리비전 승인" in page.inner_text("#audit")
    page.goto(f"{base}/profile")
    check(page, "09-profile", found)
    with page.expect_download() as download:
        page.goto(plan_url)
        page.click("#download-xlsx")
    assert openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes())
                                  ).sheetnames[0] == "요약"
    page.context.close()
    assert found == {}, f"English words on Korean pages: {found}"
    assert problems == []
