"""Scenario schema: defaults, bounds, cross-field rules; every rejection has its own message."""
import json
import math

import pytest
from pydantic import ValidationError

from models.fields import field_meta
from models.scenario import Scenario, validation_messages
from models.scenario_owned import Owned


def test_empty_document_is_the_default_h100_scenario():
    s = Scenario.model_validate({})
    assert s.finance.horizon_months == 60 and s.finance.discount_rate_annual == 0.10
    assert s.owned.server_price == 300_000 and s.owned.power_kw_max == 10.2
    assert s.on_demand.price_per_gpu_hour == 6.88
    assert [(c.id, c.discount) for c in s.commitments] == [("1y", 0.41), ("3y", 0.64)]
    assert s.owned.resale_fraction_by_year == (0.65, 0.45, 0.30, 0.20, 0.10)
    assert s.owned.financing.kind == "cash"


def test_json_round_trip_is_the_identity():
    s = Scenario.model_validate({"owned": {"financing": {"kind": "loan", "apr": 0.07}},
                                 "proposed": {"servers": 3, "committed_gpus": {"3y": 16}}})
    again = Scenario.model_validate(json.loads(json.dumps(s.model_dump(mode="json"))))
    assert again == s


def test_sections_are_frozen():
    s = Scenario()
    with pytest.raises(ValidationError, match="frozen"):
        s.owned.pue = 2.0


def test_every_field_has_label_unit_and_bounds_metadata():
    for name, info in Owned.model_fields.items():
        if name == "financing":
            continue
        meta = field_meta(info)
        assert meta["label"] and meta["unit"], name
    assert field_meta(Owned.model_fields["pue"])["ge"] == 1


REJECTED = [
    # (case, document, message fragment)
    ("unknown section", {"ownd": {}}, r"ownd\n  Extra inputs are not permitted"),
    ("unknown field", {"owned": {"pue2": 1}}, r"owned\.pue2"),
    ("horizon 0", {"finance": {"horizon_months": 0}}, r"horizon_months\n.*greater than or equal to 1"),
    ("horizon 241", {"finance": {"horizon_months": 241}}, r"less than or equal to 240"),
    ("negative price", {"on_demand": {"price_per_gpu_hour": -1}}, r"price_per_gpu_hour"),
    ("percentage over 100", {"spot": {"availability": 1.5}}, r"spot\.availability"),
    ("discount of 100 %", {"spot": {"discount": 1.0}}, r"less than 1"),
    ("NaN", {"owned": {"pue": math.nan}}, r"owned\.pue\n  Input should be a finite number"),
    ("infinity", {"on_demand": {"price_per_gpu_hour": math.inf}}, r"finite number"),
    ("idle above max", {"owned": {"power_kw_idle": 11, "power_kw_max": 10}},
     r"power_kw_idle \(11.0\) must be <= power_kw_max"),
    ("resale rising", {"owned": {"resale_fraction_by_year": [0.5, 0.6]}},
     r"must not increase with age"),
    ("resale over 1", {"owned": {"resale_fraction_by_year": [1.5]}}, r"between 0 and 1"),
    ("loan term 0", {"owned": {"financing": {"kind": "loan", "term_months": 0}}},
     r"financing\.loan\.term_months"),
    ("unknown financing", {"owned": {"financing": {"kind": "lease"}}}, r"kind"),
    ("bad start month", {"finance": {"start_month": "2027-13"}}, r"start_month"),
    ("bad currency", {"finance": {"currency": "usd"}}, r"currency"),
    ("proposed unknown offer", {"proposed": {"committed_gpus": {"5y": 8}}},
     r"unknown offer '5y'"),
    ("proposed not whole blocks", {"proposed": {"committed_gpus": {"1y": 12}}},
     r"multiple of block_gpus 8"),
    ("duplicate offer ids", {"commitments": [{"id": "a"}, {"id": "a"}]}, r"must be unique"),
    ("negative servers", {"proposed": {"servers": -1}}, r"proposed\.servers"),
    ("peak-to-average below 1", {"profile": {"peak_to_average": 0.5}}, r"peak_to_average"),
    ("interruptible share over 1", {"profile": {"interruptible_share": 1.2}},
     r"interruptible_share"),
    ("availability 0", {"owned": {"availability": 0}}, r"greater than or equal to 0.01"),
    # a throughput or session so small it made server counts and prices overflow (issue 12)
    ("throughput 5e-324", {"on_demand": {"relative_throughput": 5e-324}},
     r"greater than or equal to 0.01"),
    ("session 5e-324 h", {"on_demand": {"mean_session_hours": 5e-324}}, r"greater than or equal to"),
    ("tax method", {"finance": {"tax_depreciation": "double_declining"}}, r"tax_depreciation"),
]


@pytest.mark.parametrize("case, document, message", REJECTED, ids=[c[0] for c in REJECTED])
def test_rejected_inputs_name_field_and_bound(case, document, message):
    with pytest.raises(ValidationError, match=message):
        Scenario.model_validate(document)


def test_validation_messages_are_one_line_per_problem_with_the_path():
    with pytest.raises(ValidationError) as info:
        Scenario.model_validate({"owned": {"pue": 0.5}, "finance": {"horizon_months": 0}})
    lines = validation_messages(info.value)
    assert "owned.pue: Input should be greater than or equal to 1 (got 0.5)" in lines
    assert any(line.startswith("finance.horizon_months:") for line in lines)


def test_what_if_copy_is_revalidated():
    s = Scenario()
    assert s.with_changes(owned={"pue": 1.5}).owned.pue == 1.5
    with pytest.raises(ValidationError, match="pue"):
        s.with_changes(owned={"pue": 0.2})


def test_schedule_and_proposal_counts_are_whole_and_not_negative():
    # sell_from's counts had no bound: -1 from one month and 3 from another passed the sum
    # check (2 sold); the OpenAPI schema now says minimum 0 and the model refuses it
    sell = {"month": "2027-04", "sell_servers": 2, "sell_from": {"2027-01": 3, "2027-02": -1}}
    with pytest.raises(ValidationError, match=r"proposed.schedule.0.sell_from.2027-02\n"
                                              r"  Input should be greater than or equal to 0"):
        Scenario.model_validate({"proposed": {"schedule": [sell]}})
    with pytest.raises(ValidationError, match=r"sell_from.2027-1-01\.\[key\]\n"
                                              r"  String should match pattern"):
        Scenario.model_validate({"proposed": {"schedule": [
            {"month": "2027-04", "sell_servers": 1, "sell_from": {"2027-1-01": 1}}]}})
