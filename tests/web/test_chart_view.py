"""Charts that show the decision (issue 25), from the server's side: the cumulative lines
(identical strategies merged, a far dearer one hidden), the cost groups of the monthly chart,
the waterfall's axis and end-bar names, shortened scenario names and the preview's period.
The drawing itself is checked in Chromium (tests/system/test_chart_layout.py)."""
from __future__ import annotations

import io
import json
import re

import pytest

from models.lines import LINES
from service.clip import short_name
from service.plans.attribution import Step, Waterfall
from service.plans.chart_view import (CAPITAL, RUNNING, by_source_groups, cumulative_lines,
                                      plan_page_charts, same_curve)
from service.paths import SAMPLES
from tests.support.paths import SAMPLE_USAGE

LONG = "8x H100 SXM servers vs AWS p5.48xlarge (us-east-1)"   # the sample's name, 51 characters


@pytest.mark.parametrize("name, limit, expected", [
    ("Seoul plan", 40, "Seoul plan"),                                   # fits: unchanged
    ("Seoul  plan\n(KRW)", 40, "Seoul plan (KRW)"),                     # spaces folded
    # 40 characters: text[:40] ends "p5.48xlarge (", the last space before it is at 38
    (LONG, 40, "8x H100 SXM servers vs AWS p5.48xlarge…"),
    # the last space within 19 characters falls inside "(us-east-1 and": cut before "("
    ("Growth case (us-east-1 and eu-west-1)", 20, "Growth case…"),
    # a closed parenthesis is kept; the cut is at the space after "growth"
    ("Plan (KRW) with growth and more", 24, "Plan (KRW) with growth…"),
    # no space at all: cut inside the one word, 19 characters and the ellipsis
    ("Averyveryverylongwordwithoutspaces", 20, "Averyveryverylongwo…"),
    # everything inside a parenthesis: cutting before "(" would leave nothing, so the word cut
    ("(a long note about everything)", 16, "(a long note…"),
    # Korean names have spaces between words too
    ("서울 리전 H100 8대 구매 대 AWS 온디맨드 비교 (원화)", 24, "서울 리전 H100 8대 구매 대 AWS…"),
])
def test_short_name_cuts_on_a_word_boundary_and_never_inside_a_parenthesis(name, limit,
                                                                          expected):
    short = short_name(name, limit)
    assert short == expected and len(short) <= limit
    if short != " ".join(name.split()):
        assert short.endswith("…")
    opened = short.count("(") - short.count(")")
    assert opened == 0 or expected.startswith("(")


def _doc(pv: dict[str, float], recommended: str) -> dict:
    return {"recommendation": recommended,
            "strategies": {name: {"pv_cost": value} for name, value in pv.items()}}


def test_identical_curves_are_one_line_and_a_far_dearer_strategy_starts_hidden():
    # PV costs against on demand at 100: 110 is exactly 10 % dearer (shown), 110.01 more
    # (hidden); proposed and the recommendation are never hidden, however dear
    curves = {"on_demand": [10.0, 100.0], "cloud_only": [5.0, 110.0],
              "buy_for_peak": [50.0, 120.0], "optimal": [20.0, 60.0],
              "staged": [20.004, 60.0], "proposed": [60.0, 200.0]}
    doc = _doc({"on_demand": 100.0, "cloud_only": 110.0, "buy_for_peak": 110.01,
                "optimal": 60.0, "staged": 60.0, "proposed": 300.0}, "optimal")
    lines = cumulative_lines(curves, doc)
    assert [(line["names"], line["hidden"], line["recommended"]) for line in lines] == [
        (["on_demand"], False, False), (["cloud_only"], False, False),
        (["buy_for_peak"], True, False), (["optimal", "staged"], False, True),
        (["proposed"], False, False)]
    assert lines[3]["label"] == "Optimal mix = Staged plan"
    # half a cent apart is not the same figure any more
    assert same_curve([1.0, 2.0], [1.0, 2.004]) and not same_curve([1.0, 2.0], [1.0, 2.006])
    # the recommended strategy stays visible even when on demand is far cheaper
    doc = _doc({"on_demand": 100.0, "buy_for_peak": 200.0}, "buy_for_peak")
    assert not cumulative_lines({"on_demand": [1.0], "buy_for_peak": [2.0]}, doc)[1]["hidden"]


def test_every_engine_cost_line_is_in_exactly_one_group_and_groups_sum_their_lines():
    members = [n for groups in (CAPITAL, RUNNING) for lines in groups.values() for n in lines]
    assert sorted(members) == sorted(LINES)
    lines = {"capex": [100.0, 0.0], "commitment_upfront": [5.0, 0.0],
             "resale_credit": [0.0, -40.0], "energy": [2.0, 3.0], "space": [1.0, 1.0],
             "loan_payment": [0.5, 0.5], "storage": [0.25, 0.25], "owned_network": [0.5, 0.0],
             "tax_shield": [-1.0, -1.0], "tax_on_resale": [0.0, 4.0], "new_line": [7.0, 7.0]}
    groups = by_source_groups(lines)
    capital = {g["key"]: g["y"] for g in groups["capital"]}
    running = {g["key"]: g["y"] for g in groups["running"]}
    assert capital == {"purchases": [105.0, 0.0], "resale": [0.0, -40.0]}   # 100 + 5
    assert running == {"owned": [3.5, 4.5],          # 2 + 1 + 0.5, 3 + 1 + 0.5
                       "data": [0.75, 0.25],         # 0.25 + 0.5, 0.25 + 0
                       "tax": [-1.0, 3.0],           # -1 + 0, -1 + 4
                       "new_line": [7.0, 7.0]}       # a line no group knows: its own group
    assert [g["label"] for g in groups["running"]][:2] == ["owned servers",
                                                           "data (storage, egress)"]


