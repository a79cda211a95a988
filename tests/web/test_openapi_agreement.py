"""What the OpenAPI document accepts, the server accepts (issue 40, item 8): Schemathesis's
positive-data check (``schemathesis run --checks all``) found schema-valid requests refused.

- ``owned.financing`` without ``kind``: the document allowed it, the server (a discriminated
  union) refused it; the document now requires the tag in each variant.
- ``8.0`` servers: JSON Schema's integer, refused by the strict JSON validation; now read as 8
  (models/json_numbers.py), while ``"8"`` and ``true`` stay refused.
- ``"gpus": null`` beside ``gpu_hours`` in a JSON usage row: a null is no value, not a second
  measure ("give either gpu_hours or gpus" was a 422).
- the multipart ``scenario`` part: any text in the document, a 400 unless JSON; the document
  now says a Scenario as JSON.
- a usage row of nulls only: the document now says each row needs gpu_hours or gpus.

Left as they are: rules across fields that JSON Schema cannot say (demand scenarios'
probabilities adding up to 1), stated in the models' descriptions instead
(tests/web/test_openapi.py).
"""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from service.web.db import get_session, write_session
from service.web.tables import Revision, User
from service.web.users import create_token

DAILY = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0 + d} for d in range(1, 29)]


@pytest.fixture
def token(app) -> str:
    with app.app_context():
        with write_session() as s:
            return create_token(s, s.query(User).filter_by(username="ana").one(), "agreement")


def post(app, token, path, body):
    return app.test_client().post(path, json=body,
                                  headers={"Authorization": f"Bearer {token}"})


def test_the_document_requires_each_financing_kind(app):
    schemas = app.test_client().get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    assert "kind" in schemas["CashFinancing"]["required"]
    assert "kind" in schemas["LoanFinancing"]["required"]


def test_a_financing_without_its_kind_is_refused_naming_it(app, token):
    response = post(app, token, "/api/v1/scenarios", {"owned": {"financing": {}}})
    assert response.status_code == 422
    assert response.get_json()["error"]["details"][0]["field"] == "owned.financing"


def test_a_whole_number_written_with_a_fraction_is_that_integer(app, token):
    response = post(app, token, "/api/v1/scenarios",
                    {"name": "whole", "finance": {"horizon_months": 24.0},
                     "owned": {"gpus_per_server": 8e0}})
    assert response.status_code == 201, response.get_json()
    with app.app_context():
        body = response.get_json()
        stored = json.loads(get_session().scalar(select(Revision.assumptions).where(
            Revision.scenario_id == body["scenario_id"], Revision.number == body["number"])))
    assert stored["finance"]["horizon_months"] == 24 and stored["owned"]["gpus_per_server"] == 8


@pytest.mark.parametrize("value", [24.5, "24", True])
def test_a_fraction_a_string_or_a_boolean_stays_refused(app, token, value):
    response = post(app, token, "/api/v1/scenarios", {"finance": {"horizon_months": value}})
    assert response.status_code == 422
    assert response.get_json()["error"]["details"][0]["field"] == "finance.horizon_months"


def test_nulls_in_json_usage_rows_are_no_values(app, token):
    rows = [{**row, "gpus": None, "team": None, "workload": None, "interruptible": None}
            for row in DAILY]
    response = post(app, token, "/api/v1/plans",
                    {"scenario": {"finance": {"horizon_months": 12.0}}, "usage": rows})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["scenario"]["finance"]["horizon_months"] == 12


def test_the_multipart_scenario_part_is_a_scenario_as_json(app):
    doc = app.test_client().get("/api/v1/openapi.json").get_json()
    body = doc["paths"]["/api/v1/plans"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert body["encoding"]["scenario"]["contentType"] == "application/json"
    form = doc["components"]["schemas"]["PlanForm"]["properties"]["scenario"]
    assert form["$ref"] == "#/components/schemas/Scenario"


def test_a_usage_row_needs_a_measure_in_the_document_too(app, token):
    """A row of nulls only: valid in the document before, refused by the reader ("missing
    column gpu_hours (or gpus)"); the document now says a row needs one of them, a number."""
    row = app.test_client().get("/api/v1/openapi.json").get_json()[
        "components"]["schemas"]["UsageRow"]
    assert row["anyOf"] == [{"required": ["gpu_hours"],
                             "properties": {"gpu_hours": {"type": "number"}}},
                            {"required": ["gpus"], "properties": {"gpus": {"type": "number"}}}]
    response = post(app, token, "/api/v1/plans",
                    {"usage": [{"timestamp": "2026-02", "gpu_hours": None, "gpus": None}]})
    assert response.status_code == 422
