"""Names are drawn as typed, never as markup (issue 40, LOW): a scenario named with an
``<a href>`` became a live link in the reviewer's compare chart legend, because Plotly renders
a subset of HTML in every text it draws. In Chromium: the legend shows the name's characters
and the chart holds no link."""
from __future__ import annotations

import json

import pytest

from models.scenario import Scenario
from tests.support.chromium import login, new_page, seed, serve, shot
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

pytestmark = pytest.mark.browser
HOSTILE = '<a href="//x.invalid">go</a>&<b>b</b>'   # within a legend's length


@pytest.fixture
def server(tmp_path):
    """The seeded sample (scenario 1) and a second scenario of ana's with a hostile name."""
    from service.app import create_app
    from tests.support.service_plans import plan_for
    from service.plans.revisions import create_scenario
    from service.web.db import write_session
    from service.web.tables import ScenarioRecord, User
    instance = tmp_path / "instance"
    seed(instance)
    app = create_app({"INSTANCE_PATH": str(instance),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    model = Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))
    model = model.model_copy(update={"name": HOSTILE})
    result = plan_for(model, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
    with app.app_context():
        with write_session() as s:
            ana = s.query(User).filter_by(username="ana").one()
            usage = s.get(ScenarioRecord, 1).latest.usage_file
            create_scenario(s, ana, model, usage, result=result)
    app.extensions["buyrent_engine"].dispose()
    with serve(instance) as base:
        yield base


def test_a_hostile_scenario_name_is_text_in_the_compare_chart(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "ana")
    page.goto(server + "/scenarios/compare?a=2&b=1")
    page.wait_for_selector("#chart-compare .legend .traces", timeout=60_000)
    shot(page, "compare-hostile-name")
    chart = page.locator("#chart-compare")
    assert chart.locator("a").count() == 0, "a link drawn inside the chart"
    assert chart.locator("svg b, svg [style*='bold']").count() == 0
    legend = " ".join(chart.locator(".legend .legendtext").all_text_contents())
    assert HOSTILE + " r1" in legend, legend
    assert problems == []
