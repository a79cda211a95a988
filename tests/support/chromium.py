"""Shared pieces of the Chromium tests (tests/system): a seeded instance, a server in a
subprocess, Chromium through Playwright, chart checks, axe-core and PDF page counts."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Iterator

from models.scenario import Scenario
from service.paths import ROOT
from tests.support.client import PASSWORD
from tests.support.live_server import live_server
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "test-artifacts"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"


def seed(instance: Path, scenario_path: Path = SAMPLE_SCENARIO) -> None:
    """Users (analyst ana, reviewer rita) and the sample scenario (or ``scenario_path``) with
    its plan (scenario 1)."""
    from service.app import create_app
    from service.web.users import create_user
    from service.web.db import write_session
    from tests.support.service_plans import plan_for
    from service.plans.revisions import create_scenario, store_usage
    app = create_app({"INSTANCE_PATH": str(instance),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    model = Scenario.model_validate(json.loads(scenario_path.read_text()))
    result = plan_for(model, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "ana", PASSWORD, "analyst")
            create_user(s, "rita", PASSWORD, "reviewer")
            usage = store_usage(s, ana, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            create_scenario(s, ana, model, usage, result=result)
    app.extensions["buyrent_engine"].dispose()


def serve(instance: Path):
    """The seeded instance behind waitress in a child process (tests.support.live_server)."""
    return live_server({"INSTANCE_PATH": str(instance),
                        "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})


def launch(playwright):
    if not Path(CHROMIUM).exists():
        raise AssertionError(f"Chromium is missing at {CHROMIUM}: run scripts/system-packages")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def new_page(browser, problems: list[str], **context):
    context = browser.new_context(viewport={"width": 1300, "height": 900}, **context)
    page = context.new_page()
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    # an action that submits a plan-computing form waits for its navigation: on a loaded 2-core
    # CI machine a save took over 30 s once, so the wait is generous rather than flaky (a
    # passing step never waits for it)
    page.set_default_timeout(120_000)
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
        # a trace's group is attached before its paths are drawn (and a Korean page's tick
        # relayout draws them again): wait for a path rather than count at once, which failed
        # under load with the group there and its path not yet
        page.wait_for_selector(f"#{chart_id} g.trace path", state="attached")
        assert page.locator(f"#{chart_id} g.trace path").count() > 0, chart_id


def pdf_pages(data: bytes) -> int:
    from pypdf import PdfReader
    return len(PdfReader(io.BytesIO(data)).pages)


def axe_violations(page) -> list[dict]:
    """Serious and critical axe-core violations of the page as it is now."""
    if not AXE.exists():
        raise AssertionError(f"axe-core is missing at {AXE}: run scripts/bootstrap (npm ci)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # evaluated through the DevTools protocol: the page's CSP (no inline script) still holds
        page.evaluate(AXE.read_text() + "\n;undefined")
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']}))"
                           ".violations.map(v => ({id: v.id, impact: v.impact, help: v.help, "
                           "nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))")
    return [v for v in result if v["impact"] in ("serious", "critical")]


def server_fixture(tmp_path) -> Iterator[str]:
    """Body of the ``server`` fixtures: a seeded instance behind its own server process."""
    instance = tmp_path / "instance"
    seed(instance)
    with serve(instance) as base:
        yield base


def browser_fixture() -> Iterator:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


def open_plan(page, url: str, timeout: float = 240_000) -> None:
    """Go to a plan page and wait until its plan is complete: a revision just saved shows its
    plan job (#plan-job) until the served app's worker has computed it, and the page reloads
    itself then (static/js/jobs.js)."""
    page.goto(url)
    page.wait_for_function("() => !document.getElementById('plan-job')", timeout=timeout,
                           polling=500)
    page.wait_for_load_state("load")
