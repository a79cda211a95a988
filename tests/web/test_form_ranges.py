"""The scenario form's uncertainty ranges (issue 13): one input per range end, named by the path
pydantic reports for it, with the labels, units and bounds of the range's own fields."""
from __future__ import annotations

import json

from pydantic import ValidationError
from werkzeug.datastructures import MultiDict

from models.ranges import RANGE_MODELS
from models.scenario import Scenario
from service.web.tables import Revision
from service.forms.scenario import build_form, label_for, show_value, validate_form
from service.i18n import using_locale
from service.i18n.validation import error_message
from tests.support.client import form_data

# flat keys, as scenarios saved them before the ranges mapping
FLAT_CHANGED = {"draws": 300, "server_price_low": -0.3, "server_price_distribution": "lognormal",
                "pue_high": 0.1, "commitment_discount_low": -0.2}


def fields_by_name(sections) -> dict:
    return {f.name: f for s in sections for f in s.all_fields}


def test_every_range_end_is_an_input_of_the_uncertainty_section():
    sections = build_form(Scenario().model_dump(mode="json"))
    section = next(s for s in sections if s.key == "uncertainty")
    names = [f.name for f in section.fields]
    ends = [f"uncertainty.ranges.{path}.{end}" for path, model in RANGE_MODELS.items()
            for end in model.model_fields]
    assert names[:4] == ["uncertainty.draws", "uncertainty.seed", "uncertainty.histogram_bins",
                         "uncertainty.trend_correlation"]
    # 16 assumptions x (low, high) + 8 distributions = 40 (the 16th, relative throughput,
    # moves a fleet's server types, issue 26)
    assert names[4:] == ends and len(ends) == 40
    f = fields_by_name(sections)
    low = f["uncertainty.ranges.owned.server_price.low"]
    assert (low.label, low.display, low.value, low.default) == ("Server price: low", "percent",
                                                                "-10", "-10")
    assert low.bounds == ">= -99 %, <= 0 %" and low.attrs["min"] == "-99"
    pue = f["uncertainty.ranges.owned.pue.high"]
    assert (pue.label, pue.display, pue.unit) == ("PUE: high", "plain", "ratio, added to base")
    shape = f["uncertainty.ranges.owned.electricity_price_per_kwh.distribution"]
    assert shape.kind == "select" and shape.value == "lognormal"
    assert "uncertainty.ranges.owned.pue.distribution" not in f


def test_posted_ranges_come_back_as_the_scenario():
    scenario = Scenario.model_validate({"uncertainty": FLAT_CHANGED})
    model, _sections = validate_form(MultiDict(form_data(scenario.model_dump(mode="json"))))
    assert model == scenario


def test_a_range_end_out_of_bounds_is_said_under_its_input():
    posted = form_data(Scenario().model_dump(mode="json"))
    posted["uncertainty.ranges.owned.pue.low"] = "0.5"
    posted["uncertainty.ranges.owned.server_price.high"] = "-5"
    model, sections = validate_form(MultiDict(posted))
    assert model is None
    f = fields_by_name(sections)
    assert "0" in f["uncertainty.ranges.owned.pue.low"].error
    assert "0 %" in f["uncertainty.ranges.owned.server_price.high"].error
    assert not f["uncertainty.ranges.owned.server_price.low"].error


def test_a_revision_saved_with_flat_keys_shows_its_own_ranges():
    saved = Scenario.model_validate({"uncertainty": FLAT_CHANGED}).model_dump(mode="json")
    saved["uncertainty"] = dict(FLAT_CHANGED)          # as the database holds it
    revision = Revision(assumptions=json.dumps(saved))
    f = fields_by_name(build_form(revision.assumptions_dict))
    assert f["uncertainty.ranges.owned.server_price.low"].value == "-30"
    assert f["uncertainty.ranges.owned.server_price.distribution"].value == "lognormal"
    assert f["uncertainty.ranges.owned.pue.high"].value == "0.1"


def test_labels_of_range_paths_old_and_new():
    assert label_for("uncertainty.ranges.owned.pue.low") == "Uncertainty ranges: PUE: low"
    assert label_for("uncertainty.pue_low") == "Uncertainty ranges: PUE: low"
    assert label_for("fx.rate") == "Exchange rate"        # not "Exchange rate: Exchange rate"
    assert label_for("owned.pue") == "Owned servers: PUE"
    assert label_for("uncertainty.ranges.commitments[*].discount.high") == \
        "Uncertainty ranges: Commitment discounts: high"
    assert show_value("uncertainty.ranges.owned.server_price.low", -0.1) == "-10 %"
    with using_locale("ko"):
        assert label_for("uncertainty.ranges.owned.pue.low") == "불확실성 범위: PUE: 하단"
        f = fields_by_name(build_form(Scenario().model_dump(mode="json")))
        assert f["uncertainty.ranges.on_demand.price_per_gpu_hour.low"].label == \
            "온디맨드 가격: 하단"


def test_an_unknown_range_path_is_said_in_korean():
    try:
        Scenario.model_validate({"uncertainty": {"ranges": {"owned.pue_typo": {}}}})
    except ValidationError as exc:
        item = exc.errors()[0]
    with using_locale("ko"):
        text = error_message(item)
    assert text.startswith("알 수 없는 범위 경로 'owned.pue_typo'입니다. 범위가 있는 경로는 "
                           "on_demand.price_per_gpu_hour, ")
