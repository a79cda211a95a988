"""The plan page of a fleet of server types (issue 26): the generations sample planned once,
its page shows servers per type and the schedule's purchases and sales per type."""
from __future__ import annotations

from html import unescape
from pathlib import Path

import pytest
from werkzeug.datastructures import MultiDict

from models.scenario import Scenario
from service.forms.scenario import build_form, validate_form
from service.paths import SAMPLES
from tests.support.client import form_data
from tests.support.planned import browse_copy, planned_database

GENERATIONS = SAMPLES / "scenario_generations.json"
USAGE = SAMPLES / "usage_hourly.csv"
PAGE = "/scenarios/1/revisions/1"


@pytest.fixture(scope="module")
def fleet_database(tmp_path_factory):
    """A migrated SQLite file with ana and the generations sample planned (scenario 1)."""
    return planned_database(tmp_path_factory.mktemp("generations"), GENERATIONS, USAGE)


@pytest.fixture
def fleet(tmp_path: Path, fleet_database):
    path, result = fleet_database
    app, b = browse_copy(tmp_path, path)
    yield app, b, result
    app.extensions["buyrent_engine"].dispose()


def test_the_plan_page_of_a_fleet_names_servers_per_type(fleet):
    app, b, result = fleet
    page = b.get(PAGE)
    assert page.status_code == 200
    text = unescape(page.get_data(as_text=True))
    staged = result.document["strategies"]["staged"]
    # issue 37 item 5: the card counts servers bought, the held ones apart ("held: 16 h100")
    bought = " + ".join(f"{n} {k}" for k, n in staged["servers_bought"].items() if n)
    held = " + ".join(f"{n} {k}" for k, n in staged["servers_held"].items() if n)
    assert f"Servers bought: {bought} · held: {held}" in text
    assert "{'h100'" not in text and "{&#39;" not in text
    for d in staged["schedule"]:
        for k, n in d.get("buy", {}).items():
            assert f"Buy {n} {k} servers" in text or f"Buy {n} {k} servers now" in text



def test_purchase_orders_name_the_server_type(fleet):
    app, b, result = fleet
    text = unescape(b.get(PAGE).get_data(as_text=True))
    for o in result.document["strategies"]["staged"]["purchase_orders"]:
        if o["action"] in ("buy", "sell"):
            assert f"{o['type']} servers" in text


def test_the_server_types_preset_fills_dated_sourced_types():
    """The fleet-2026 preset adds H100 and B200 server types; every value it sets names its
    source and date, and the figures that are not quotes say they are estimates."""
    from service.presets.context import load_context_presets
    preset = load_context_presets()["context/fleet-2026"]
    data = preset.apply(Scenario().model_dump(mode="json"))
    s = Scenario.model_validate(data)
    assert [t.id for t in s.server_types] == ["h100", "b200"]
    assert s.server_types[1].server_price == 515_000
    marks = preset.marks(data)
    assert "estimate" in marks["server_types.1.server_price"]
    assert "estimate" in marks["server_types.1.relative_throughput"]
    assert all("2026-12-01" in text for text in marks.values())
    for path in marks:                     # each mark is a field the preset sets
        _, index, name = path.split(".")
        assert getattr(s.server_types[int(index)], name) is not None


def test_a_server_types_percent_override_reads_and_writes_as_percent(app):
    # maintenance_fraction_annual of a type is Optional[Annotated[float, ...]]: before, the form
    # showed the fraction (0.06) under a percent label and read "6" back as 600 %.
    data = Scenario.model_validate({"server_types": [
        {"id": "h100"}, {"id": "b200", "maintenance_fraction_annual": 0.06}]}).model_dump(mode="json")
    with app.test_request_context("/"):
        posted = form_data(data)
        assert posted["server_types.1.maintenance_fraction_annual"] == "6"     # 0.06 = 6 %
        field = next(f for s in build_form(data) for f in s.all_fields
                     if f.name == "server_types.1.maintenance_fraction_annual")
        assert "%" in field.unit
        model, _sections = validate_form(MultiDict(posted))
    assert model is not None, [(f.name, f.error) for s in _sections for f in s.all_fields if f.error]
    assert model.server_types[1].maintenance_fraction_annual == 0.06
