"""Uncertainty ranges by field path (issue 13): the mapping, its schema, and the flat keys that
scenarios saved before it still carry (database revisions, users' JSON files, old workbooks)."""
from __future__ import annotations

import json

import pytest
from numpy.testing import assert_array_equal
from pydantic import ValidationError

from models.assumption_sampling import sample
from models.assumption_values import low_high
from models.assumptions import ASSUMPTIONS
from models.document import plan_document
from tests.support.plans import compute_plan
from models.ranges import BY_PATH, RANGES, legacy_path, upgrade_flat_keys
from models.ranges import Uncertainty
from models.scenario import Scenario
from tests.support.engine_cases import csv_profile
from tests.support.paths import SAMPLES


# The default section as scenarios saved it before the mapping (a revision of the database)
FLAT_DEFAULTS = {
    "availability_high": 0.005, "availability_low": -0.04, "commitment_discount_high": 0.05,
    "commitment_discount_low": -0.1, "demand_growth_high": 0.3, "demand_growth_low": -0.2,
    "discount_rate_high": 0.05, "discount_rate_low": -0.04, "draws": 2000,
    "electricity_price_distribution": "lognormal", "electricity_price_high": 0.5,
    "electricity_price_low": -0.25, "failure_rate_distribution": "triangular",
    "failure_rate_high": 1.0, "failure_rate_low": -0.5, "fx_rate_distribution": "lognormal",
    "fx_rate_high": 0.1, "fx_rate_low": -0.1, "hardware_trend_high": 0.05,
    "hardware_trend_low": -0.2, "histogram_bins": 20, "on_demand_price_distribution":
    "triangular", "on_demand_price_high": 0.1, "on_demand_price_low": -0.42,
    "on_demand_trend_high": 0.05, "on_demand_trend_low": -0.2, "pue_high": 0.26,
    "pue_low": -0.2, "resale_value_distribution": "triangular", "resale_value_high": 0.3,
    "resale_value_low": -0.5, "seed": 1, "server_price_distribution": "triangular",
    "server_price_high": 0.06, "server_price_low": -0.1, "spot_discount_high": 0.1,
    "spot_discount_low": -0.05, "spot_interruptions_distribution": "lognormal",
    "spot_interruptions_high": 2.0, "spot_interruptions_low": -0.9, "trend_correlation": 0.6}

FLAT_CHANGED = {"draws": 300, "seed": 5, "server_price_low": -0.3, "server_price_high": 0.2,
                "server_price_distribution": "lognormal", "pue_high": 0.1,
                "commitment_discount_low": -0.2, "resale_value_distribution": "lognormal"}
MAPPED_CHANGED = {"draws": 300, "seed": 5, "ranges": {
    "owned.server_price": {"low": -0.3, "high": 0.2, "distribution": "lognormal"},
    "owned.pue": {"high": 0.1}, "commitments[*].discount": {"low": -0.2},
    "owned.resale_fraction_by_year": {"distribution": "lognormal"}}}


def test_ranges_are_keyed_by_the_path_they_move():
    u = Uncertainty()
    assert [path for path, _r in u.ranges.items()] == [spec.path for spec in RANGES]
    assert [a.path for a in ASSUMPTIONS] == [spec.path for spec in RANGES]
    assert u.ranges["owned.server_price"].low == -0.10
    assert u.ranges["owned.electricity_price_per_kwh"].shape == "lognormal"
    assert u.ranges["owned.pue"].shape == "triangular"   # absolute: no distribution field
    dumped = u.model_dump(mode="json")
    assert set(dumped) == {"draws", "seed", "histogram_bins", "trend_correlation", "ranges"}
    assert dumped["ranges"]["fx.rate"] == {"low": -0.1, "high": 0.1,
                                           "distribution": "lognormal"}
    assert dumped["ranges"]["commitments[*].discount"] == {"low": -0.1, "high": 0.05}


def test_every_range_path_names_a_scenario_field_or_says_what_moves():
    for spec in RANGES:
        section, _, name = spec.path.partition(".")
        model = Scenario.model_fields[section.split("[")[0]].annotation
        if section == "commitments[*]":   # points added to every offer's discount
            model = model.__args__[0]
        assert name in model.model_fields, spec.path
        assert spec.unit == "fraction of base" if spec.relative else \
            spec.unit.split(", ", 1)[1].startswith("added to base"), spec.key


