"""The real app (waitress, temp instance) driven by Chromium through Playwright.

Chromium must be installed (scripts/system-packages); a missing browser fails these tests.
Screenshots of the main pages go to test-artifacts/.
"""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from tests.support.chromium import assert_charts_rendered, login, new_page, open_plan, shot
from tests.support.paths import SAMPLE_USAGE, SAMPLES

pytestmark = pytest.mark.browser
PRESET = "aws/p5.48xlarge/us-east-1"


def test_analyst_builds_plan_and_reviewer_approves(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    shot(page, "01-scenarios")

    # New scenario from a preset: choosing it fills the form in the page (static/js/presets.js)
    # and lists what it changed.
    page.click("text=New scenario >> nth=0")
    # the chooser applies on "change" through a listener presets.js adds at DOMContentLoaded;
    # a choice made before its scripts ran would be lost, so wait for it
    page.wait_for_selector("#preset-form[data-ready=true]", state="attached")
    page.select_option("#preset-price", PRESET)
    page.wait_for_selector("#preset-changes-gpu li", timeout=90_000)  # slow under load
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
    # the plan arrives in stages (static, staged, complete) and the page reloads itself as
    # each lands: a chart counted during a reload had no trace yet (CI, 2026-12-04)
    open_plan(page, page.url.split("#")[0])

    # The plan: cards, every chart drawn by plotly, monthly table.
    charts = ["chart-cumulative", "chart-by-source", "chart-load-duration", "chart-screening",
              "chart-tornado", "chart-histogram"]
    assert_charts_rendered(page, charts)
    assert page.locator("#summary .card").count() >= 3
    assert page.locator("#monthly tr").count() == 61
    assert "Not approved" in page.inner_text("#approval")
    shot(page, "04-plan")

    # Downloads: JSON always; the workbook (a job: a page that reloads until it is written,
    # then the file) opens with openpyxl.
    plan_url = page.url
    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename.endswith(".json")
    import openpyxl
    with page.expect_download() as download:
        page.click("#download-xlsx")
    assert download.value.suggested_filename.endswith("-r2.xlsx")
    workbook = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert "Assumptions" in workbook.sheetnames
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


def test_a_scenario_file_chosen_on_the_scenarios_page_is_saved(instance_server, browser):
    """Issue 39, item 1: "New scenario from a file" refuses a bad file by its field's label,
    then saves the robust sample and lands on its page; revision 1 holds the file's scenario."""
    from models.scenario import Scenario, scenario_from_json
    from service.web.db import write_session
    from service.web.tables import Revision
    server, app = instance_server
    robust = SAMPLES / "scenario_robust.json"
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.set_input_files("#scenario-file", files=[{
        "name": "bad.json", "mimeType": "application/json",
        "buffer": b'{"name": "bad", "owned": {"pue": 0.5}}'}])
    page.click("#from-file")
    page.wait_for_selector("#file-problems")
    assert "Owned servers: PUE" in page.inner_text("#file-problems")
    assert "Nothing was saved." in page.inner_text("#file-errors")
    shot(page, "08-scenario-file-refused")
    page.set_input_files("#scenario-file", str(robust))
    page.click("#from-file")
    page.wait_for_url(re.compile(r".*/scenarios/\d+$"))
    name = json.loads(robust.read_text())["name"]
    assert page.inner_text("h1") == name
    assert "Scenario saved from scenario_robust.json" in page.inner_text("main")
    shot(page, "09-scenario-from-file")
    scenario_id = int(page.url.rsplit("/", 1)[1])
    page.context.close()
    with app.app_context():
        with write_session() as s:
            revision = s.query(Revision).filter_by(scenario_id=scenario_id).one()
            assert Scenario.model_validate_json(revision.assumptions) == \
                scenario_from_json(robust.read_bytes())
    # the only console noise allowed is the 422 of the refused file
    assert all("422" in p for p in problems), problems