def test_the_sample_plan_page_merges_optimal_and_staged_and_hides_buy_for_peak(
        sample_plan, app):
    _model, result = sample_plan
    doc, charts = result.document, result.charts
    with app.test_request_context():
        page = plan_page_charts({k: v for k, v in charts.items() if k != "schedules"}, doc)
    lines = {line["label"]: line for line in page["cumulative_lines"]}
    assert set(lines) == {"All on demand", "Cloud only (best mix)", "Buy for peak",
                          "Optimal mix = Staged plan", "Proposed"}
    # buy_for_peak: PV 24.4 M against 15.8 M all on demand, 54 % dearer
    assert lines["Buy for peak"]["hidden"] and not lines["Proposed"]["hidden"]
    assert lines["Optimal mix = Staged plan"]["recommended"]
    groups = page["by_source"]["groups"]
    assert [g["key"] for g in groups["capital"]] == ["purchases", "resale"]
    # the purchase of month 1 is in the upper panel, not stacked on the running costs
    assert groups["capital"][0]["y"][0] == charts["by_source"]["lines"]["capex"][0] > 2e6
    assert max(sum(g["y"][m] for g in groups["running"]) for m in range(60)) < 3e5


def test_the_cumulative_caption_says_which_lines_are_one_and_which_start_hidden(login):
    html = login("rita").get("/scenarios/1/revisions/1").get_data(as_text=True)
    caption = re.search(r'id="chart-cumulative-summary">(.*?)</figcaption>', html, re.S).group(1)
    assert "Optimal mix and Staged plan have the same monthly figures" in caption
    assert "Buy for peak cost more than 10% above all on demand and start hidden" in caption
    data = json.loads(re.search(r'id="plan-charts">(.*?)</script>', html, re.S).group(1))
    assert [line["hidden"] for line in data["cumulative_lines"]].count(True) == 1
    table = re.search(r'id="figure-chart-by-source".*?</figure>', html, re.S).group(0)
    assert '<th scope="col">Group</th>' in table
    assert "<td>purchases and upfront payments</td><td>Capex (purchase + install)</td>" in table


def _waterfall(start_cents: int, *savings_cents: int) -> Waterfall:
    steps, before = [], start_cents
    for saving in savings_cents:
        steps.append(Step(["owned.server_price"], saving, saving - before, "optimal"))
        before = saving
    return Waterfall(start_cents, "optimal", steps)


@pytest.mark.parametrize("start, savings, expected", [
    # 10,000,000,000 -> 9,683,000,000 (a 317 M change): spread 317 M, pad = max(79.25 M,
    # 1 % of 10 B = 100 M, 96.83 M) = 100 M -> the axis from 9,583 M to 10,100 M
    (10_000_000_000_00, [9_683_000_000_00], [9_583_000_000.0, 10_100_000_000.0]),
    # 100 -> 90 -> 95: spread 10, pad = max(2.5, 1, 0.9) = 2.5 -> 87.5 to 102.5
    (100_00, [90_00, 95_00], [87.5, 102.5]),
    # 5 -> 1: pad = max(1, 0.05, 0.01) = 1 -> 0 to 6: zero is that close, so the axis from 0
    (5_00, [1_00], None),
    # levels on both sides of zero: the axis holds zero anyway
    (10_00, [-5_00], None),
    # no step: 1 % around the one level, 1,000 -> 990 to 1,010
    (1_000_00, [], [990.0, 1010.0]),
])
def test_the_waterfall_axis_starts_where_its_bars_are_readable(start, savings, expected):
    waterfall = _waterfall(start, *savings)
    assert waterfall.axis_range() == (pytest.approx(expected) if expected else None)


def test_the_waterfall_names_its_end_bars_after_the_plans(app):
    with app.test_request_context():
        chart = _waterfall(100_00, 90_00).chart("r3", "r4")
    assert chart["labels"] == ["saving r3", "Owned servers: Server price", "saving r4"]
    assert chart["values"] == [100.0, -10.0, 90.0] and chart["range"] == [87.5, 102.5]


def test_compare_page_shortens_scenario_names_and_keeps_the_whole_name_on_hover(login):
    html = login("rita").get("/scenarios/compare?a=1&b=2").get_data(as_text=True)
    short = "8x H100 SXM servers vs AWS p5.48xlarge… r1"
    assert f'<th scope="col" title="{LONG} r1">{short}</th>' in html
    assert f'title="Rex&#39;s own r1">Rex&#39;s own r1</th>' in html
    data = json.loads(re.search(r'id="compare-charts">(.*?)</script>', html, re.S).group(1))
    assert data["waterfall"]["labels"][0] == f"saving {short}"
    assert data["waterfall"]["labels"][-1] == "saving Rex's own r1"
    assert "saving A" not in html and "saving B" not in html


@pytest.mark.parametrize("sample, per, caption", [
    (SAMPLE_USAGE, "day", "GPU-hours per day (the file's rows per hour summed by day)"),
    (SAMPLES / "usage_monthly.csv", "month", "GPU-hours per month, steady and interruptible"),
])
def test_the_preview_caption_names_the_period_of_its_chart(login, sample, per, caption):
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(sample.read_bytes()), sample.name)},
                                 content_type="multipart/form-data")
    html = response.get_data(as_text=True)
    chart = json.loads(re.search(r'id="data-usage">(.*?)</script>', html, re.S).group(1))
    assert chart["per"] == per and chart["text"]["title"] == f"GPU-hours per {per}"
    summary = re.search(r'id="usage-summary">(.*?)</figcaption>', html, re.S).group(1)
    assert summary.startswith(caption), summary
