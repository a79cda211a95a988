"""Presets that stack and never discard what was typed (issue 24): a local context (Korea 2025)
and a cloud price (AWS Seoul p5) applied in either order, each changing only the fields it
names (and, for the context, converting the dollar values it moves into won), values rounded
to their field's precision. The page's script side is in tests/system/test_presets_browser.py.
"""
from __future__ import annotations

import json
import re

import pytest
from werkzeug.datastructures import MultiDict

from models.scenario import Scenario
from service import form_values as fv
from service.forms.scenario import validate_form
from service.presets.context import ContextPresetError
from service.presets.stack import all_presets, apply_all, chosen, form_changes
from service.web.db import write_session
from service.web.tables import Revision
from tests.support.client import form_data

KOREA = "context/kr-2025"
SEOUL = "aws/p5.48xlarge/ap-northeast-2"
RATE = 1422.16   # KRW per USD, the Korea 2025 preset's exchange rate


def defaults() -> dict:
    return Scenario().model_dump(mode="json")


@pytest.mark.parametrize("unit, kind, currency, digits", [
    ("currency per server", fv.MONEY, "KRW", 0),        # won have no minor unit
    ("currency per kW-month of maximum power", fv.MONEY, "KRW", 0),
    ("currency per kWh", fv.MONEY, "KRW", 2),           # 182.7 KRW/kWh: a tariff's decimal
    ("currency per server", fv.MONEY, "USD", 2),        # cents
    ("currency per GPU-hour", fv.MONEY, "USD", 4),      # 9.4944 USD per GPU-hour
    ("fraction", fv.PERCENT, "KRW", 4),                 # 20.9 % = 0.209: hundredths of a %
    ("kW per server", fv.PLAIN, "USD", 6),
])
def test_a_fields_precision_comes_from_its_unit_and_currency(unit, kind, currency, digits):
    assert fv.field_digits(unit, kind, currency) == digits


@pytest.mark.parametrize("value, unit, kind, currency, rounded", [
    (184.06 * RATE, "currency per kW-month", fv.MONEY, "KRW", 261_763),  # 261,762.7696
    (300_000 * RATE, "currency per server", fv.MONEY, "KRW", 426_648_000),
    (0.08 * RATE, "currency per kWh", fv.MONEY, "KRW", 113.77),          # 113.7728
    (1.3492375, "currency per GPU-hour", fv.MONEY, "USD", 1.3492),       # 10.7939 / 8 GPUs
    (0.00004, "currency per server", fv.MONEY, "USD", 0.00004),         # under a cent: kept
    (0.1 + 0.109, "fraction", fv.PERCENT, "USD", 0.209),                # 0.20900000000000002
])
def test_preset_values_are_rounded_to_their_fields_precision(value, unit, kind, currency,
                                                              rounded):
    assert fv.round_to_field(value, unit, kind, currency) == rounded


def test_a_context_and_a_price_preset_give_one_scenario_in_either_order():
    """Korea converts owned and reporting money (x 1,422.16) and never a cloud price; AWS
    Seoul sets cloud prices in dollars only. So: the same scenario both ways. The one field
    both name, the currency of cloud prices, is USD in both; its note is the later preset's."""
    presets = all_presets()
    one, marks_one = apply_all(defaults(), [presets[KOREA], presets[SEOUL]])
    two, marks_two = apply_all(defaults(), [presets[SEOUL], presets[KOREA]])
    assert one == two
    overlap = {"cloud_terms.currency"}
    assert {k: v for k, v in marks_one.items() if k not in overlap} == \
        {k: v for k, v in marks_two.items() if k not in overlap}
    assert "SkyPilot" in marks_one["cloud_terms.currency"]
    assert "AWS bills accounts in Korea" in marks_two["cloud_terms.currency"]
    s = Scenario.model_validate(one)
    assert (s.finance.currency, s.cloud_terms.currency, s.fx.rate) == ("KRW", "USD", RATE)
    assert s.on_demand.price_per_gpu_hour == 9.4944     # dollars: the plan converts it
    assert s.spot.availability == 0                     # Seoul lists no spot price
    assert s.owned.server_price == 426_648_000          # 300,000 x 1,422.16
    assert s.owned.space_price_per_kw_month == 261_763  # 184.06 x 1,422.16 = 261,762.7696
    assert s.finance.tax_rate == 0.209                  # 19 % + 10 % local income tax of it
    assert "as of 2025-12-31" in marks_one["finance.tax_rate"]
    assert "converted from USD at 1,422.16 KRW per USD" in marks_one["owned.server_price"]


