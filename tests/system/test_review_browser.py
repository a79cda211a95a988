"""Issue 16 in Chromium: the short form with messages as you type, the live plan, progress,
request changes and compare with the waterfall, approval with a reason, axe-core on every
page, and the form by keyboard alone. Screenshots go to test-artifacts/review-*.png."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.support.chromium import (axe_violations, login, new_page,
                                    server_fixture, shot)
from tests.support.paths import SAMPLE_USAGE

pytestmark = pytest.mark.browser
EDIT = "/scenarios/1/edit"
SHOWN = "#scenario-form[data-state='shown']"  # the page shows the answer to the last edit
# Records what the progress box said, across the navigation that follows (sessionStorage).
PROGRESS_LOG = """
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".progress").forEach(box => new MutationObserver(() => {
    const log = JSON.parse(sessionStorage.getItem("progressLog") || "[]");
    log.push(box.textContent);
    sessionStorage.setItem("progressLog", JSON.stringify(log));
  }).observe(box, {subtree: true, childList: true, characterData: true}));
});
"""


@pytest.fixture
def server(tmp_path):
    yield from server_fixture(tmp_path)



def field(name: str) -> str:
    return f"[name='{name}']"


def error_of(page, name: str):
    return page.locator(f"[id='error-{name}']")


def test_short_form_validates_as_you_type(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.goto(server + "/scenarios/new")
    assert page.locator("#section-essentials .field").count() == 13
    assert not page.locator("#advanced").get_attribute("open") is not None
    assert page.locator(field("owned.pue")).is_hidden()          # folded under advanced
    assert page.input_value(field("owned.server_price")) == "300,000"
    assert page.inner_text("[id='unit-finance.discount_rate_annual']") == "% per year"
    url = page.url
    page.fill(field("spot.discount"), "150")
    page.wait_for_selector("[id='error-spot.discount']:not([hidden])")
    assert error_of(page, "spot.discount").inner_text() == "Input should be less than 100 %"
    assert page.url == url                                       # no reload
    assert "1 problem" in page.inner_text("#form-status")
    page.fill(field("spot.discount"), "60")
    page.wait_for_selector("[id='error-spot.discount']", state="hidden")
    assert page.inner_text("#changed-essentials") == "1 value differs from the defaults"
    page.fill(field("owned.server_price"), "275000")
    page.locator(field("owned.server_price")).blur()
    assert page.input_value(field("owned.server_price")) == "275,000"
    page.click("#advanced > summary")
    page.click("#section-owned > summary")
    page.fill(field("owned.pue"), "1.25")
    page.wait_for_selector("#changed-owned[data-changed='1']")
    assert "1 value differs" in page.inner_text("#changed-advanced")
    page.fill(field("owned.power_kw_idle"), "20")                # a cross-field rule
    page.wait_for_selector("#group-errors-owned .error")
    assert "must be <= power_kw_max" in page.inner_text("#group-errors-owned")
    shot(page, "review-01-short-form-messages")
    page.fill(field("owned.power_kw_idle"), "3")
    page.wait_for_selector("#group-errors-owned .error", state="detached")
    page.fill(field("name"), "Short form")
    page.click("#save")
    page.wait_for_selector("text=Scenario saved")
    page.context.close()
    assert problems == []


def test_live_plan_updates_without_reload(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.goto(server + EDIT)
    page.wait_for_selector("#live-status[data-seq='1']")
    page.wait_for_selector("#chart-live-cumulative g.trace", state="attached")
    before = page.inner_text("#live-cards [data-strategy='optimal'] .big")
    url = page.url
    # Each edit redraws the cards without a reload and reports its latency; the 300 ms budget
    # is measured by bench/live_update.py (p95 over 50 edits), not asserted here, where other
    # test workers share the cores and a timing claim would make the suite flaky.
    for price in ("150,000", "200,000", "250,000"):
        page.fill(field("owned.server_price"), price)
        page.wait_for_selector(SHOWN)
        assert float(page.get_attribute("#live-status", "data-ms")) > 0
    after = page.inner_text("#live-cards [data-strategy='optimal'] .big")
    assert before != after and page.url == url
    charts = json.loads(page.inner_text("#live-charts"))
    assert len(charts["months"]) == 60
    assert "Cumulative cost over 60 months" in page.inner_text("#live-cumulative-summary")
    shot(page, "review-02-live-plan")
    page.fill(field("owned.server_price"), "-5")                 # refused: numbers stay
    page.wait_for_selector("[id='error-owned.server_price']:not([hidden])")
    assert "Fix the values" in page.inner_text("#live-status")
    page.fill(field("owned.server_price"), "250,000")
    page.wait_for_selector("[id='error-owned.server_price']", state="hidden")
    page.click("#save")                                          # a new immutable revision
    page.wait_for_selector("text=Saved as revision 2")
    page.context.close()
    assert problems == []


def keep_poll(response, polls: list[dict]) -> None:
    """A progress poll's JSON; a poll answered as the page navigated away has no body left in
    the browser (Playwright: 'No resource with given identifier'), and is not counted."""
    if "/scenarios/progress/" not in response.url:
        return
    try:
        polls.append(response.json())
    except PlaywrightError as exc:
        if "No resource with given identifier" not in str(exc) and \
                "navigated away" not in str(exc):
            raise


def test_upload_shows_bytes_and_phases(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    page.context.add_init_script(PROGRESS_LOG)
    polls: list[dict] = []
    page.on("response", lambda r: keep_poll(r, polls))
    login(page, server, "ana")
    page.goto(server + "/scenarios/1/usage")
    page.set_input_files("#usage", str(SAMPLE_USAGE))
    page.click("#preview")
    page.wait_for_url(re.compile(r".*/scenarios/1/usage/\d+$"))
    page.wait_for_selector("#attach")
    log = json.loads(page.evaluate("() => sessionStorage.getItem('progressLog') || '[]'"))
    uploads = [re.search(r"Uploading: ([\d,]+) of ([\d,]+) bytes", e) for e in log]
    totals = [int(m.group(2).replace(",", "")) for m in uploads if m]
    assert totals and totals[-1] >= SAMPLE_USAGE.stat().st_size, log   # the request's bytes
    texts = {"Reading the usage file", "Planning every strategy", "Computing the uncertainty",
             "Done"}
    assert any(any(t in e for t in texts) for e in log), log           # then the phases
    # the polls that answered before the page moved on name only known phases; a fast upload
    # may finish before the first poll answers (CI, 2026-12-04: none answered, the log above
    # still showed the phases), so the page's log is the proof that phases were shown
    phases = {p["phase"] for p in polls if p.get("phase")}
    assert phases <= {"reading", "planning", "uncertainty", "done"}, polls
    shot(page, "review-03-upload-preview")
    page.evaluate("() => sessionStorage.clear()")
    page.click("#attach")
    page.wait_for_url("**/revisions/2")
    log = json.loads(page.evaluate("() => sessionStorage.getItem('progressLog') || '[]'"))
    assert log, "the attach form showed no progress"
    # the workbook is a job once the plan is complete: the page waits for the plan, then the
    # download's pending page reloads itself until the file is written
    page.wait_for_function("() => !document.getElementById('plan-job')", timeout=240_000,
                           polling=500)
    page.wait_for_load_state("load")
    with page.expect_download(timeout=240_000) as download:
        page.click("#download-xlsx")
    assert download.value.suggested_filename.endswith("-r2.xlsx")
    shot(page, "review-09-workbook-pending")
    page.context.close()
    assert problems == []


def test_request_changes_compare_and_approve_with_a_reason(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "rita")
    assert "r1" in page.inner_text("#awaiting-review")
    page.click("#awaiting-review a >> nth=0")
    page.fill("#review-comment", "Use this quarter's server quote.")
    page.select_option("#review-field", "owned.server_price")
    page.click("#request-changes")
    page.wait_for_selector("text=Changes requested on revision 1.")
    # the field by its label, never its path (issue 39, item 2)
    reviews = page.inner_text("#reviews")
    assert "Owned servers: Server price" in reviews and "owned.server_price" not in reviews
    shot(page, "review-04-changes-requested")
    page.context.close()

    page = new_page(browser, problems)
    login(page, server, "ana")
    box = page.inner_text("#changes-requested")
    assert "this quarter's server quote" in box
    page.click("#changes-requested a[href*='#field-owned.server_price']")
    page.wait_for_selector("#live-status[data-seq='1']")
    assert page.locator(field("owned.server_price")).is_visible()
    shot(page, "review-05-analyst-follows-the-request")
    page.fill(field("owned.server_price"), "260,000")
    page.click("#advanced > summary")
    page.click("#section-spot > summary")
    page.fill(field("spot.discount"), "60")
    page.wait_for_selector(SHOWN)
    page.click("#save")
    page.wait_for_selector("text=Saved as revision 2")
    page.context.close()

    page = new_page(browser, problems)
    login(page, server, "rita")
    page.click("#awaiting-review a:has-text('what changed')")
    page.wait_for_selector("#chart-waterfall g.trace", state="attached")
    page.wait_for_selector("#chart-compare g.trace", state="attached")
    bars = [int(c) for c in page.locator("#waterfall td.delta").evaluate_all(
        "cells => cells.map(c => c.dataset.cents)")]
    total = int(page.get_attribute("#waterfall-total", "data-cents"))
    assert len(bars) == 2 and sum(bars) == total
    shot(page, "review-06-compare-waterfall")
    page.click("text=open r2")
    page.click("#approve")                        # empty reason: the browser asks for one
    assert page.locator("#review-comment:invalid").count() == 1
    page.fill("#review-comment", "Quote and spot discount checked.")
    page.click("#approve")
    page.wait_for_selector("text=Revision 2 approved.")
    assert "reason: Quote and spot discount checked." in page.inner_text("#reviews")
    shot(page, "review-07-approved-with-reason")
    page.context.close()
    assert problems == []


PAGES = {"ana": ["/scenarios/", "/scenarios/new", EDIT, "/scenarios/1",
                 "/scenarios/1/usage", "/scenarios/1/revisions/1", "/audit", "/profile"],
         "rita": ["/scenarios/", "/scenarios/1/revisions/1", "/scenarios/1/compare?a=1&b=1",
                  "/scenarios/compare?a=1&b=1"]}


def test_axe_finds_no_serious_violation_and_every_chart_has_text(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    page.goto(server + "/login")
    found = {"/login": axe_violations(page)}
    for user, urls in PAGES.items():
        login(page, server, user)
        for url in urls:
            page.goto(server + url)
            page.wait_for_load_state("networkidle")
            for chart in page.locator(".chart").all():
                caption = chart.locator("xpath=following-sibling::figcaption")
                assert caption.count() == 1 and caption.inner_text().strip(), (url, chart)
            if url == "/scenarios/":
                page.click("#advanced > summary") if page.locator("#advanced").count() else None
            found[f"{user} {url}"] = axe_violations(page)
        page.click("text=Log out")
    page.goto(server + "/scenarios/1/usage")                     # preview page after upload
    login(page, server, "ana")
    page.goto(server + "/scenarios/1/usage")
    page.set_input_files("#usage", str(SAMPLE_USAGE))
    page.click("#preview")
    page.wait_for_selector("#attach")
    found["ana preview"] = axe_violations(page)
    page.goto(server + EDIT)
    page.click("#advanced > summary")                           # the folded part too
    page.locator("details.section > summary").evaluate_all("els => els.forEach(e => e.click())")
    found["ana edit, all open"] = axe_violations(page)
    page.goto(server + "/scenarios/9")
    found["404 page"] = axe_violations(page)
    page.context.close()
    assert {k: v for k, v in found.items() if v} == {}


def test_the_form_works_with_the_keyboard_alone(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    page.goto(server + "/login")
    tab_to(page, "username")
    page.keyboard.type("ana")
    page.keyboard.press("Tab")
    page.keyboard.type("correct horse battery")
    page.keyboard.press("Enter")
    page.wait_for_url(server + "/scenarios/")
    tab_to(page, "", text="New scenario")
    page.keyboard.press("Enter")
    page.wait_for_url(server + "/scenarios/new")
    tab_to(page, "name")
    page.keyboard.press("Control+A")
    page.keyboard.type("Typed by keyboard")
    tab_to(page, "owned.server_price")
    page.keyboard.press("Control+A")
    page.keyboard.type("280000")
    tab_to(page, "", text="Advanced")                           # the fold opens with Enter
    page.keyboard.press("Enter")
    tab_to(page, "", text="Spot")
    page.keyboard.press("Space")
    tab_to(page, "spot.availability")
    page.keyboard.press("Control+A")
    page.keyboard.type("70")
    shot(page, "review-08-keyboard-form")
    tab_to(page, "save")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Scenario saved")
    page.context.close()
    assert problems == []


def tab_to(page, element_id: str, text: str = "", limit: int = 400) -> None:
    """Press Tab until the focused element has this id or name (or starts with this text)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => [document.activeElement.id, "
                                "(document.activeElement.innerText || '').trim(), "
                                "document.activeElement.name || '']")
        if (element_id and element_id in (focused[0], focused[2])) or \
                (text and not element_id and focused[1].startswith(text)):
            return
    raise AssertionError(f"Tab never reached {element_id or text!r}")
