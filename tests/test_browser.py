"""The real app (waitress, temp instance) driven by Chromium through Playwright.

Chromium must be installed (scripts/system-packages); a missing browser fails these tests.
Screenshots of the main pages go to test-artifacts/.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from service.paths import ROOT
from tests.conftest import PASSWORD, SAMPLE_USAGE
from tests.live_server import live_server

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "test-artifacts"
PRESET = "aws/p5.48xlarge/us-east-1"


@pytest.fixture
def server(tmp_path):
    """The app behind waitress in a child process (tests/live_server.py: terminated, never
    closed from another thread), with an analyst and a reviewer."""
    from service import create_app
    from service.web.users import create_user
    from service.web.db import write_session
    config = {"INSTANCE_PATH": str(tmp_path / "instance"),
              "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}
    app = create_app(config)
    with app.app_context():
        with write_session() as s:
            create_user(s, "ana", PASSWORD, "analyst")
            create_user(s, "rita", PASSWORD, "reviewer")
    app.extensions["buyrent_engine"].dispose()
    with live_server(config) as url:
        yield url


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/system-packages")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def new_page(browser, problems: list[str]):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.set_default_timeout(30_000)
    return page


def login(page, base: str, name: str) -> None:
    page.goto(f"{base}/login")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/scenarios/")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def assert_charts_rendered(page, ids: list[str]) -> None:
    for chart_id in ids:
        page.wait_for_selector(f"#{chart_id} svg.main-svg", state="attached")
        page.wait_for_selector(f"#{chart_id} g.trace", state="attached")
        assert page.locator(f"#{chart_id} g.trace path").count() > 0, chart_id


def test_analyst_builds_plan_and_reviewer_approves(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    shot(page, "01-scenarios")

    # New scenario from a preset: choosing it reloads the form with the catalog prices.
    page.click("text=New scenario >> nth=0")
    page.select_option("#preset", PRESET)
    page.wait_for_url("**preset=aws*", timeout=90_000)   # the form page renders slowly under load
    assert page.input_value("[name='on_demand.price_per_gpu_hour']") == "6.88"
    assert page.input_value("[name='spot.price_per_gpu_hour']") == "2.2036"
    assert "SkyPilot catalog" in page.inner_text(".preset-chooser")
    page.fill("[name=name]", "Browser: H100 vs p5")
    shot(page, "02-scenario-form")
    page.click("#save")
    page.wait_for_selector("text=Scenario saved")

    # Upload the hourly sample, see the preview, attach it.
    page.click("text=Upload usage >> nth=0")
    page.set_input_files("#usage", str(SAMPLE_USAGE))
    page.click("#preview")
    page.wait_for_selector("#attach")
    assert_charts_rendered(page, ["chart-usage"])
    assert "hourly, 8760 rows" in page.inner_text("main")
    shot(page, "03-usage-preview")
    page.click("#attach")
    page.wait_for_url("**/revisions/2")

    # The plan: cards, every chart drawn by plotly, monthly table.
    charts = ["chart-cumulative", "chart-by-source", "chart-load-duration", "chart-screening",
              "chart-tornado", "chart-histogram"]
    assert_charts_rendered(page, charts)
    assert page.locator("#summary .card").count() >= 3
    assert page.locator("#monthly tr").count() == 61
    assert "Not approved" in page.inner_text("#approval")
    shot(page, "04-plan")

    # Downloads: JSON always; the workbook opens with openpyxl.
    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename.endswith(".json")
    import openpyxl
    with page.expect_download() as download:
        page.click("#download-xlsx")
    assert download.value.suggested_filename.endswith("-r2.xlsx")
    workbook = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert "Assumptions" in workbook.sheetnames
    plan_url = page.url
    page.context.close()

    # The reviewer approves this exact revision; the audit log shows it with its hash.
    page = new_page(browser, problems)
    login(page, server, "rita")
    page.goto(plan_url)
    assert_charts_rendered(page, charts)
    revision_hash = page.inner_text("#revision-hash")
    page.fill("textarea[name=comment]", "Numbers checked against the quotes.")
    page.click("#approve")
    page.wait_for_selector("text=Revision 2 approved.")
    assert "binds to revision 2" in page.inner_text("#approval")
    shot(page, "05-approved")
    page.click("text=Audit log")
    audit = page.inner_text("#audit")
    assert "review.approve" in audit and "rita" in audit and revision_hash[:12] in audit
    assert "revision.create" in audit and "usage.upload" in audit
    shot(page, "06-audit")
    page.context.close()
    assert problems == []


def test_bad_input_in_the_browser_shows_messages(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.goto(f"{server}/scenarios/new")
    page.click("#advanced > summary")        # PUE is folded under advanced > owned servers
    page.click("#section-owned > summary")
    page.fill("[name='owned.pue']", "0.4")
    page.click("#save")
    message = page.inner_text("[data-field='owned.pue']")
    assert "greater than or equal to 1" in message
    shot(page, "07-form-error")
    page.goto(f"{server}/scenarios/")
    assert "No scenarios yet" in page.inner_text("#scenarios")
    page.context.close()
    # The only console noise allowed is the 422 of the refused form.
    assert all("422" in p for p in problems), problems
