"""A fleet of one (issue 36, item 1): the engine plans every scenario as a fleet of server
types; a scenario without ``server_types`` is a fleet whose one type is ``owned``
(models.scenario.Scenario.as_fleet). Its plan must say what the one-type engine said.

samples/reference_plans/ holds the plan documents of the five single-type samples as the
one-type engine computed them (commit 236d996, the last before the change; h100 with 200
Monte Carlo draws, the others without). Each sample is planned again and compared with its
reference value by value, floats to 1e-9 relative. What the comparison reads as the same, each
a difference of form, not of meaning (the README's "A fleet of one" lists them):

- a count by type of the one type (``{"owned": 8}``) is the count (``8``); a schedule row's
  ``buy`` / ``sell`` by type add to its ``buy_servers`` / ``sell_servers``, and a sale's
  ``sell_from`` names its type (``owned:2027-01``);
- breakdowns by type (``*_by_type``) and a purchase line's ``type`` are new.

(The ledger, which is not part of the document, changed form too: its server cohorts are the
engine's own, origin ``engine``, where a static plan listed a chain of generations and a
schedule its decision rows; tests/engine/test_ledger.py checks them.)

Nothing is left out: the explanation's sentences name no type for the ``owned`` type, so
they read word for word as before.
"""
from __future__ import annotations

import gzip
import json
import math

import pytest

from models.cohort_costs import cohort_items
from models.scenario import Scenario
from tests.support.engine_cases import context_of, csv_profile
from tests.support.paths import SAMPLES
from tests.support.plans import compute_plan

REFERENCE = SAMPLES / "reference_plans"
SINGLE_TYPE = ("scenario_h100.json", "scenario_l40s.json", "scenario_seoul.json",
               "scenario_growth.json", "scenario_robust.json")
DRAWS = {"scenario_h100.json": 200}
CURRENT_MONTH = "2026-12"
TYPE = "owned"
COUNTS = ("servers", "servers_bought", "servers_held")
PAIRS = (("buy_servers", "buy"), ("sell_servers", "sell"))
LEFT_OUT: tuple[str, ...] = ()
REL = 1e-9


def as_one_type(node):
    """A fleet-of-one document read as the one-type engine wrote it: counts by type summed,
    the fleet's own breakdowns dropped, a sale's purchase months without their type."""
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
        if key == "sell_from" and isinstance(value, dict):
            value = {k.removeprefix(f"{TYPE}:"): n for k, n in value.items()}
        out[key] = as_one_type(value)
    for total, by_type in PAIRS:
        if total in out and by_type in out:
            out[total] += sum(out.pop(by_type).values())
    return out


def differences(a, b, path: str = "") -> list[str]:
    """Where two JSON documents differ: floats to 1e-9 relative, everything else exactly."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only in {'the reference' if k in a else 'the fleet of one'}"
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


def reference(name: str) -> dict:
    return json.loads(gzip.decompress((REFERENCE / f"{name}.gz").read_bytes()))


@pytest.mark.parametrize("name", SINGLE_TYPE)
def test_every_single_type_sample_plans_as_the_one_type_engine_did(name):
    scenario = Scenario.model_validate(json.loads((SAMPLES / name).read_text()))
    assert not scenario.server_types
    scenario = scenario.with_changes(uncertainty={"draws": DRAWS.get(name, 0)})
    now = compute_plan(scenario, csv_profile(SAMPLES / "usage_hourly.csv"),
                       current_month=CURRENT_MONTH).document
    before = reference(name)
    # the document echoes the scenario as given: no server type added to what the user wrote
    assert now["scenario"] == before["scenario"]
    for key in LEFT_OUT:
        before.pop(key)
        now.pop(key)
    assert differences(before, as_one_type(json.loads(json.dumps(now)))) == []


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
    assert differences(single, as_one_type(lost)) == ["/rows[0]/x: only in the reference"]


def test_the_cohorts_of_one_type_are_counted_by_type_as_a_fleets():
    """The cost kernel reads servers online by type, the one type's id ``owned``: no second
    path for a scenario without ``server_types``."""
    scenario = Scenario.model_validate(json.loads((SAMPLES / "scenario_h100.json").read_text()))
    scenario = scenario.with_changes(uncertainty={"draws": 0})
    plan = compute_plan(scenario, csv_profile(SAMPLES / "usage_hourly.csv"))
    book = context_of(plan).book
    r = plan.strategies["proposed"]
    online = cohort_items(book, r.plan)["online_by_type"]
    assert set(online) == {TYPE}
    H = book.horizon
    assert online[TYPE][:H].tolist() == r.plan.servers_online(H).tolist()
    assert online[TYPE].max() == 8          # the sample proposes 8 servers
