"""The preset choosers in Chromium (issue 24): a value is typed, the Korea 2025 context and the
AWS Seoul p5 price preset are applied in the page (in one order, then in the other), the typed
value stays, the changes are listed, a preset that names a typed value asks first (cancel keeps
it, replace takes the preset's), values are rounded, and the saved revision holds it all with
both presets recorded. In Korean the page meets no English word outside the allow-list.
Screenshots: test-artifacts/presets-*.png.
"""
from __future__ import annotations

import pytest

from service.web.db import write_session
from service.web.tables import Revision
from tests.support.chromium import ARTIFACTS, login, new_page, shot
from tests.support.korean import SOURCES, english_words, korean_page

pytestmark = pytest.mark.browser
KOREA = "context/kr-2025"
SEOUL = "aws/p5.48xlarge/ap-northeast-2"
# Proper names the presets cite as they are: the catalog's repository, file, region and zone
# (skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv, ap-northeast-2, apne2-az1) and the
# Korea context's sources (IANS, AWS Korea LLC, their web addresses).
CATALOG = {"skypilot", "org", "catalog", "catalogs", "v8", "aws", "vms", "ap", "northeast",
           "apne2", "az1", "IANS", "Korea", "LLC", "amazon", "com", "tax", "help", "apac",
           "vat", "rates", "south", "korea1", "donga", "econotelling"}


def value(page, name: str) -> str:
    return page.input_value(f"[id='{name}']")


def choose(page, kind: str, preset_id: str, summary: str) -> None:
    """Choose a preset and wait until the page lists what it changed."""
    page.select_option(f"#preset-{kind}", preset_id)
    page.wait_for_function("([id, text]) => (document.getElementById(id) || {}).textContent"
                           "?.includes(text)", arg=[f"preset-changed-{'gpu' if kind == 'price' else kind}",
                                                    summary])


def changes(page, kind: str) -> list[str]:
    return page.locator(f"#preset-changes-{kind} li").all_inner_texts()


def open_form(page, base: str) -> None:
    page.goto(f"{base}/scenarios/new")
    page.wait_for_selector("#preset-form[data-ready=true]", state="attached")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")


def ana_on_a_new_form(browser, base: str):
    """ana logged in on the new-scenario form, every section open; the page's console problems
    are collected in the list returned with it."""
    problems: list[str] = []
    page = new_page(browser, problems)
    page.set_default_timeout(30_000)
    login(page, base, "ana")
    open_form(page, base)
    return page, problems


