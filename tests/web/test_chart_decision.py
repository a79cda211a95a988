"""Charts and cards that show the decision (issue 39, item 4), on the figure dicts: the data the
server gives the charts (service/plans/chart_view.py, fan_chart.py) and the figures
static/js/app.js builds from it (run in Node, tests/support/js_figures.py). The drawn pages, in
both languages, are checked in Chromium (tests/system/test_chart_decision_browser.py)."""
from __future__ import annotations

import json
import re

import pytest

from service.i18n import using_locale
from service.plans.chart_view import PANELS, largest_purchase, plan_page_charts
from service.plans.fan_chart import axis_top, fan_chart, fan_notes, line_widths
from service.web.cards import recommended_first
from tests.support.js_figures import build_figure

KO = {"Accept-Language": "ko-KR,ko;q=0.9"}
MONTHS = ["2027-01", "2027-02", "2027-03"]
# three demand paths of the kind: the capacities 55 GPUs and on one another, the high
# path's demand peaking at 1,200
CAPACITY = [[55.0, 55.0, 55.0], [55.0, 55.0, 60.0], [55.0, 55.0, 55.0]]
DEMAND = [[100.0, 150.0, 200.0], [150.0, 300.0, 400.0], [200.0, 600.0, 1200.0]]
SCENARIOS = [{"name": n, "capacity": c, "demand_peak": d}
             for n, c, d in zip(("low", "mid", "high"), CAPACITY, DEMAND)]


def test_the_fan_axis_stops_above_capacity_where_the_lowest_demand_path_fits():
    # C = 60: 60 / 0.4 = 150; the lowest path peaks at 200, so top = max(150, 200) = 200;
    # 1,200 > 1.25 x 200 = 250: the axis is cut
    assert axis_top(CAPACITY, DEMAND) == 200.0
    # capacity 100 -> 250; the one path peaks at 300 < 1.25 x 300: no cut, all of it drawn
    assert axis_top([[100.0]], [[300.0]]) is None
    # capacity 100 -> 250 above the path's 120: top 250, and 120 < 312.5: no cut
    assert axis_top([[100.0]], [[120.0]]) is None
    # capacity 10 -> 25; the one path peaks at 400: top 400, not cut (the lowest path whole)
    assert axis_top([[10.0]], [[400.0]]) is None


@pytest.mark.parametrize("lang, peaks, same", [
    ("en", ["peak 400", "peak 1,200"], "same as mid, high"),
    ("ko", ["최고 400", "최고 1,200"], "mid, high 시나리오와 같음"),
])
def test_the_fan_labels_each_cut_peak_and_names_the_scenarios_of_a_shared_capacity(
        lang, peaks, same):
    with using_locale(lang):
        fan = fan_chart(MONTHS, SCENARIOS)
        notes = fan_notes(fan)
    assert fan["top"] == 200.0
    # the paths above 200 (mid at 400, high at 1,200), each at its peak's month
    assert [(p["index"], p["month"], p["value"]) for p in fan["peaks"]] == [
        (1, "2027-03", 400.0), (2, "2027-03", 1200.0)]
    assert [p["text"] for p in fan["peaks"]] == peaks
    # the numbers are the stored ones: nothing is clipped in the data
    assert [q["demand_peak"] for q in fan["scenarios"]] == DEMAND
    assert [q["capacity"] for q in fan["scenarios"]] == CAPACITY
    low, mid, high = fan["scenarios"]
    assert low["same"][0] == same                      # month 1: all three at 55
    # month 3: low and high at 55, each naming the other only
    assert "high" in low["same"][2] and "mid" not in low["same"][2]
    assert "low" in high["same"][2] and "mid" not in high["same"][2]
    assert mid["same"][2] == ""                        # month 3: mid alone at 60
    assert [q["width"] for q in fan["scenarios"]] == [8.0, 5.0, 2.0]
    assert len(notes) == 2 and "200" in notes[0] and "mid, high" in notes[0]


def test_capacity_line_widths_nest_from_the_first_scenario_down():
    assert line_widths(1) == [2.0]
    assert line_widths(2) == [8.0, 2.0]
    assert line_widths(4) == [8.0, 6.0, 4.0, 2.0]


def test_the_fan_figure_cuts_its_axis_and_labels_the_peaks_at_the_top_edge():
    with using_locale("en"):
        fan = fan_chart(MONTHS, SCENARIOS)
    figure = build_figure("fan", {"fan": fan, "text": {}})
    layout = figure["layout"]
    assert layout["yaxis"]["range"] == [0, 200.0] and layout["yaxis"]["autorange"] is False
    notes = layout["annotations"]
    assert [(a["x"], a["y"], a["text"]) for a in notes] == [
        ("2027-03", 200.0, "peak 400"), ("2027-03", 200.0, "peak 1,200")]
    assert notes[0]["ay"] != notes[1]["ay"]            # two labels at one month: apart
    capacity = [t for t in figure["data"] if t["name"].startswith("capacity")]
    assert [t["line"]["width"] for t in capacity] == [8.0, 5.0, 2.0]
    assert capacity[0]["customdata"][0] == " (same as mid, high)"
    assert "%{customdata}" in capacity[0]["hovertemplate"]
    # the demand drawn is the stored demand: the cut is the axis', not the data's
    assert [t["y"] for t in figure["data"] if t["name"].startswith("demand")] == DEMAND