def test_one_preset_of_each_kind_the_later_one_replaces_an_earlier():
    ids = [p.id for p in chosen(["", SEOUL, KOREA, "aws/p5.48xlarge/us-east-1"])]
    assert ids == [KOREA, "aws/p5.48xlarge/us-east-1"]


def applied(raw: MultiDict, preset_id: str) -> tuple[MultiDict, list]:
    """The form after the page's script applied the preset (every change it answers)."""
    changes = form_changes(all_presets()[preset_id], raw).changes
    out = MultiDict(raw)
    for change in changes:
        out.setlist(change.name, [change.new])
    return out, changes


def test_the_form_keeps_typed_values_and_either_order_gives_the_same_form(app):
    """A PUE and a server price typed into the default form; then Korea and Seoul. The PUE
    is named by neither preset: it stays. The typed server price (dollars) is converted, not
    replaced: 280,000 x 1,422.16 = 398,204,800 KRW. Korea on the default form changes 13
    values: 7 it names (reporting and cloud currency, VAT, rate and its date, electricity,
    tax) plus 6 dollar amounts it converts; then Seoul 2 (on-demand price, spot availability:
    the cloud currency is USD already). Seoul first changes 3 (the cloud currency too), then
    Korea 12: 15 values both ways."""
    raw = MultiDict(form_data(defaults()))
    raw["owned.pue"] = "1.25"
    raw["owned.server_price"] = "280,000"
    with app.test_request_context("/"):
        korea_first, k1 = applied(raw, KOREA)
        korea_first, s1 = applied(korea_first, SEOUL)
        seoul_first, s2 = applied(raw, SEOUL)
        seoul_first, k2 = applied(seoul_first, KOREA)
        model, sections = validate_form(korea_first)
    assert (len(k1), len(s1), len(s2), len(k2)) == (13, 2, 3, 12)
    assert korea_first.to_dict(flat=False) == seoul_first.to_dict(flat=False)
    assert korea_first["owned.pue"] == "1.25"
    assert korea_first["owned.server_price"] == "398,204,800"
    assert korea_first["owned.space_price_per_kw_month"] == "261,763"
    assert korea_first["on_demand.price_per_gpu_hour"] == "9.4944"
    assert korea_first["finance.tax_rate"] == "20.9" and korea_first["cloud_terms.vat_rate"] == "10"
    converted = {c.name for c in k1 if c.converted}
    assert converted == {"owned.server_price", "owned.install_cost_per_server",
                         "owned.space_price_per_kw_month", "owned.fte_cost_annual",
                         "owned.storage_price_per_tb_month", "owned.network_price_per_tb"}
    # the electricity price is converted too, then named: the tariff, not a conversion
    electricity = next(c for c in k1 if c.name == "owned.electricity_price_per_kwh")
    assert not electricity.converted and electricity.new == "182.7"
    # what the form would save is what the same presets make of the same typed values
    assert model is not None, [f.error for s in sections for f in s.all_fields if f.error]
    typed = Scenario().with_changes(owned={"pue": 1.25, "server_price": 280_000})
    data, _marks = apply_all(typed.model_dump(mode="json"),
                             [all_presets()[KOREA], all_presets()[SEOUL]])
    assert model == Scenario.model_validate(data)


def test_a_won_scenario_is_not_converted_again_and_the_price_stays_in_dollars(app):
    won = Scenario.model_validate({"finance": {"currency": "KRW"}, "fx": {"rate": RATE}})
    raw = MultiDict(form_data(won.model_dump(mode="json")))
    with app.test_request_context("/"):
        raw, changes = applied(raw, KOREA)
        raw, _ = applied(raw, SEOUL)
        assert not [c for c in changes if c.converted]
        model, _sections = validate_form(raw)
    assert model.owned.server_price == 300_000                  # typed in won already
    assert model.on_demand.price_per_gpu_hour == 9.4944         # billed in dollars
    assert model.foreign_currency() == "USD" and model.fx.rate == RATE


