"""The upload preview with a GPU busy-time file, in Chromium: allocated bars and the busy line."""
from __future__ import annotations

import pytest

from tests.support.chromium import assert_charts_rendered, login, new_page, shot
from tests.support.paths import SAMPLES

pytestmark = pytest.mark.browser


def test_preview_draws_busy_time_over_allocated(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.click("text=New scenario >> nth=0")
    page.fill("[name=name]", "Busy time")
    page.click("#save")
    page.wait_for_selector("text=Scenario saved")
    page.click("text=Upload usage >> nth=0")
    page.set_input_files("#usage", str(SAMPLES / "usage_busy_hourly.csv"))
    page.set_input_files("#busy", str(SAMPLES / "dcgm_busy_sample.csv"))
    page.click("#preview")
    page.wait_for_selector("#attach")
    assert_charts_rendered(page, ["chart-usage"])
    assert page.locator("#chart-usage g.trace").count() == 3        # steady, interruptible, busy
    assert "busy" in page.locator("#chart-usage .legend").text_content()
    assert "2026-03-02 10:00" in page.inner_text("#starved")
    assert page.locator("#busy-teams tr").count() == 3
    shot(page, "03b-usage-busy-preview")
    assert problems == []
