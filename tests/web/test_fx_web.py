"""Currencies in the web app (issue 15): the Korean context preset and money inputs labelled by
their market's currency. The Seoul sample from the command line is in tests/io/test_cli.py, its
equality with the same scenario typed in won in tests/engine/test_fx.py."""
from __future__ import annotations

import json
import re

import pytest
from flask import render_template
from numpy.testing import assert_allclose

from models.document import plan_document
from tests.support.plans import compute_plan
from models.scenario import Scenario
from service.ingest import load_usage
from service.presets.context import ContextPresetError, load_context_presets
from service.web.tables import Revision
from service.web.db import write_session
from tests.support.client import form_data
from tests.support.paths import SAMPLE_USAGE, SAMPLES

KOREA = "context/kr-2025"


def unit_of(html: str, name: str) -> str:
    match = re.search(rf'<span class="unit" id="unit-{re.escape(name)}">([^<]*)</span>', html)
    assert match, name
    return match.group(1)


def test_korea_preset_moves_a_dollar_scenario_into_won():
    """300,000 USD x 1,422.16 KRW/USD = 426,648,000 KRW; cloud prices stay in dollars."""
    preset = load_context_presets()[KOREA]
    data = preset.apply(Scenario().model_dump(mode="json"))
    s = Scenario.model_validate(data)
    assert s.finance.currency == "KRW" and s.cloud_terms.currency == "USD"
    assert s.foreign_currency() == "USD" and s.fx.rate == 1422.16
    assert s.owned.server_price == 426_648_000
    # 184.06 x 1,422.16 = 261,762.7696: won have no decimals, nor float noise (issue 24)
    assert s.owned.space_price_per_kw_month == 261_763
    assert s.finance.tax_rate == 0.209                      # corporate + local income tax
    assert s.owned.electricity_price_per_kwh == 182.7      # the tariff, not a conversion
    assert s.on_demand.price_per_gpu_hour == 6.88          # the cloud's own currency
    assert s.cloud_terms.vat_rate == 0.1
    again = Scenario.model_validate(preset.apply(data))    # already in won: nothing converts
    assert again.owned.server_price == s.owned.server_price


def test_korea_preset_refuses_a_currency_it_cannot_convert():
    data = Scenario.model_validate({"finance": {"currency": "EUR"}}).model_dump(mode="json")
    with pytest.raises(ContextPresetError, match="converts a scenario in USD"):
        load_context_presets()[KOREA].apply(data)


def test_form_labels_each_money_input_with_its_markets_currency(login):
    client = login("otto")
    response = client.get(f"/scenarios/new?preset={KOREA}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert unit_of(html, "owned.server_price") == "KRW per server"
    assert unit_of(html, "owned.electricity_price_per_kwh") == "KRW per kWh"
    assert unit_of(html, "on_demand.price_per_gpu_hour") == "USD per GPU-hour"
    assert unit_of(html, "cloud_terms.setup_fee") == "USD"
    assert "KEPCO industrial" in html and "as of 2025-12-31" in html


def test_won_scenario_saves_and_a_bad_currency_mix_is_refused(login, app):
    client = login("otto")
    data = form_data({**load_context_presets()[KOREA].apply(
        Scenario().model_dump(mode="json")), "name": "seoul"})
    data["preset"] = KOREA
    saved = client.post("/scenarios/new", data)
    assert saved.status_code == 302
    # the scenario page names the preset, whose label has "10 % VAT" (it was a 500: Jinja's
    # _() read the label as a format string)
    scenario_page = client.get(saved.headers["Location"])
    assert scenario_page.status_code == 200
    assert "10 % VAT" in scenario_page.get_data(as_text=True)
    with app.app_context():
        with write_session() as s:
            revision = s.query(Revision).order_by(Revision.id.desc()).first()
            assert revision.assumptions_dict["finance"]["currency"] == "KRW"
            assert revision.preset_dict["id"] == KOREA
    data["fx.rate"] = ""                                   # dollars without a rate
    response = client.post("/scenarios/new", data)
    assert response.status_code == 422
    assert "fx.rate is required: prices in USD" in response.get_data(as_text=True)


def test_unknown_context_preset_is_a_bad_request(login):
    assert login("ana").get("/scenarios/new?preset=context/mars").status_code == 400


def test_plan_page_gives_each_price_tie_in_its_markets_currency(app):
    """Seoul sample: servers in won, cloud prices in dollars. The on-demand price at which the
    best plans tie is a dollar price per GPU-hour, the server price a won price (both were
    formatted in won: "$5.53" showed as "₩6")."""
    s = Scenario.model_validate(json.loads((SAMPLES / "scenario_seoul.json").read_text()))
    doc = plan_document(compute_plan(s, load_usage(SAMPLE_USAGE).profile))
    with app.test_request_context("/"):
        html = render_template("plans/_economics.html", doc=doc, currency="KRW")
    ties = re.search(r'<p id="price-breakevens">(.*?)</p>', html, re.S).group(1)
    assert re.search(r"\$\d\.\d{2,4}/GPU-h", ties), ties
    assert re.search(r"₩\d{3},\d{3},\d{3}\.", ties), ties