def test_the_form_script_gets_the_changes_as_json(login):
    client = login("otto")
    form = form_data(defaults())
    form["owned.pue"] = "1.25"
    response = client.post(f"/scenarios/presets/{KOREA}.json", form)
    assert response.status_code == 200
    body = response.get_json()
    text = json.dumps(body)
    assert body["summary"] == "Changed: 13 values" and body["kind"] == "context"
    assert "261,762.7696" not in text and "261762.7696" not in text
    space = next(c for c in body["changes"] if c["name"] == "owned.space_price_per_kw_month")
    assert space["new"] == "261,763" and space["converted"] is True
    assert (space["old_text"], space["new_text"]) == ("184.06 USD", "261,763 KRW")
    tax = next(c for c in body["changes"] if c["name"] == "finance.tax_rate")
    assert (tax["old_text"], tax["new_text"]) == ("0 %", "20.9 %")
    assert "Corporate Tax Act" in tax["mark"] and "as of 2025-12-31" in tax["mark"]
    assert body["units"]["owned.server_price"] == "KRW per server"
    assert "owned.pue" not in {c["name"] for c in body["changes"]}
    assert "1,422.16 KRW per USD" in body["note_html"]
    # every number it sends has at most its field's decimals (won: none)
    for change in body["changes"]:
        if change["new_text"].endswith(("KRW per server", "KRW per FTE-year")):
            assert re.fullmatch(r"[\d,]+", change["new"]), change
    price = client.post(f"/scenarios/presets/{SEOUL}.json", form).get_json()
    assert [c["name"] for c in price["changes"]] == [
        "on_demand.price_per_gpu_hour", "spot.availability", "cloud_terms.currency"]
    assert "the catalog lists no spot price there" in price["note_html"]


def test_a_preset_that_cannot_apply_says_why_and_an_unknown_one_is_not_found(login):
    client = login("otto")
    form = form_data(Scenario.model_validate({"finance": {"currency": "EUR"}})
                     .model_dump(mode="json"))
    response = client.post(f"/scenarios/presets/{KOREA}.json", form)
    assert response.status_code == 422
    assert "converts a scenario in USD" in response.get_json()["error"]["message"]
    assert client.post("/scenarios/presets/context/mars.json", form).status_code == 404
    with pytest.raises(ContextPresetError):
        all_presets()[KOREA].apply(Scenario.model_validate(
            {"finance": {"currency": "EUR"}}).model_dump(mode="json"))


def test_without_javascript_both_presets_apply_to_the_form(login):
    html = login("otto").get(f"/scenarios/new?preset={KOREA}&preset={SEOUL}"
                             ).get_data(as_text=True)
    assert 'id="on_demand.price_per_gpu_hour" name="on_demand.price_per_gpu_hour" ' \
           'value="9.4944"' in html
    assert 'value="261,763"' in html and "261,762.7696" not in html
    assert 'id="preset-note-context"' in html and 'id="preset-note-gpu"' in html
    assert f'name="preset" value="{KOREA}" data-kind="context"' in html
    assert f'name="preset" value="{SEOUL}" data-kind="gpu"' in html
    assert html.count("Filled from preset") >= 13


def test_the_saved_revision_records_both_presets(login, app):
    client = login("otto")
    data, _marks = apply_all(defaults(), [all_presets()[KOREA], all_presets()[SEOUL]])
    form = form_data({**data, "name": "seoul, stacked"})
    form["preset"] = [KOREA, SEOUL]
    saved = client.post("/scenarios/new", form)
    assert saved.status_code == 302
    page = client.get(saved.headers["Location"]).get_data(as_text=True)
    assert "values as of 2025-12-31" in page and "SkyPilot catalog" in page
    with app.app_context():
        with write_session() as s:
            revision = s.query(Revision).order_by(Revision.id.desc()).first()
            assert [p["id"] for p in revision.presets] == [KOREA, SEOUL]
            assert revision.preset_dict["id"] == KOREA          # the first, as before
            assert revision.assumptions_dict["on_demand"]["price_per_gpu_hour"] == 9.4944
            assert revision.assumptions_dict["owned"]["server_price"] == 426_648_000


