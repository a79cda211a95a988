"""The short scenario form (issue 16): essentials, percent and money inputs, input types from
the field's own type, changed counts, validation and live plan endpoints, progress."""
from __future__ import annotations

import re

import pytest

from models.fields import field_meta
from models.scenario import Scenario
from service import form_values as fv
from service.db import Revision
from service.form_layout import arrange
from service.forms import DEFAULTS, build_form, validate_form
from service.paths import SAMPLES
from tests.support.client import count, form_data

# The list: GPUs per server, server price, power, electricity price, colocation,
# on-demand price, commitment discounts, spot discount, horizon, discount rate, growth.
ESSENTIALS = {"name", "finance.horizon_months", "finance.discount_rate_annual",
              "owned.gpus_per_server", "owned.server_price", "owned.power_kw_max",
              "owned.electricity_price_per_kwh", "owned.space_price_per_kw_month",
              "on_demand.price_per_gpu_hour", "commitments.0.discount",
              "commitments.1.discount", "spot.discount", "profile.growth_annual"}


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


def _multidict(data):
    from werkzeug.datastructures import MultiDict
    return MultiDict(data)


def test_new_form_page_shows_essentials_open_and_sections_folded(login):
    html = login("ana").get("/scenarios/new").get_data(as_text=True)
    essentials = re.search(r'id="section-essentials".*?</fieldset>', html, re.S).group(0)
    assert 'name="owned.server_price" value="300,000"' in essentials
    assert re.search(r'<details id="advanced" class="advanced">', html)     # folded
    assert re.search(r'<details class="group section" id="section-spot">', html)
    assert "0 values differ from the defaults" in html
    assert 'type="number" step="any" min="0" max="100"' in html            # a percent input
    assert "<script>" not in html and "js/form.js" in html


def test_validation_endpoint_returns_pydantic_messages(login):
    client = login("ana")
    data = form_data(DEFAULTS)
    data["owned.pue"] = "0.5"
    body = client.post("/scenarios/validate", data).get_json()
    assert body["valid"] is False
    assert body["errors"] == {"owned.pue": "Input should be greater than or equal to 1"}
    data["owned.pue"] = "1.2"
    data["owned.power_kw_idle"] = "20"
    body = client.post("/scenarios/validate", data).get_json()
    assert body["section_errors"]["owned"][0].startswith("power_kw_idle (20.0) must be")
    assert client.client.post("/scenarios/validate", data=form_data(DEFAULTS)).status_code == 400


def test_live_preview_plans_without_saving(login, app):
    client = login("ana")
    before = count(app, Revision)
    data = form_data(_revision(app))
    data["owned.server_price"] = "200,000"
    body = client.post("/scenarios/1/preview", data).get_json()
    assert body["valid"] and 'id="summary"' in body["cards_html"]
    assert set(body["charts"]) == {"months", "cumulative", "text", "names"} and len(body["charts"]["months"]) == 60
    saved = client.post("/scenarios/1/preview", form_data(_revision(app))).get_json()
    assert body["charts"]["cumulative"]["optimal"][-1] < saved["charts"]["cumulative"][
        "optimal"][-1]                                 # cheaper servers, cheaper plan
    assert "Buy" in body["recommendation"] and "Cumulative cost" in body["summary"]
    data["owned.server_price"] = "-1"
    bad = client.post("/scenarios/1/preview", data).get_json()
    assert not bad["valid"] and "owned.server_price" in bad["errors"] and "cards_html" not in bad
    assert count(app, Revision) == before
    assert login("otto").post("/scenarios/1/preview", data).status_code == 404


def _revision(app, revision_id=1):
    with app.app_context():
        from service.db import write_session
        with write_session() as s:
            return s.get(Revision, revision_id).assumptions_dict


def test_edit_page_has_the_live_panel_and_no_inline_script(login):
    html = login("ana").get("/scenarios/1/edit").get_data(as_text=True)
    assert 'id="live-preview"' in html and "uncertainty section (tornado and Monte Carlo) " \
        "is skipped here" in html
    assert 'data-preview-url="/scenarios/1/preview"' in html
    assert not re.search(r"<script(?![^>]*(src=|type=\"application/json\"))", html)


def test_progress_phases_of_a_save_and_a_workbook(login, app):
    client = login("ana")
    data = form_data(_revision(app))
    data.update({"owned.server_price": "280000", "progress_id": "p" * 20})
    assert client.post("/scenarios/1/edit", data).status_code == 302
    assert client.get("/scenarios/progress/" + "p" * 20).get_json()["phase"] == "uncertainty"
    response = client.get("/scenarios/1/revisions/2/plan.xlsx?progress_id=" + "q" * 20)
    assert response.status_code == 200
    state = client.get("/scenarios/progress/" + "q" * 20).get_json()
    assert state == {"phase": "done", "text": "Done", "done": True}
    other = login("rita").get("/scenarios/progress/" + "q" * 20).get_json()
    assert other["phase"] is None                      # another user's progress is not shown


def test_upload_by_script_answers_json_and_lands_on_the_preview(login):
    client = login("ana")
    headers = {"Accept": "application/json"}
    import io
    daily = (SAMPLES / "usage_daily.csv").read_bytes()   # small: the test client keeps it in
    response = client.post("/scenarios/1/usage", {"usage": (io.BytesIO(daily), "u.csv"),  # RAM
                                                  "progress_id": "u" * 20},
                           content_type="multipart/form-data", headers=headers)
    location = response.get_json()["location"]
    assert re.fullmatch(r"/scenarios/1/usage/\d+", location)
    assert "daily, 365 rows" in client.get(location).get_data(as_text=True)
    assert client.get("/scenarios/progress/" + "u" * 20).get_json()["phase"] == "done"
    bad = client.post("/scenarios/1/usage", {"usage": (io.BytesIO(b"x,y\n1,2\n"), "u.csv")},
                      content_type="multipart/form-data", headers=headers)
    assert bad.status_code == 422 and 'id="upload-error"' in bad.get_json()["error_html"]
    assert login("rita").get(location).status_code == 403


@pytest.mark.parametrize("name", sorted(ESSENTIALS - {"name"}))
def test_every_essential_input_has_a_unit_beside_it(login, name):
    html = login("ana").get("/scenarios/new").get_data(as_text=True)
    assert re.search(rf'<span class="unit" id="unit-{re.escape(name)}">[^<]+</span>', html)

