"""The robust plan's risk weight on the scenario form (issue 27): a slider beside its number
input moves the number (what is posted and what the live preview reads), and typing a number
moves the slider; in a real browser."""
from __future__ import annotations

from tests.support.chromium import login, new_page


def test_the_risk_slider_and_its_number_move_together(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.goto(f"{server}/scenarios/new")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    number = "[id='staging.risk.cvar_weight']"
    slider = "[id='staging.risk.cvar_weight-slider']"
    assert page.input_value(number) == "0" and page.input_value(slider) == "0"
    page.fill(slider, "35")                       # dragging: the number follows
    assert page.input_value(number) == "35"
    # a change seen: the form's state follows its input handler, which a busy machine may
    # run after fill() returns, so the test waits for it rather than reading it at once
    page.wait_for_selector("#scenario-form[data-state='editing']", timeout=60_000)
    page.fill(number, "80")                       # typing: the slider follows
    page.dispatch_event(number, "input")
    page.wait_for_function(f"() => document.querySelector(\"{slider}\").value === '80'",
                           timeout=60_000)
    assert page.input_value(slider) == "80"
    assert problems == []