INTERNAL = re.compile(r"design \d|seed \d{3}|\(tests\)|\.py\b|\.json\b|\.csv\b|shared/|"
                      r"\b[a-z]+_[a-z_]+\b|\b(owned|cloud_terms|finance)\.[a-z]")


def form_fields(app, lang: str = "en") -> list:
    from service.forms.scenario import build_form
    from service.i18n import using_locale
    with app.test_request_context("/"), using_locale(lang):
        return [f for s in build_form(defaults()) for f in s.all_fields]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_form_help_has_no_internal_references(app, lang):
    """No design section, seed file, file path or field id in what a person reads beside an
    input (its help and source), in either language."""
    bad = [(f.name, text) for f in form_fields(app, lang) for text in (f.help, f.source)
           if INTERNAL.search(text)]
    assert bad == []


def test_bounds_are_shown_where_they_guide_a_person(app):
    """Percent shares show 0-100 %, a horizon its 240 months; money shows no bound (no
    "<= 2,000,000,000,000 USD per server"), nor do the guards against absurd input."""
    by_name = {f.name: f for f in form_fields(app)}
    assert by_name["spot.availability"].bounds == ">= 0 %, <= 100 %"
    assert by_name["finance.tax_rate"].bounds == ">= 0 %, <= 90 %"
    assert by_name["finance.horizon_months"].bounds == ">= 1, <= 240"
    assert by_name["owned.pue"].bounds == ">= 1, <= 3"
    for name in ("owned.server_price", "owned.space_price_per_kw_month",
                 "on_demand.price_per_gpu_hour", "staging.capital_budget_per_year"):
        assert by_name[name].bounds == "", name
    assert by_name["uncertainty.seed"].bounds == ">= 0"                 # not 4294967295
    assert by_name["on_demand.mean_session_hours"].bounds == ""         # not 0.000277...
    assert by_name["profile.growth_annual"].bounds == ">= -90 %"        # not <= 1000 %
    shown = " ".join(f.bounds for f in by_name.values())
    assert "000,000" not in shown and "0.0002" not in shown


def test_percent_help_is_written_in_percent(app):
    """The form takes percent ("10 for 10 %"): no help says a percent as a fraction."""
    fraction = re.compile(r"-?0\.\d+ = |= 1\.0\b")
    percent_help = [(f.name, f.help) for f in form_fields(app) if f.display == fv.PERCENT]
    assert [h for h in percent_help if fraction.search(h[1])] == []
    trend = {f.name: f.help for f in form_fields(app)}["on_demand.price_trend_annual"]
    assert "-20 %" in trend


def test_a_preset_that_adds_rows_names_the_forms_next_rows(app):
    """Server generations 2026 sets two server types: the form's blank row 0 takes the first,
    row 1 (which the page's script adds with the table's add-row button) the second."""
    raw = MultiDict(form_data(defaults()))
    with app.test_request_context("/"):
        changes = {c.name: c.new for c in
                   form_changes(all_presets()["context/fleet-2026"], raw).changes}
    assert changes["server_types.0.id"] == "h100" and changes["server_types.1.id"] == "b200"
    assert changes["server_types.0.resale_drop_at_successor"] == "15"     # percent: 0.15
    assert changes["server_types.1.power_kw_max"] == "14.3"


def test_every_listed_preset_applies_to_the_new_form(login):
    """Each preset the form offers answers 200 on the default form, the documented "Server
    generations 2026" (context/fleet-2026) among them: it answered 500 every time (issue 40)."""
    client = login("otto")
    form = form_data(defaults())
    ids = list(all_presets())
    assert "context/fleet-2026" in ids
    for preset_id in ids:
        response = client.post(f"/scenarios/presets/{preset_id}.json", form)
        assert response.status_code in (200, 422), (preset_id, response.status_code,
                                                     response.data[:300])
        if response.status_code == 422:       # a preset that cannot apply says why
            assert response.get_json()["error"]["message"]
    fleet = client.post("/scenarios/presets/context/fleet-2026.json", form)
    assert fleet.status_code == 200, fleet.data[:500]
    assert fleet.get_json()["changes"]
