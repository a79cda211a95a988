"""JSON API (design 9.4): bearer tokens, multipart and JSON bodies, JSON errors."""
from __future__ import annotations

import io
import json

import pytest

from service.web.db import write_session
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DAILY = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0 + d} for d in range(1, 29)]


def test_multipart_usage_file_and_scenario_field(api):
    response = api(data={"usage": (io.BytesIO(SAMPLE_USAGE.read_bytes()), "usage.csv"),
                         "scenario": SAMPLE_SCENARIO.read_text()},
                   content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    doc = response.get_json()
    assert doc["scenario"]["name"].startswith("8x H100")
    assert doc["recommendation"] in doc["strategies"]
    assert doc["profile"]["period"] == "hour"


def test_json_body_with_usage_rows(api):
    response = api(json={"scenario": {"finance": {"horizon_months": 12}}, "usage": DAILY})
    assert response.status_code == 200
    doc = response.get_json()
    assert len(doc["months"]) == 12 and doc["profile"]["period"] == "day"


def test_default_scenario_when_missing(api):
    assert api(json={"usage": DAILY}).status_code == 200


@pytest.mark.parametrize("kwargs,status,code", [
    # invalid scenario value -> 422 naming the field
    ({"json": {"scenario": {"owned": {"pue": 0.5}}, "usage": DAILY}}, 422, "invalid_input"),
    # unknown scenario key (extra="forbid")
    ({"json": {"scenario": {"bogus": 1}, "usage": DAILY}}, 422, "invalid_input"),
    # usage is not a list of rows
    ({"json": {"usage": "nope"}}, 422, "invalid_input"),
    # body not an object
    ({"json": [1, 2]}, 400, "bad_request"),
    # scenario field is not JSON
    ({"data": {"usage": (io.BytesIO(b"timestamp,gpu_hours\n2026-01,5\n"), "u.csv"),
               "scenario": "{nope"}, "content_type": "multipart/form-data"}, 400, "bad_request"),
    # multipart without the usage file
    ({"data": {"scenario": "{}"}, "content_type": "multipart/form-data"}, 400, "bad_request"),
    # wrong media type
    ({"data": "hello", "content_type": "text/plain"}, 415, "unsupported_media_type"),
    # bad usage rows -> row/column message
    ({"json": {"usage": [{"timestamp": "2026-01-01", "gpu_hours": -1}]}}, 422,
     "invalid_input"),
])
def test_errors_are_json(api, kwargs, status, code):
    response = api(**kwargs)
    assert response.status_code == status
    body = response.get_json()
    assert body["error"]["code"] == code and body["error"]["message"]
    assert isinstance(body["error"]["details"], list)


def test_invalid_scenario_details_name_the_field(api):
    body = api(json={"scenario": {"owned": {"pue": 0.5}}, "usage": DAILY}).get_json()
    assert body["error"]["details"] == [
        {"field": "owned.pue", "message": "Input should be greater than or equal to 1"}]


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer wrong", "Basic abc"])
def test_missing_or_bad_token_is_401(app, header):
    headers = {"Authorization": header} if header else {}
    response = app.test_client().post("/api/v1/plans", json={"usage": DAILY}, headers=headers)
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthorized"
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_api_needs_no_csrf_and_writes_an_audit_event(api, app):
    assert api(json={"usage": DAILY}).status_code == 200
    with app.app_context():
        with write_session() as s:
            from service.web.tables import AuditEvent
            assert s.query(AuditEvent).filter_by(action="api.plan").count() == 1


def test_too_large_body_is_413_json(api, app):
    app.config["MAX_CONTENT_LENGTH"] = 100
    response = api(json={"usage": DAILY})
    assert response.status_code == 413 and response.get_json()["error"]["code"] == "too_large"


def test_accept_xlsx_returns_the_workbook(api):
    import openpyxl
    response = api(json={"usage": DAILY}, headers={"Accept": XLSX})
    assert response.status_code == 200 and response.mimetype == XLSX
    assert openpyxl.load_workbook(io.BytesIO(response.data)).sheetnames


def test_plan_document_round_trips_as_strict_json(api):
    text = api(json={"usage": DAILY}).get_data(as_text=True)
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
