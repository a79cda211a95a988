"""Every bad input answered, none a 500 (issue 23): the browser's JSON endpoints, the API and the
uploads refuse what the engine or the readers cannot take, with a message naming it."""
from __future__ import annotations

import io
import json

import pytest

from service.web.db import write_session
from service.web.tables import Revision
from tests.support.client import form_data


def saved_form(app, revision_id: int = 1) -> dict:
    """What the edit form posts for a stored revision."""
    with app.app_context():
        with write_session() as s:
            return form_data(s.get(Revision, revision_id).assumptions_dict)


def test_live_preview_of_demand_past_ten_million_gpus_is_a_plan_error(login, app):
    # The sample (a peak of about 200 GPUs) growing 1,000 % a year for 20 years needs 200 x
    # 11^20 GPUs at the end; the engine refuses past 10,000,000 in an hour (models.profile).
    # Before: OverflowError in models/splits.py, a 500 answered as an HTML page.
    data = saved_form(app)
    data["profile.growth_annual"] = "1000"          # percent, as the form takes it
    data["finance.horizon_months"] = "240"
    response = login("ana").post("/scenarios/1/preview", data)
    assert response.status_code == 200 and response.is_json
    body = response.get_json()
    # 240 months is a heavy preview: only a job plans it (live_views.heavy); the job fails
    # with the engine's refusal, which the form shows as the plan's error
    assert body["valid"] and body["pending"] and "cards_html" not in body
    job = login("ana").client.get(body["job_url"]).get_json()["job"]
    assert job["state"] == "failed"
    assert "profile.growth_annual" in job["error"]
    assert "a plan holds at most 10,000,000 GPUs in any hour" in job["error"]


def test_json_endpoints_answer_errors_in_json(login, app, monkeypatch):
    # An unexpected failure behind the live plan is a JSON error with its id, which the form's
    # script can read; before, the generic HTML error page came back from a JSON endpoint.
    import service.scenarios.live_views as live_views

    def broken(*_args):
        raise RuntimeError("an engine bug")
    monkeypatch.setattr(live_views, "read_plan", broken)
    client = login("ana")
    response = client.post("/scenarios/1/preview", saved_form(app))
    assert response.status_code == 500 and response.is_json
    error = response.get_json()["error"]
    assert error["code"] == "internal_error" and error["details"][0]["error_id"]
    # a refusal of the browser's own making (no CSRF token) is JSON there too, HTML elsewhere
    bare = client.client.post("/scenarios/validate", data={})
    assert bare.status_code == 400 and bare.get_json()["error"]["code"] == "bad_request"
    page = client.client.post("/scenarios/1/import", data={})
    assert page.status_code == 400 and not page.is_json


HUGE = "9" * 400   # GPU-hours of 400 digits: pandas.to_numeric raised OverflowError (a 500)
HUGE_CSV = f"timestamp,gpu_hours\n2026-01,10\n2026-02,{HUGE}\n".encode()
TOO_LARGE = "'" + "9" * 80 + "'... (400 characters) is too large; expected a number >= 0"


def test_api_refuses_a_400_digit_gpu_hours_file_by_row_and_column(api):
    response = api(data={"usage": (io.BytesIO(HUGE_CSV), "usage.csv"), "scenario": "{}"},
                   content_type="multipart/form-data")
    assert response.status_code == 422
    detail = response.get_json()["error"]["details"][0]
    assert (detail["row"], detail["column"], detail["message"]) == (3, "gpu_hours", TOO_LARGE)


def test_api_refuses_a_400_digit_gpu_hours_json_row(api):
    # a JSON number of 400 digits is a Python int; pydantic names the row's field
    body = b'{"usage": [{"timestamp": "2026-01", "gpu_hours": 10}, ' \
           b'{"timestamp": "2026-02", "gpu_hours": ' + HUGE.encode() + b'}]}'
    response = api(data=body, content_type="application/json")
    assert response.status_code == 422, response.get_data(as_text=True)
    details = response.get_json()["error"]["details"]
    assert details[0]["field"] == "usage.1.gpu_hours"


def test_web_upload_refuses_a_400_digit_gpu_hours_file_by_row_and_column(login):
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(HUGE_CSV), "usage.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "<td>3</td><td>gpu_hours</td>" in page and "is too large" in page


def test_web_upload_of_a_monthly_file_from_1900_to_9999_is_refused(login):
    # 97,200 months: accepted before, 10 s and a 2.6 MB preview page; now a 422 naming the
    # first and last period. Past UPLOAD_JOB_ROWS it is read by an upload job (the test
    # client's queue runs it when it is queued): the preview page it leads to says why.
    months = [f"{year}-{month:02d}" for year in range(1900, 10_000) for month in range(1, 13)]
    data = ("timestamp,gpu_hours\n" + "".join(f"{m},100\n" for m in months)).encode()
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (io.BytesIO(data), "usage.csv")},
                                 content_type="multipart/form-data", follow_redirects=True)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "the timestamps run from 1900-01 to 9999-12: more than 20 years" in page
    assert len(page) < 20_000



@pytest.mark.parametrize("servers", ["8", True, "1_0", " 8 ", 8.5, [8]])
def test_a_wrong_json_type_for_proposed_servers_is_a_422_naming_it(api, servers):
    # JSON's own types: "8" and true were read as 8 and 1 servers before (the OpenAPI document
    # says integer); now refused, in a JSON body and in a multipart scenario part alike
    days = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0} for d in range(1, 29)]
    scenario = {"proposed": {"servers": servers}}
    for response in (api(json={"scenario": scenario, "usage": days}),
                     api(data={"usage": (io.BytesIO(HUGE_CSV.replace(HUGE.encode(), b"5")),
                                         "usage.csv"), "scenario": json.dumps(scenario)},
                         content_type="multipart/form-data")):
        assert response.status_code == 422
        assert response.get_json()["error"]["details"] == [
            {"field": "proposed.servers", "message": "Input should be a valid integer"}]


@pytest.mark.parametrize("method, url, allow", [
    ("GET", "/api/v1/plans", "POST, OPTIONS"),
    ("POST", "/api/v1/openapi.json", "GET, HEAD, OPTIONS"),
    ("DELETE", "/login", "GET, POST, HEAD, OPTIONS"),
])
def test_405_answers_carry_allow(app, method, url, allow):
    # RFC 9110 15.5.6: a 405 lists the methods the resource takes; the error handlers built
    # a new response and dropped werkzeug's Allow header
    response = app.test_client().open(url, method=method)
    assert response.status_code == 405
    assert sorted(response.headers["Allow"].split(", ")) == sorted(allow.split(", "))
