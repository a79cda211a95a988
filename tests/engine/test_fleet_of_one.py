"""A fleet of one (issue 36, item 1): every single-type sample planned as given and as the same
scenario with ``server_types = [owned]`` gives the same plan document, value by value, wherever
the two say the same thing.

What the guard reads as the same, and what it leaves out (each a difference of form, not of
meaning; the README's "A fleet of one" lists them):

- ``scenario``: the echo of the input, which differs by construction;
- a count by type of the one type (``{"owned": 8}``) is the count (``8``); a schedule row's
  ``buy`` / ``sell`` by type add to its ``buy_servers`` / ``sell_servers``;
- breakdowns that only a fleet writes (``*_by_type``) and a purchase line's ``type``;
- ``explanation`` / ``explanation_messages``: the summary of a fleet names the type ("Buy 7
  owned servers ...") where a single type's gives the servers' utilization, a different
  sentence of the same plan.

The Monte Carlo is off (``draws = 0``): a fleet draws each type's price and throughput on its own
(models/assumptions.py ``PER_TYPE``), a single type its price and no throughput, so the two
samples of draws differ in what they draw, not only in their random numbers.
"""
from __future__ import annotations

import json
import math

import pytest

from models.cohort_costs import cohort_items
from models.scenario import Scenario
from tests.support.engine_cases import context_of, csv_profile
from tests.support.paths import SAMPLES
from tests.support.plans import compute_plan

SINGLE_TYPE = ("scenario_h100.json", "scenario_l40s.json", "scenario_seoul.json",
               "scenario_growth.json", "scenario_robust.json")
TYPE = "owned"
COUNTS = ("servers", "servers_bought", "servers_held")
PAIRS = (("buy_servers", "buy"), ("sell_servers", "sell"))
LEFT_OUT = ("scenario", "explanation", "explanation_messages")
REL = 1e-9


def fleet_of_one(s: Scenario) -> Scenario:
    """The same scenario given as a fleet whose one type is the owned servers."""
    data = s.model_dump(mode="json")
    data["server_types"] = [{"id": TYPE}]
    proposed = data["proposed"]
    if proposed.get("servers") is not None:
        proposed["servers_by_type"] = {TYPE: proposed["servers"]}
        proposed["servers"] = None
    return Scenario.model_validate(data)


def as_one_type(node):
    """A fleet-of-one document read as a single type's: counts by type summed, the fleet's own
    breakdowns dropped."""
    if isinstance(node, list):
        return [as_one_type(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key.endswith("_by_type") or (key == "type" and value == TYPE):
            continue
        if key in COUNTS and isinstance(value, dict):
            assert set(value) == {TYPE}, (key, value)
            value = value[TYPE]
        out[key] = as_one_type(value)
    for total, by_type in PAIRS:
        if total in out and by_type in out:
            out[total] += sum(out.pop(by_type).values())
    return out


def differences(a, b, path: str = "") -> list[str]:
    """Where two JSON documents differ: floats to 1e-9 relative, everything else exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only in {'the single type' if k in a else 'the fleet of one'}"
               for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                math.isclose(a, b, rel_tol=REL, abs_tol=1e-9):
            return []
    elif a == b and type(a) is type(b):
        return []
    return [f"{path}: {a!r} against {b!r}"]


@pytest.mark.parametrize("name", SINGLE_TYPE)
def test_a_sample_and_its_fleet_of_one_plan_the_same(name):
    scenario = Scenario.model_validate(json.loads((SAMPLES / name).read_text()))
    assert not scenario.server_types
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    profile = csv_profile(SAMPLES / "usage_hourly.csv")
    single = compute_plan(scenario, profile).document
    fleet = compute_plan(fleet_of_one(scenario), profile).document
    assert fleet["scenario"]["server_types"][0]["id"] == TYPE
    for key in LEFT_OUT:
        single.pop(key, None)
        fleet.pop(key, None)
    assert differences(single, as_one_type(fleet)) == []


def test_the_guard_sees_a_difference():
    """The comparison itself: a changed float, a count by type and a lost key are each seen."""
    single = {"a": 1.0, "servers": 3, "rows": [{"buy_servers": 2, "x": 1}]}
    same = {"a": 1.0 + 1e-12, "servers": {TYPE: 3},
            "rows": [{"buy_servers": 0, "buy": {TYPE: 2}, "x": 1, "type": TYPE}],
            "online_by_type": {TYPE: [1.0]}}
    assert differences(single, as_one_type(same)) == []
    assert differences(single, as_one_type({**same, "a": 1.0001})) == ["/a: 1.0 against 1.0001"]
    assert differences(single, as_one_type({**same, "servers": {TYPE: 4}})) == \
        ["/servers: 3 against 4"]
    lost = {**same, "rows": [{"buy_servers": 2}]}
    assert differences(single, as_one_type(lost)) == ["/rows[0]/x: only in the single type"]


def test_the_cohorts_of_one_type_are_counted_by_type_as_a_fleets():
    """The cost kernel reads servers online by type for one type as for a fleet (the one type's
    id is None): no second path for a scenario without ``server_types``."""
    scenario = Scenario.model_validate(json.loads((SAMPLES / "scenario_h100.json").read_text()))
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    plan = compute_plan(scenario, csv_profile(SAMPLES / "usage_hourly.csv"))
    book = context_of(plan).book
    r = plan.strategies["proposed"]
    online = cohort_items(book, r.plan)["online_by_type"]
    assert set(online) == {None}
    H = book.horizon
    assert online[None][:H].tolist() == r.plan.servers_online(H).tolist()
    assert online[None].max() == 8          # the sample proposes 8 servers
