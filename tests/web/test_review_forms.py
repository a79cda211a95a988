"""The short scenario form's pages (issue 16): essentials open and sections folded, validation
and live plan endpoints, progress, upload by script. The form itself (service/forms/scenario.py) is
tested in tests/web/test_forms.py."""
from __future__ import annotations

import re

import pytest

from service.web.tables import Revision
from service.forms.scenario import DEFAULTS
from service.paths import SAMPLES
from tests.support.client import ESSENTIALS, count, form_data


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
    assert set(body["charts"]) == {"months", "cumulative", "cumulative_lines", "text",
                                   "names"} and len(body["charts"]["months"]) == 60
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
        from service.web.db import write_session
        with write_session() as s:
            return s.get(Revision, revision_id).assumptions_dict


def test_edit_page_has_the_live_panel_and_no_inline_script(login):
    html = login("ana").get("/scenarios/1/edit").get_data(as_text=True)
    assert 'id="live-preview"' in html and "uncertainty section (tornado and Monte Carlo) " \
        "is skipped here" in html
    assert 'data-preview-url="/scenarios/1/preview"' in html
    assert not re.search(r"<script(?![^>]*(src=|type=\"application/json\"))", html)


def test_a_save_answers_with_the_revision_and_its_plan_job(login, app):
    # saving writes the revision and queues its plan (here run when enqueued: the test
    # client's immediate queue); the plan page and its job endpoint read what the job stored
    client = login("ana")
    data = form_data(_revision(app))
    data.update({"owned.server_price": "280000"})
    response = client.post("/scenarios/1/edit", data)
    assert response.status_code == 302
    assert "Saved as revision 2; its plan is being computed." in \
        client.get(response.headers["Location"]).get_data(as_text=True)
    state = client.get("/scenarios/1/revisions/2/job").get_json()
    assert state["complete"] is True and state["stage"] == "complete"
    assert client.get("/scenarios/1/revisions/2/plan.xlsx").status_code == 200
    assert login("otto").get("/scenarios/1/revisions/2/job").status_code == 404


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