def test_a_fan_that_fits_keeps_its_automatic_axis():
    fan = fan_chart(MONTHS, [{"name": "one", "capacity": [100.0] * 3,
                              "demand_peak": [110.0, 120.0, 130.0]}])
    layout = build_figure("fan", {"fan": fan, "text": {}})["layout"]
    assert fan["top"] is None and "range" not in layout["yaxis"]
    assert layout["annotations"] == []


def test_the_sample_purchases_panel_is_tall_and_labels_its_largest_purchase(sample_plan, app):
    _model, result = sample_plan
    doc, charts = result.document, result.charts
    with app.test_request_context():
        page = plan_page_charts({k: v for k, v in charts.items() if k != "schedules"}, doc)
    by_source = page["by_source"]
    capex = charts["by_source"]["lines"]["capex"][0] + \
        charts["by_source"]["lines"].get("commitment_upfront", [0.0])[0]
    assert by_source["largest"]["month"] == "2027-01"
    assert by_source["largest"]["value"] == pytest.approx(capex) and capex > 2e6
    assert by_source["largest"]["text"] == "$2.3M in 2027-01"
    figure = build_figure("by_source", page)
    layout = figure["layout"]
    upper, lower = layout["yaxis2"]["domain"], layout["yaxis"]["domain"]
    assert upper == PANELS["capital"] and lower == PANELS["running"]
    # the purchases panel: at least 40 % of the plot's height (it was 32 %), above the running
    # costs with a gap for its tick labels, in a figure taller than the page's 380 px charts
    assert upper[1] - upper[0] >= 0.4 and upper[0] > lower[1]
    assert layout["height"] >= 560
    assert layout["yaxis2"]["automargin"] is True
    [note] = layout["annotations"]
    assert (note["x"], note["yref"], note["text"]) == ("2027-01", "y2", "$2.3M in 2027-01")
    assert note["y"] == pytest.approx(capex)


def test_no_purchase_no_label():
    groups = {"capital": [{"key": "purchases", "y": [0.0, 0.0]}], "running": []}
    assert largest_purchase(groups, ["2027-01", "2027-02"], "USD") is None
    assert largest_purchase({"capital": [], "running": []}, ["2027-01"], "USD") is None


def _screening() -> dict:
    return {"screening": {"curves": {"owned": [1e4, 2e4]}, "hours_per_year": [0, 8760],
                          "crossings": []}, "text": {}}


def _waterfall() -> dict:
    return {"waterfall": {"labels": ["saving r1", "Owned servers", "saving r2"],
                          "values": [5e6, -1e6, 4e6],
                          "measures": ["absolute", "relative", "total"],
                          "range": [3e6, 6e6]}, "text": {}}


@pytest.mark.parametrize("builder, data", [("screening", _screening()),
                                           ("waterfall", _waterfall())])
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_axis_titles_stand_off_their_tick_labels_with_a_growing_margin(builder, data, lang):
    layout = build_figure(builder, data, lang)["layout"]
    for name in ("xaxis", "yaxis"):
        axis = layout[name]
        assert axis["automargin"] is True, (builder, name)
        assert axis["title"]["standoff"] >= 12, (builder, name)
    if builder == "waterfall":          # its own axis range kept beside the margins
        assert layout["yaxis"]["range"] == [3e6, 6e6]


def test_the_recommended_strategy_comes_first_and_the_rest_keep_their_order():
    strategies = {"on_demand": 1, "cloud_only": 2, "buy_for_peak": 3, "optimal": 4,
                  "staged": 5}
    assert [n for n, _ in recommended_first(strategies, "optimal")] == [
        "optimal", "on_demand", "cloud_only", "buy_for_peak", "staged"]
    assert [n for n, _ in recommended_first(strategies, "on_demand")] == list(strategies)
    assert [n for n, _ in recommended_first(strategies, None)] == list(strategies)


@pytest.mark.parametrize("headers", [{}, KO])
def test_the_plan_page_draws_the_recommended_card_first(login, sample_plan, headers):
    _model, result = sample_plan
    doc = result.document
    assert list(doc["strategies"]).index(doc["recommendation"]) == 3     # fourth in the data
    html = login("rita").get("/scenarios/1/revisions/1", headers=headers).get_data(as_text=True)
    cards = re.findall(r'<div class="card( best)?" data-strategy="(\w+)">', html)
    assert cards[0] == (" best", doc["recommendation"])
    assert [name for _, name in cards[1:]] == [n for n in doc["strategies"]
                                               if n != doc["recommendation"]]
    data = json.loads(re.search(r'id="plan-charts">(.*?)</script>', html, re.S).group(1))
    assert data["by_source"]["panels"] == PANELS
