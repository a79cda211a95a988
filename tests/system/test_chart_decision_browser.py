"""Charts and cards that show the decision (issue 39, item 4), drawn in Chromium in English and
in Korean: the recommended card is the first card element and the cards sit in an even grid;
the purchases panel of the monthly chart takes a readable share of its figure and labels the
largest purchase; no axis title touches its tick labels (the screening chart, the monthly
chart's two panels, the waterfall; bounding boxes of the rendered SVG); the robust fan chart
cuts its axis above capacity and labels the cut peak. Screenshots (both languages):
test-artifacts/decision-*.png."""
from __future__ import annotations

import json

import pytest

from models.scenario import Scenario
from service.paths import SAMPLES
from tests.support.chromium import ARTIFACTS, login, new_page, open_plan, seed, serve
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

pytestmark = pytest.mark.browser
LANGS = {"en": {}, "ko": {"locale": "ko-KR",
                          "extra_http_headers": {"Accept-Language": "ko-KR,ko;q=0.9"}}}
PLAN = "/scenarios/1/revisions/1"
ROBUST = "/scenarios/2/revisions/1"
SEOUL = 3          # the Seoul sample in won: ticks of 억 and 만, the widest labels

# Each axis title and the tick labels of its axis as page rectangles [left, top, right, bottom]
# (an empty title has no area and is left out).
TITLES_AND_TICKS = """el => {
  const boxes = s => [...el.querySelectorAll(s)].map(e => {
    const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom];
  }).filter(b => b[2] - b[0] > 0.5 && b[3] - b[1] > 0.5);
  const out = {};
  for (const axis of ['x', 'y', 'y2']) {
    out[axis] = {title: boxes('.g-' + axis + 'title'), ticks: boxes('g.' + axis + 'tick text')};
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The h100 sample (scenario 1, its plan seeded; revision 2 with dearer servers, planned
    when first shown, for the compare page's waterfall), the robust sample on the hourly
    usage (scenario 2, its fan chart cut above capacity) and the Seoul sample in won
    (scenario 3, with a revision 2 of dearer servers as well)."""
    from service.app import create_app
    from service.plans.revisions import add_revision, create_scenario
    from service.web.db import write_session
    from service.web.tables import ScenarioRecord, UsageFile, User
    from tests.support.service_plans import plan_for
    instance = tmp_path_factory.mktemp("decision") / "instance"
    seed(instance)
    app = create_app({"INSTANCE_PATH": str(instance),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    model = Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))
    robust = Scenario.model_validate(json.loads((SAMPLES / "scenario_robust.json").read_text()))
    result = plan_for(robust, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
    seoul = Scenario.model_validate(json.loads((SAMPLES / "scenario_seoul.json").read_text()))
    seoul_result = plan_for(seoul, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
    with app.app_context():
        with write_session() as s:
            scenario = s.get(ScenarioRecord, 1)
            ana = s.query(User).filter_by(username="ana").one()
            add_revision(s, scenario, ana, model.with_changes(owned={"server_price": 320_000}),
                         scenario.latest.usage_file, note="dearer servers")
            usage = s.query(UsageFile).one()
            create_scenario(s, ana, robust, usage, result=result)
            won = create_scenario(s, ana, seoul, usage, result=seoul_result).scenario
            add_revision(s, won, ana, seoul.with_changes(
                owned={"server_price": seoul.owned.server_price * 1.25}), usage,
                note="dearer servers")
    app.extensions["buyrent_engine"].dispose()
    with serve(instance) as base:
        yield base


MIN_GAP = 4.0      # px between an axis title and the nearest of its tick labels: not touching


def gap(a: list[float], b: list[float]) -> float:
    """px between two rectangles (negative: they overlap by that much both ways)."""
    dx = max(a[0] - b[2], b[0] - a[2])
    dy = max(a[1] - b[3], b[1] - a[3])
    return max(dx, dy)


def title_collisions(page, chart_id: str) -> list[str]:
    """Axis titles of one chart closer than MIN_GAP to a tick label of their axis."""
    found = []
    for axis, boxes in page.locator(f"#{chart_id}").evaluate(TITLES_AND_TICKS).items():
        for title in boxes["title"]:
            found += [f"{chart_id} {axis}: title {title} {gap(title, tick):.1f} px from tick "
                      f"{tick}" for tick in boxes["ticks"] if gap(title, tick) < MIN_GAP]
    return found


def has_titles(page, chart_id: str, axes: tuple[str, ...]) -> bool:
    boxes = page.locator(f"#{chart_id}").evaluate(TITLES_AND_TICKS)
    return all(boxes[a]["title"] and boxes[a]["ticks"] for a in axes)


def drawn(page, chart_id: str) -> None:
    page.wait_for_selector(f"#{chart_id} g.trace path", state="attached")
    # a Korean page relabels its ticks in 만 and 억 after the first draw (static/js/app.js)
    page.wait_for_function(f"() => document.getElementById('{chart_id}')._fullLayout && "
                           f"!document.getElementById('{chart_id}')._transitioning")


def figure_shot(page, chart_id: str, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(f"#figure-{chart_id}").screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_page(browser, server: str, lang: str, problems: list[str]):
    page = new_page(browser, problems, **LANGS[lang])
    login(page, server, "rita")
    return page


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_plan_page_puts_the_decision_first_and_its_axes_apart(server, browser, lang):
    problems: list[str] = []
    page = open_page(browser, server, lang, problems)
    page.goto(server + PLAN)
    assert page.locator("html").get_attribute("lang") == lang

    # the recommended card is the first card element; the cards in equal columns, a row's
    # cards the same height
    first = page.locator("#summary > .card").first
    assert "best" in first.get_attribute("class")
    cards = page.locator("#summary > .card").evaluate_all(
        "cs => cs.map(c => { const b = c.getBoundingClientRect(); "
        "return [b.left, b.top, b.width, b.height]; })")
    assert len(cards) == 6
    assert max(c[2] for c in cards) - min(c[2] for c in cards) < 1, cards
    rows: dict[float, list[float]] = {}
    for left, top, _width, height in cards:
        rows.setdefault(round(top), []).append(height)
    assert len(rows) >= 2 and all(max(h) - min(h) < 1 for h in rows.values()), cards
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#summary").screenshot(path=str(ARTIFACTS / f"decision-01-cards-{lang}.png"))

    # the purchases panel: at least a third of the figure's height, its largest purchase
    # labelled with its amount
    drawn(page, "chart-by-source")
    figure = page.locator("#chart-by-source .main-svg").first.bounding_box()
    upper = page.locator("#chart-by-source .nsewdrag[data-subplot='xy2']").bounding_box()
    assert upper["height"] >= figure["height"] / 3, (upper, figure)
    note = page.locator("#chart-by-source .annotation-text").text_content()
    assert "2027-01" in note and ("$2.3M" in note or "US$231만" in note), note
    for chart, axes in (("chart-by-source", ("x", "y", "y2")),
                        ("chart-screening", ("x", "y"))):
        drawn(page, chart)
        assert has_titles(page, chart, axes), chart
        assert title_collisions(page, chart) == []
    figure_shot(page, "chart-by-source", f"decision-02-monthly-{lang}")
    figure_shot(page, "chart-screening", f"decision-03-screening-{lang}")
    page.context.close()
    assert problems == []


@pytest.mark.parametrize("scenario", [1, SEOUL])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_waterfall_and_screening_axis_titles_stand_off_their_tick_labels(server, browser,
                                                                             lang, scenario):
    problems: list[str] = []
    page = open_page(browser, server, lang, problems)
    open_plan(page, server + f"/scenarios/{scenario}/revisions/2")
    for chart in ("chart-screening", "chart-load-duration", "chart-cumulative"):
        drawn(page, chart)
        assert has_titles(page, chart, ("x", "y")), chart
        assert title_collisions(page, chart) == []
    figure_shot(page, "chart-screening", f"decision-06-screening-{scenario}-{lang}")
    page.goto(server + f"/scenarios/{scenario}/compare?a=1&b=2")
    drawn(page, "chart-waterfall")
    assert has_titles(page, "chart-waterfall", ("y",))
    assert title_collisions(page, "chart-waterfall") == []
    figure_shot(page, "chart-waterfall", f"decision-04-waterfall-{scenario}-{lang}")
    page.context.close()
    assert problems == []


@pytest.mark.parametrize("lang, peak", [("en", "peak "), ("ko", "최고 ")])
def test_the_fan_chart_keeps_capacity_readable_under_a_high_demand_path(server, browser, lang,
                                                                        peak):
    problems: list[str] = []
    page = open_page(browser, server, lang, problems)
    page.goto(server + ROBUST)
    drawn(page, "chart-fan")
    fan = page.locator("#chart-fan")
    top = fan.evaluate("el => el._fullLayout.yaxis.range[1]")
    series = fan.evaluate("el => el.data.map(t => ({y: t.y, width: t.line.width}))")
    capacity, demand = series[0::2], series[1::2]
    most_capacity = max(max(s["y"]) for s in capacity)
    highest = max(max(s["y"]) for s in demand)
    # capacity reaches at least a third of the axis; the highest path leaves it at the top
    assert most_capacity >= top / 3 and highest > top, (most_capacity, top, highest)
    labels = fan.locator(".annotation-text").all_text_contents()
    assert f"{peak}{highest:,.0f}" in labels, labels
    # the label sits at the plot's top edge, inside the figure
    plot = fan.locator(".nsewdrag[data-subplot='xy']").bounding_box()
    arrow_tip = fan.locator(".annotation-arrow-g path").first.bounding_box()
    assert plot["y"] - 2 <= arrow_tip["y"] <= plot["y"] + 30, (arrow_tip, plot)
    # coinciding capacities: one line inside another, widest first
    widths = [s["width"] for s in capacity]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)
    assert title_collisions(page, "chart-fan") == []
    figure_shot(page, "chart-fan", f"decision-05-fan-{lang}")
    page.context.close()
    assert problems == []