def top_shot(page, name: str) -> None:
    """The first screen (the choosers, the changes, a dialog): the whole form, every section
    open, is some 13,000 px tall."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def saved_revision(app) -> dict:
    with app.app_context():
        with write_session() as s:
            revision = s.query(Revision).order_by(Revision.id.desc()).first()
            return {"assumptions": revision.assumptions_dict,
                    "presets": [p["id"] for p in revision.presets]}


def save(page, name: str) -> None:
    page.fill("[id=name]", name)
    page.click("#save")
    page.wait_for_selector("text=Scenario saved")


def test_context_then_price_keeps_typed_values_and_asks_before_replacing(instance_server,
                                                                         browser):
    base, app = instance_server
    page, problems = ana_on_a_new_form(browser, base)
    page.fill("[id='owned.pue']", "1.25")                     # typed: named by no preset
    choose(page, "context", KOREA, "Changed: 13 values")
    listed = changes(page, "context")
    assert "Finance: Tax rate: 0 % \u2192 20.9 %" in listed
    assert "Owned servers: Colocation price: 184.06 USD \u2192 261,763 KRW" in listed
    assert "Cloud provider terms: Currency of cloud prices: (empty) \u2192 USD" in listed
    assert value(page, "owned.pue") == "1.25"
    assert value(page, "owned.server_price") == "426,648,000"     # 300,000 x 1,422.16
    assert value(page, "owned.space_price_per_kw_month") == "261,763"
    assert value(page, "finance.tax_rate") == "20.9"
    assert "261,762.7696" not in page.content()
    assert page.inner_text("[id='unit-owned.server_price']") == "KRW per server"
    tax_note = page.inner_text("[id='field-finance.tax_rate'] p.preset")
    assert "Corporate Tax Act" in tax_note and "as of 2025-12-31" in tax_note
    assert "1,422.16 KRW per USD" in page.inner_text("#preset-notes")

    choose(page, "price", SEOUL, "Changed: 2 values")
    assert changes(page, "gpu") == [
        "On demand: On-demand price: 6.88 USD \u2192 9.4944 USD",
        "Spot: Spot availability: 80 % \u2192 0 %"]
    assert value(page, "on_demand.price_per_gpu_hour") == "9.4944"
    assert value(page, "owned.pue") == "1.25" and value(page, "finance.tax_rate") == "20.9"
    # the source beside the price is the preset's, never the default's us-east-1 $55.04/h
    # (issue 39, item 7): the schema's source is hidden where a preset filled the value
    price = page.locator("[id='field-on_demand.price_per_gpu_hour']")
    assert "55.04" in price.locator(".field-source").inner_text()    # still in the page
    assert not price.locator(".field-source").is_visible()
    assert price.locator("p.preset").is_visible()
    assert "55.04" not in price.inner_text()            # what a reader sees
    top_shot(page, "presets-01-context-then-price")

    # a value the price preset names, typed: applying it again asks first
    page.fill("[id='on_demand.price_per_gpu_hour']", "9.1")
    page.click("#apply-price")
    page.wait_for_selector("#preset-confirm[open]")
    assert page.locator("#preset-confirm-list li").all_inner_texts() == [
        "On demand: On-demand price: 9.1 USD \u2192 9.4944 USD"]
    top_shot(page, "presets-02-confirm")
    page.click("#preset-confirm-cancel")
    page.wait_for_selector("#preset-form[data-state=cancelled]", state="attached")
    assert value(page, "on_demand.price_per_gpu_hour") == "9.1"      # dismissed: kept
    page.click("#apply-price")
    page.wait_for_selector("#preset-confirm[open]")
    page.click("#preset-confirm-replace")
    page.wait_for_selector("#preset-form[data-state=applied]", state="attached")
    assert value(page, "on_demand.price_per_gpu_hour") == "9.4944"   # accepted: replaced
    # the context names no cloud price: applying it again asks nothing, changes nothing
    page.click("#apply-context")
    page.wait_for_function("() => document.getElementById('preset-changed-context')"
                           ".textContent.includes('Changed: 0 values')")
    assert not page.is_visible("#preset-confirm")

    save(page, "Seoul, context then price")
    saved = saved_revision(app)
    s = saved["assumptions"]
    assert saved["presets"] == [KOREA, SEOUL]
    assert s["owned"]["pue"] == 1.25 and s["owned"]["server_price"] == 426_648_000
    assert s["owned"]["space_price_per_kw_month"] == 261_763
    assert s["on_demand"]["price_per_gpu_hour"] == 9.4944 and s["spot"]["availability"] == 0
    assert (s["finance"]["currency"], s["cloud_terms"]["currency"]) == ("KRW", "USD")
    assert s["finance"]["tax_rate"] == 0.209 and s["fx"]["rate"] == 1422.16
    shot(page, "presets-03-saved")
    assert problems == []


def test_price_then_context_gives_the_same_scenario(instance_server, browser):
    base, app = instance_server
    page, problems = ana_on_a_new_form(browser, base)
    page.fill("[id='finance.horizon_months']", "48")          # typed: named by no preset
    choose(page, "price", SEOUL, "Changed: 3 values")
    choose(page, "context", KOREA, "Changed: 12 values")
    assert value(page, "finance.horizon_months") == "48"
    assert value(page, "on_demand.price_per_gpu_hour") == "9.4944"
    assert value(page, "owned.server_price") == "426,648,000"
    # the context comes first in the list of changes, whatever the order they were applied in
    assert page.locator("#preset-summary > div").evaluate_all(
        "parts => parts.map(p => p.dataset.kind)") == ["context", "gpu"]
    top_shot(page, "presets-04-price-then-context")
    save(page, "Seoul, price then context")
    saved = saved_revision(app)
    s = saved["assumptions"]
    assert saved["presets"] == [SEOUL, KOREA]
    assert s["finance"]["horizon_months"] == 48
    assert s["on_demand"]["price_per_gpu_hour"] == 9.4944 and s["spot"]["availability"] == 0
    assert s["owned"]["server_price"] == 426_648_000
    assert s["owned"]["space_price_per_kw_month"] == 261_763
    assert (s["finance"]["currency"], s["cloud_terms"]["currency"]) == ("KRW", "USD")
    assert problems == []


def test_the_choosers_in_korean_meet_no_english(instance_server, browser):
    base, _app = instance_server
    problems: list[str] = []
    page = korean_page(browser, problems)
    login(page, base, "ana")
    open_form(page, base)
    page.fill("[id='owned.pue']", "1.25")
    page.select_option("#preset-context", KOREA)
    page.wait_for_selector("#preset-changes-context li")
    page.select_option("#preset-price", SEOUL)
    page.wait_for_selector("#preset-changes-gpu li")
    page.fill("[id='on_demand.price_per_gpu_hour']", "9.1")
    page.click("#apply-price")
    page.wait_for_selector("#preset-confirm[open]")
    assert "9.1" in page.inner_text("#preset-confirm-list")
    top_shot(page, "presets-ko-confirm")
    words = english_words(page, frozenset(SOURCES | CATALOG))
    page.click("#preset-confirm-cancel")
    assert value(page, "owned.pue") == "1.25"
    top_shot(page, "presets-ko-form")
    assert words == [], words
    assert problems == []
