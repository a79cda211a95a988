"""The re-plan's steps in Chromium, in Korean (issue 43), walked by both browser tests of plan
against actual: from the Plan vs actual page of revision 1, re-plan from the actuals to 2027-06,
read the new revision once its plan is complete, and open its comparison with revision 1."""
from __future__ import annotations

from tests.support.chromium import assert_charts_rendered
from tests.support.korean import check


def replan_and_compare(page, found: dict, allowed, name: str) -> None:
    """Click "re-plan", wait for revision 2's complete plan, read it, then open the
    comparison (the caller reads it). ``name`` is the new revision's screenshot
    (tests/support/korean.py ``check``)."""
    page.click("#replan-button")
    page.wait_for_url("**/revisions/2")
    # the page reloads itself as each stage of the plan job arrives: wait for the complete
    # plan (its downloads), after which it stays, before reading it (under load a stage
    # arrived while a read ran: "Execution context was destroyed")
    page.wait_for_selector("#download-xlsx", state="attached", timeout=600_000)
    assert_charts_rendered(page, ["chart-cumulative"])       # the worker planned it
    said = page.inner_text("#replanned-from")
    assert "승인된 리비전 1의 2027-06까지 실적으로 재계획했습니다" in said, said
    check(page, name, found, allowed)
    page.click("#replanned-from #replanned-compare")
    page.wait_for_url("**/compare?a=1&b=2")
    assert_charts_rendered(page, ["chart-compare", "chart-waterfall"])
    assert "절감액을 바꾼 요인" in page.inner_text("main")
    assert "2027-07" in page.inner_text("main")                # the re-plan's first month