def test_flat_keys_of_saved_scenarios_still_load():
    assert Uncertainty.model_validate(FLAT_DEFAULTS) == Uncertainty()
    flat, mapped = (Scenario.model_validate({"uncertainty": u})
                    for u in (FLAT_CHANGED, MAPPED_CHANGED))
    assert flat == mapped
    assert flat.uncertainty.ranges["owned.server_price"].shape == "lognormal"
    assert flat.uncertainty.ranges["owned.pue"].low == -0.20        # not given: default
    assert Scenario.model_validate_json(json.dumps({"uncertainty": FLAT_CHANGED})) == mapped
    # the new shape goes out, and reads back as itself
    dumped = flat.model_dump(mode="json")
    assert "server_price_low" not in dumped["uncertainty"]
    assert Scenario.model_validate(dumped) == flat


def test_a_flat_key_updates_the_mapping_it_is_merged_into():
    # Scenario.with_changes merges changed keys into a dump, which has the mapping already
    s = Scenario().with_changes(uncertainty={"server_price_low": -0.5, "draws": 0})
    assert s.uncertainty.ranges["owned.server_price"].low == -0.5
    assert s.uncertainty.ranges["owned.server_price"].high == 0.06
    assert s.uncertainty.draws == 0
    assert upgrade_flat_keys({"ranges": {"owned.pue": {"low": -0.1}}, "pue_high": 0.2}) == {
        "ranges": {"owned.pue": {"low": -0.1, "high": 0.2}}}


def test_flat_keys_are_checked_like_the_mapping():
    with pytest.raises(ValidationError, match=r"uncertainty\.ranges\.`owned\.pue`\.low\s+"
                                              r"Input should be less than or equal to 0"):
        Scenario.model_validate({"uncertainty": {"pue_low": 0.1}})
    with pytest.raises(ValidationError, match=r"uncertainty\.pue_distribution\s+Extra inputs"):
        Scenario.model_validate({"uncertainty": {"pue_distribution": "lognormal"}})
    with pytest.raises(ValidationError, match=r"unknown range path '7'"):
        Scenario.model_validate({"uncertainty": {"ranges": {7: {}}}})
    with pytest.raises(ValidationError, match=r"uncertainty\.server_price_median"):
        Scenario.model_validate({"uncertainty": {"server_price_median": 0.0}})


def test_legacy_paths_of_review_comments_map_to_the_new_ones():
    assert legacy_path("uncertainty.server_price_low") == \
        "uncertainty.ranges.owned.server_price.low"
    assert legacy_path("uncertainty.commitment_discount_high") == \
        "uncertainty.ranges.commitments[*].discount.high"
    for path in ("uncertainty.draws", "owned.pue", "uncertainty.pue_distribution"):
        assert legacy_path(path) == path


def test_json_schema_states_each_paths_bounds():
    schema = Scenario.model_json_schema()
    defs = schema["$defs"]
    ranges = defs[defs["Uncertainty"]["properties"]["ranges"]["$ref"].rsplit("/", 1)[1]]
    assert list(ranges["properties"]) == list(BY_PATH)
    assert ranges["additionalProperties"] is False
    server = defs[ranges["properties"]["owned.server_price"]["$ref"].rsplit("/", 1)[1]]
    assert server["properties"]["low"]["minimum"] == -0.99
    assert server["properties"]["low"]["maximum"] == 0
    assert server["properties"]["high"]["maximum"] == 10
    assert server["properties"]["low"]["unit"] == "fraction of base"
    assert server["properties"]["distribution"]["enum"] == ["triangular", "lognormal"]


@pytest.fixture(scope="module")
def hourly():
    return csv_profile(SAMPLES / "usage_hourly.csv")


def test_flat_and_mapped_ranges_give_the_same_plan_and_draws(hourly):
    data = json.loads((SAMPLES / "scenario_h100.json").read_text())
    flat = Scenario.model_validate({**data, "uncertainty": FLAT_CHANGED})
    mapped = Scenario.model_validate({**data, "uncertainty": MAPPED_CHANGED})
    for a, b in zip(sample(flat, 400, 3).values(), sample(mapped, 400, 3).values()):
        assert_array_equal(a, b)
    for a in ASSUMPTIONS:
        assert low_high(flat, a.key) == low_high(mapped, a.key)
    doc_flat = plan_document(compute_plan(flat, hourly))
    doc_mapped = plan_document(compute_plan(mapped, hourly))
    assert json.dumps(doc_flat, sort_keys=True) == json.dumps(doc_mapped, sort_keys=True)
    assert doc_mapped["uncertainty"]["draws"] == 300
