"""What changed the saving (issue 16): the waterfall's bars add up exactly to the change of
the recommended plan's saving, in the stated order, on real plans of the sample usage."""
from __future__ import annotations

import json
import re

import pytest

from models.scenario import Scenario
from service.plans.attribution import attribute, change_groups, saving_cents
from service.web.tables import UsageFile
from service.paths import SAMPLES
from tests.support.client import form_data
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

HOURLY = UsageFile(data=SAMPLE_USAGE.read_bytes(), filename="usage_hourly.csv",
                   sha256="hourly")
DAILY = UsageFile(data=(SAMPLES / "usage_daily.csv").read_bytes(), filename="usage_daily.csv",
                  sha256="daily")


def _base() -> dict:
    return Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text())).model_dump(
        mode="json")


def _changed(**sections) -> dict:
    data = _base()
    for section, changes in sections.items():
        if isinstance(changes, dict):
            data[section] = {**data[section], **changes}
        else:
            data[section] = changes
    return Scenario.model_validate(data).model_dump(mode="json")


CASES = {
    "one price": _changed(owned={"server_price": 250_000}),
    "several": _changed(owned={"server_price": 340_000, "electricity_price_per_kwh": 0.12},
                        spot={"discount": 0.5}, finance={"discount_rate_annual": 0.07},
                        profile={"growth_annual": 0.2}),
    "offers": _changed(commitments=[{"id": "1y", "term_months": 12, "discount": 0.3}],
                       proposed={"servers": 4, "committed_gpus": {}}),
    "uncertainty only": _changed(uncertainty={"draws": 500}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bars_sum_exactly_to_the_total_change(name):
    a, b = _base(), CASES[name]
    waterfall = attribute(a, HOURLY, b, HOURLY)
    start, _ = saving_cents(Scenario.model_validate(a), HOURLY)
    end, _ = saving_cents(Scenario.model_validate(b), HOURLY)
    assert waterfall.start_cents == start and waterfall.end_cents == end
    assert sum(step.delta_cents for step in waterfall.steps) == end - start
    assert all(isinstance(step.delta_cents, int) for step in waterfall.steps)


def test_the_order_is_the_form_order_and_each_change_is_one_bar():
    waterfall = attribute(_base(), HOURLY, CASES["several"], HOURLY)
    assert [s.paths for s in waterfall.steps] == [
        ["finance.discount_rate_annual"], ["owned.server_price"],
        ["owned.electricity_price_per_kwh"], ["spot.discount"], ["profile.growth_annual"]]
    assert waterfall.steps[1].label == "Owned servers: Server price"
    assert waterfall.steps[1].delta_cents < 0          # dearer servers: a smaller saving


def test_a_change_refused_on_its_own_is_merged_with_the_next():
    b = _changed(owned={"power_kw_max": 2.0, "power_kw_idle": 1.0})
    waterfall = attribute(_base(), HOURLY, b, HOURLY)
    assert [s.paths for s in waterfall.steps] == [["owned.power_kw_max",
                                                   "owned.power_kw_idle"]]
    assert waterfall.steps[0].label == "Owned servers: Maximum power + Owned servers: Idle power"


def test_a_new_usage_file_is_the_last_bar_and_the_sum_still_holds():
    b = CASES["one price"]
    waterfall = attribute(_base(), HOURLY, b, DAILY)
    assert waterfall.steps[-1].label == "usage file"
    end, _ = saving_cents(Scenario.model_validate(b), DAILY)
    assert waterfall.end_cents == end
    assert sum(s.delta_cents for s in waterfall.steps) == waterfall.total_cents


def test_the_name_and_uncertainty_ranges_are_listed_not_attributed():
    b = _changed(uncertainty={"draws": 500})
    b["name"] = "renamed"
    groups, skipped = change_groups(_base(), b)
    assert groups == [] and set(skipped) == {"name", "uncertainty.draws"}


def test_compare_page_shows_both_curves_and_the_waterfall(login, app):
    client = login("ana")
    data = form_data(_base())
    data.update({"owned.server_price": "250,000", "spot.discount": "50"})
    assert client.post("/scenarios/1/edit", data).status_code == 302
    html = client.get("/scenarios/1/compare?a=1&b=2").get_data(as_text=True)
    assert 'id="chart-compare"' in html and 'id="chart-waterfall"' in html
    table = re.search(r'id="waterfall".*?</table>', html, re.S).group(0)
    bars = [int(c) for c in re.findall(r'class="delta" data-cents="(-?\d+)"', table)]
    total = int(re.search(r'id="waterfall-total" data-cents="(-?\d+)"', table).group(1))
    assert len(bars) == 2 and sum(bars) == total
    assert "Server price" in table and "Spot discount" in table
    charts = json.loads(re.search(r'id="compare-charts">(.*?)</script>', html, re.S).group(1))
    assert len(charts["compare"]["series"]) == 4                 # two plans x (rec, on demand)
    assert charts["waterfall"]["measures"][-1] == "total"
    # both plans' staged schedules side by side, one row per decision month of either
    assert 'id="schedules-staged"' in html
    rows = re.search(r'id="schedules-staged".*?</table>', html, re.S).group(0)
    assert rows.count("<tr") >= 2 and "buy" in rows


def test_schedule_comparison_lines_up_both_plans_by_month():
    from service.plans.compare import schedule_comparison
    a = {"strategies": {"staged": {"schedule": [
        {"month": "2027-01", "buy_servers": 4, "sell_servers": 0, "commit": {}},
        {"month": "2027-04", "buy_servers": 1, "sell_servers": 0, "commit": {"1y": 8}}]}}}
    b = {"strategies": {"staged": {"schedule": [
        {"month": "2027-01", "buy_servers": 5, "sell_servers": 0, "commit": {}}]},
        "proposed": {"schedule": [{"month": "2027-07", "buy_servers": 0, "sell_servers": 2,
                                   "commit": {}}]}}}
    assert schedule_comparison([a, b]) == [
        ("staged", [("2027-01", "buy 4", "buy 5"), ("2027-04", "buy 1, commit 1y 8", "")]),
        ("proposed", [("2027-07", "", "sell 2")])]
    assert schedule_comparison([a, None]) == []


def test_two_scenarios_can_be_compared(login):
    html = login("rita").get("/scenarios/compare?a=1&b=2").get_data(as_text=True)
    assert "Rex&#39;s own r1" in html and 'id="waterfall"' in html
    assert "No assumption or usage change moves the saving." in html   # same assumptions
    assert login("ana").get("/scenarios/compare?a=1&b=2").status_code == 404  # not hers
    assert login("rita").get("/scenarios/compare?a=1").status_code == 400


def test_bars_of_stored_revisions_come_in_the_order_the_page_states(login):
    """Issue 23: revisions are stored with sorted keys, and the bars came in that order
    (cloud storage first) while the page said "in the order of the scenario form". Four
    changes across sections: the bars must follow the sections the page lists."""
    client = login("ana")
    data = form_data(_base())
    data.update({"cloud_data.storage_tb": "400", "spot.discount": "50",
                 "owned.server_price": "250,000", "finance.discount_rate_annual": "7"})
    assert client.post("/scenarios/1/edit", data).status_code == 302
    html = client.get("/scenarios/1/compare?a=1&b=2").get_data(as_text=True)
    method = re.search(r'<p class="muted" id="waterfall-method">(.*?)</p>', html, re.S).group(1)
    stated = re.search(r"order of the scenario's sections \((.*?)\) and of the fields",
                       " ".join(method.split())).group(1).split(", ")
    assert stated[:6] == ["Finance", "Owned servers", "On demand", "Cloud commitments",
                          "Spot", "Cloud storage and egress"]
    table = re.search(r'id="waterfall".*?</table>', html, re.S).group(0)
    bars = re.findall(r'<tr class="step"><td>\d+</td><td>([^<]*)</td>', table)
    sections = [stated.index(bar.split(": ")[0]) for bar in bars]
    assert len(bars) == 4 and sections == sorted(sections)
    assert [b.split(": ")[0] for b in bars] == ["Finance", "Owned servers", "Spot",
                                                 "Cloud storage and egress"]
