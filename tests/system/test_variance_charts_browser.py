"""The Plan vs actual page's charts drawn in Chromium, in English and in Korean (issue 43,
variance-sheet item 2): the cumulative actual against plan and forecast, and the year to
date's waterfall from the plan through each part of the variance to the actual. Plotly's own
sums are read from the drawn chart: the bar it computes last (plan plus every part) is the
plan plus the table's total variance to the cent, within a cent of the actual, and one bar is
drawn per label. Screenshots: test-artifacts/plan-vs-actual-charts-{en,ko}.png."""
from __future__ import annotations

import pytest

from tests.support.chromium import (assert_charts_rendered, browser_fixture, login, new_page,
                                    seed, serve, shot)
from tests.support.actuals_flow import BILLS, SAMPLE_WORDS
from tests.support.korean import english_words

pytestmark = pytest.mark.browser
PAGE = "/scenarios/1/revisions/1/actual"
LANGS = {"en": {}, "ko": {"locale": "ko-KR",
                          "extra_http_headers": {"Accept-Language": "ko-KR,ko;q=0.9"}}}
WORDS = {"en": ("Plan", "Actual", "Volume (more or less work)", "Cumulative actual"),
         "ko": ("계획", "실제", "물량(작업 증감)", "누적 실적")}

# What Plotly drew: the waterfall's labels, where each bar starts and ends (calcdata s0, s1: a
# "total" bar ends at Plotly's own running sum, whatever value it was given), its bar paths,
# and the legend of the cumulative chart.
DRAWN = """() => {
  const w = document.getElementById('chart-variance-waterfall');
  const c = document.getElementById('chart-actual-cumulative');
  return {labels: w._fullData[0].x, starts: w.calcdata[0].map(p => p.s0),
          ends: w.calcdata[0].map(p => p.s1),
          bars: w.querySelectorAll('g.trace g.point path').length,
          lines: c._fullData.map(t => t.name),
          legend: [...c.querySelectorAll('.legendtext')].map(e => e.textContent)};
}"""
TABLE = """() => {
  const cents = sel => [...document.querySelectorAll(sel)].map(
    td => Number(td.getAttribute('data-cents')));
  const rows = [...document.querySelectorAll('#variance-table tr.part')];
  return {parts: rows.map(r => { const c = r.querySelectorAll('td');
                                 return Number(c[c.length - 1].getAttribute('data-cents')); }),
          total: cents('#variance-table tr.total td').pop()};
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The h100 sample seeded, its revision 1 approved for the cloud-only strategy and the
    six sample bills stored against it (as the upload page stores them)."""
    from service.app import create_app
    from service.plans.actuals import baseline, read_upload_files, store_upload
    from service.web.db import write_session
    from service.web.tables import Review, Revision, User
    instance = tmp_path_factory.mktemp("plan-vs-actual") / "instance"
    seed(instance)
    app = create_app({"INSTANCE_PATH": str(instance),
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    with app.app_context():
        with write_session() as s:
            revision = s.get(Revision, 1)
            rita = s.query(User).filter_by(username="rita").one()
            s.add(Review(revision_id=revision.id, revision_hash=revision.content_hash,
                         reviewer_id=rita.id, decision="approve", comment="Checked.",
                         strategy="cloud_only"))
        with write_session() as s:
            base = baseline(s.get(Revision, 1))
            files = [(p.name, p.read_bytes()) for p in BILLS]
            store_upload(s, s.query(User).filter_by(username="ana").one(), base, files,
                         read_upload_files(base, files))
    app.extensions["buyrent_engine"].dispose()
    with serve(instance) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def browser():
    yield from browser_fixture()


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_charts_render_and_the_waterfall_adds_up(server, browser, lang):
    problems: list[str] = []
    page = new_page(browser, problems, **LANGS[lang])
    login(page, server, "ana")
    page.goto(server + PAGE)
    assert_charts_rendered(page, ["chart-actual-cumulative", "chart-variance-waterfall"])
    drawn = page.evaluate(DRAWN)
    table = page.evaluate(TABLE)
    plan, actual, volume, cumulative = WORDS[lang]
    labels = drawn["labels"]
    assert labels[0] == plan and labels[-1] == actual and volume in labels
    assert drawn["bars"] == len(labels)                       # one bar drawn per label
    starts = [round(v * 100) for v in drawn["starts"]]
    ends = [round(v * 100) for v in drawn["ends"]]
    assert starts[0] == 0 and starts[-1] == 0              # the plan and the actual from zero
    # each part's bar starts where the one before it ended and is the table's year-to-date
    # cents of that part, in the table's order
    assert starts[1:-1] == ends[:-2]
    assert [e - s for s, e in zip(starts[1:-1], ends[1:-1])] == table["parts"]
    # Plotly's own running sum: the plan plus every part, the plan plus the total variance
    assert ends[-1] == ends[-2] == ends[0] + table["total"]
    assert cumulative in drawn["lines"] and len(drawn["legend"]) == 3
    if lang == "ko":        # the charts' titles, axes, legends and captions too
        assert english_words(page, frozenset(SAMPLE_WORDS)) == []
    shot(page, f"plan-vs-actual-charts-{lang}")
    assert problems == [], problems
