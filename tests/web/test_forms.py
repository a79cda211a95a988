"""service/forms/scenario.py: the scenario form generated from the pydantic fields (which inputs, which
are essential, how people type percentages and money) and read back into the same scenario."""
from __future__ import annotations

from werkzeug.datastructures import MultiDict

from models.fields import field_meta
from models.scenario import Scenario
from models.scenario_schedule import Decision
from service import form_values as fv
from service.forms.layout import arrange
from service.forms.scenario import DEFAULTS, build_form, validate_form
from tests.support.client import ESSENTIALS, form_data
from tests.support.engine_cases import growth_sample


def _multidict(data):
    return MultiDict(data)


def test_essentials_come_from_the_field_marker_and_the_rest_is_advanced():
    layout = arrange(build_form(DEFAULTS))
    assert {f.name for f in layout.essentials.fields} == ESSENTIALS
    advanced = {f.name for g in layout.advanced for f in g.all_fields}
    assert not ESSENTIALS & advanced and len(advanced) > 80
    marked = {f"{section}.{key}" for section, info in Scenario.model_fields.items()
              for key, sub in getattr(info.annotation, "model_fields", {}).items()
              if field_meta(sub)["essential"]}
    assert marked | {"name", "commitments.0.discount", "commitments.1.discount"} >= ESSENTIALS


def test_input_types_follow_the_annotation_not_the_unit():
    fields = {f.name: f for s in build_form(DEFAULTS) for f in s.all_fields}
    assert fields["owned.gpus_per_server"].kind == "number"          # int
    assert fields["owned.gpus_per_server"].attrs["step"] == "1"
    assert fields["owned.pue"].kind == "number"                      # float, plain
    assert fields["owned.pue"].attrs["step"] == "any"
    assert fields["owned.server_price"].kind == "money"              # float, money unit
    assert fields["finance.tax_depreciation"].kind == "select"       # Literal
    assert fields["cloud_terms.prices_include_vat"].kind == "checkbox"  # bool
    assert fields["owned.resale_fraction_by_year"].kind == "list"    # tuple
    assert fields["finance.start_month"].kind == "text"              # Optional[str]
    assert "pattern" in fields["finance.start_month"].attrs
    for f in fields.values():                    # every percent field is a fraction field
        if f.display == fv.PERCENT:
            assert f.unit.startswith("%")


def test_percentages_and_money_are_shown_and_read_as_people_type_them():
    fields = {f.name: f for s in build_form(DEFAULTS) for f in s.all_fields}
    assert fields["finance.discount_rate_annual"].value == "10"
    assert fields["finance.discount_rate_annual"].unit == "% per year"
    assert fields["spot.discount"].value == "70"
    assert fields["owned.server_price"].value == "300,000"
    assert fields["owned.server_price"].unit == "USD per server"
    assert fields["owned.resale_fraction_by_year"].value == "65, 45, 30, 20, 10"
    assert fv.read_number("29", fv.PERCENT) == "0.29"
    assert fv.read_number("12.5 %", fv.PERCENT) == "0.125"
    assert fv.read_number("1,234,567.5", fv.MONEY) == "1234567.5"
    assert fv.read_number("1,5", fv.MONEY) == "1,5"                  # not grouped: pydantic says
    assert fv.show(0.29, fv.PERCENT) == "29" and fv.show(1e8, fv.MONEY) == "100,000,000"


def test_the_form_round_trips_the_scenario_exactly():
    model, sections = validate_form(_multidict(form_data(DEFAULTS)))
    assert sections and model == Scenario()
    data = form_data(DEFAULTS)
    data.update({"spot.discount": "29", "owned.server_price": "250,000",
                 "owned.resale_fraction_by_year": "60, 40, 25"})
    model, _ = validate_form(_multidict(data))
    assert model.spot.discount == 0.29 and model.owned.server_price == 250_000
    assert model.owned.resale_fraction_by_year == (0.6, 0.4, 0.25)


def test_bounds_of_percent_fields_are_said_in_percent():
    data = form_data(DEFAULTS)
    data["spot.availability"] = "150"
    model, sections = validate_form(_multidict(data))
    errors = {f.name: f.error for s in sections for f in s.all_fields if f.error}
    assert model is None and errors == {"spot.availability": "Input should be less than or "
                                                              "equal to 100 %"}


def test_each_group_counts_the_values_that_differ_from_the_defaults():
    assert arrange(build_form(DEFAULTS)).essentials.changed == 0
    assert arrange(build_form(DEFAULTS)).advanced_changed == 0
    data = form_data(DEFAULTS)
    data.update({"owned.server_price": "250000", "owned.pue": "1.2", "spot.notice_seconds": "30",
                 "owned.financing.kind": "loan"})
    layout = arrange(validate_form(_multidict(data))[1])
    groups = {g.key: g.changed for g in layout.advanced}
    assert layout.essentials.changed == 1
    assert groups["owned"] == 2 and groups["spot"] == 1 and groups["finance"] == 0


def test_the_form_round_trips_position_staging_and_a_schedule():
    s, _ = growth_sample()
    data = s.model_dump(mode="json")
    posted = form_data(data)
    assert posted["position.servers.0.purchased"] == "2025-06"
    assert posted["position.servers.0.price"] == "310,000"
    assert posted["proposed.schedule.1.commit"] == "1y: 16"
    assert posted["position.servers.1.purchased"] == ""      # a blank row for a new cohort
    model, _ = validate_form(MultiDict(posted))
    assert model is not None and model == Scenario.model_validate(data)
    # a row removed, a decision added, a bad mapping named by its field
    posted.update({"position.commitments.0.remove": "true",
                   "proposed.schedule.3.month": "2029-01",
                   "proposed.schedule.3.buy_servers": "1",
                   "proposed.schedule.3.commit": "1y: many"})
    model, sections = validate_form(MultiDict(posted))
    errors = {f.name: f.error for sec in sections for f in sec.all_fields if f.error}
    assert model is None and list(errors) == ["proposed.schedule.3.commit"]
    posted["proposed.schedule.3.commit"] = "1y: 8"
    model, _ = validate_form(MultiDict(posted))
    assert model.position.commitments == () and model.proposed.schedule[-1] == Decision(
        month="2029-01", buy_servers=1, commit={"1y": 8})
