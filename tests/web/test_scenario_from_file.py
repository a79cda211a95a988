"""A scenario from a file (issue 39, item 1): "New scenario from a file" on the scenarios page
(a scenario JSON or a buyrent workbook) and ``POST /api/v1/scenarios`` (a scenario JSON body),
both read by the command line's loader, both saving revision 1 as the form's Save does."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import openpyxl
import pytest
from sqlalchemy import func, select

from models.scenario import Scenario, scenario_from_json
from service.cli.plan_compute import load_scenario
from service.web.db import write_session
from service.web.tables import AuditEvent, Revision, ScenarioRecord, User
from service.web.users import create_token
from tests.support.client import count
from tests.support.paths import SAMPLES

SAMPLE_FILES = [SAMPLES / "scenario_generations.json", SAMPLES / "scenario_robust.json"]
KO = {"Accept-Language": "ko-KR,ko;q=0.9"}
BAD_PUE = b'{"name": "bad", "owned": {"pue": 0.5}}'


def upload(client, data: bytes, filename: str, **kw):
    return client.post("/scenarios/from-file",
                       data={"scenario_file": (io.BytesIO(data), filename)},
                       content_type="multipart/form-data", **kw)


def first_revision(app, scenario_id: int) -> Revision:
    with app.app_context():
        with write_session() as s:
            revision = s.scalar(select(Revision).where(Revision.scenario_id == scenario_id,
                                                       Revision.number == 1))
            s.expunge(revision)
            return revision


def leaves(value, prefix: str = "") -> dict:
    """Every value of a JSON document by its path, lists by index."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return {prefix: value}
    out = {}
    for key, inner in items:
        out.update(leaves(inner, f"{prefix}.{key}" if prefix else str(key)))
    return out


def assert_saved_as_the_file(app, scenario_id: int, path: Path) -> None:
    """The saved revision's scenario is the file's: the same model, and every value the file
    gives saved as it gives it."""
    revision = first_revision(app, scenario_id)
    saved = Scenario.model_validate_json(revision.assumptions)
    assert saved == scenario_from_json(path.read_bytes()) == load_scenario(path)
    given, stored = leaves(json.loads(path.read_text())), leaves(json.loads(revision.assumptions))
    assert given and all(stored[key] == value for key, value in given.items()), \
        {key: (value, stored.get(key)) for key, value in given.items() if stored.get(key) != value}
    assert revision.usage_file_id is None and revision.number == 1


def error_block(html: str) -> str:
    return re.search(r'<div class="error" role="alert" id="file-errors">.*?</div>', html,
                     re.S).group(0)


# -- the page -------------------------------------------------------------------------------

def test_the_scenarios_page_offers_a_file(login):
    html = login("ana").get("/scenarios/").get_data(as_text=True)
    form = re.search(r'<form [^>]*id="from-file-form".*?</form>', html, re.S).group(0)
    assert 'action="/scenarios/from-file"' in form and 'enctype="multipart/form-data"' in form
    assert 'accept=".json,.xlsx,application/json"' in form
    assert 'name="csrf_token"' in form and 'name="idempotency_key"' in form
    assert "New scenario from a file" in form


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_a_sample_file_becomes_a_saved_scenario(app, login, path):
    ana = login("ana")
    before = count(app, ScenarioRecord)
    response = upload(ana, path.read_bytes(), path.name)
    assert response.status_code == 302, response.get_data(as_text=True)[-1500:]
    scenario_id = int(re.fullmatch(r"/scenarios/(\d+)", response.headers["Location"]).group(1))
    assert count(app, ScenarioRecord) == before + 1
    assert_saved_as_the_file(app, scenario_id, path)
    revision = first_revision(app, scenario_id)
    assert revision.note == f"created from {path.name}"
    with app.app_context():
        with write_session() as s:
            scenario = s.get(ScenarioRecord, scenario_id)
            # the scenario's own name, as the form's Save names it; owned by who uploaded
            assert scenario.name == json.loads(path.read_text())["name"]
            assert scenario.owner.username == "ana"
    page = ana.get(response.headers["Location"]).get_data(as_text=True)
    assert f"Scenario saved from {path.name}" in page
    assert f"created from {path.name}" in page


def test_a_plan_workbook_becomes_a_saved_scenario(app, login):
    """The workbook of a plan, read by the edit page's reader, gives back its scenario."""
    ana = login("ana")
    workbook = ana.get("/scenarios/1/revisions/1/plan.xlsx").data
    response = upload(ana, workbook, "plan.xlsx")
    assert response.status_code == 302, error_block(response.get_data(as_text=True))
    scenario_id = int(response.headers["Location"].rsplit("/", 1)[1])
    saved = first_revision(app, scenario_id).assumptions_dict
    assert saved == first_revision(app, 1).assumptions_dict


def test_an_old_file_loads_as_the_command_line_loads_it(app, login, tmp_path):
    """Flat uncertainty keys of before the ranges mapping: upgraded by the schema, alike."""
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"name": "old", "uncertainty": {"server_price_low": -0.2,
                                                              "pue_high": 0.3}}))
    response = upload(login("ana"), old.read_bytes(), old.name)
    assert response.status_code == 302
    saved = Scenario.model_validate_json(
        first_revision(app, int(response.headers["Location"].rsplit("/", 1)[1])).assumptions)
    assert saved == load_scenario(old)
    assert saved.uncertainty.ranges.server_price.low == -0.2
    assert saved.uncertainty.ranges.pue.high == 0.3


def test_a_bad_field_is_named_by_its_label_and_nothing_is_saved(app, login):
    ana = login("ana")
    before = (count(app, ScenarioRecord), count(app, Revision))
    response = upload(ana, BAD_PUE, "bad.json")
    assert response.status_code == 422
    block = error_block(response.get_data(as_text=True))
    assert "bad.json: The file&#39;s scenario is invalid:" in block
    assert re.search(r"<td>Owned servers: PUE</td><td>Input should be greater than or equal to "
                     r"1</td>", block)
    assert "owned.pue" not in block and "Nothing was saved." in block
    assert (count(app, ScenarioRecord), count(app, Revision)) == before


def test_a_row_of_a_table_is_named_by_its_row(login):
    data = json.loads((SAMPLES / "scenario_robust.json").read_text())
    data["staging"]["demand_scenarios"][1]["probability"] = 2
    block = error_block(upload(login("ana"), json.dumps(data).encode(), "r.json")
                        .get_data(as_text=True))
    assert "<td>Demand scenario 2: Probability</td>" in block
    assert "demand_scenarios" not in block


def test_a_number_written_as_text_is_refused_as_the_command_line_refuses_it(login, tmp_path):
    """The JSON's types are checked strictly, as ``buyrent plan --scenario`` checks them."""
    text = b'{"finance": {"horizon_months": "12"}}'
    (tmp_path / "t.json").write_bytes(text)
    with pytest.raises(Exception, match="finance.horizon_months"):
        load_scenario(tmp_path / "t.json")
    block = error_block(upload(login("ana"), text, "t.json").get_data(as_text=True))
    assert "<td>Finance: Horizon</td><td>Input should be a valid integer</td>" in block


def test_a_bad_value_in_a_workbook_names_its_label_and_its_cell(app, login):
    ana = login("ana")
    book = openpyxl.load_workbook(io.BytesIO(ana.get("/scenarios/1/revisions/1/plan.xlsx").data))
    sheet = book["Assumptions"]
    row = next(r for r in range(1, sheet.max_row + 1) if sheet.cell(r, 1).value == "owned.pue")
    sheet.cell(row, 3).value = 0.5
    out = io.BytesIO()
    book.save(out)
    before = count(app, ScenarioRecord)
    response = upload(ana, out.getvalue(), "edited.xlsx")
    assert response.status_code == 422
    block = error_block(response.get_data(as_text=True))
    assert "The workbook&#39;s scenario is invalid:" in block
    assert re.search(rf"<td>Owned servers: PUE</td><td>Assumptions!C{row}</td><td>Input should "
                     r"be greater than or equal to 1</td>", block)
    assert count(app, ScenarioRecord) == before


@pytest.mark.parametrize("data,filename,sentence", [
    (b"{nope", "x.json", "x.json: The file is not JSON (line 1, column 2 cannot be read)"),
    (b'{"name": "a",\n "finance": {horizon_months: 12}}', "y.json",
     "The file is not JSON (line 2, column 14 cannot be read)"),
    (b"timestamp,gpu_hours\n2026-01,5\n", "usage.csv", "The file is not JSON"),
    (b"", "empty.json", "The file is empty: choose a scenario file (.json) or a buyrent "
                        "workbook (.xlsx)."),
    (b"  \n", "blank.json", "The file is empty"),
    (b"[1, 2]", "list.json", "The file holds JSON but not a scenario"),
    (b'"text"', "text.json", "The file holds JSON but not a scenario"),
    (b'{"name": "\xff"}', "latin.json", "The file is not UTF-8 text"),
    (b"[" * 100_000, "deep.json", "The file&#39;s JSON is nested too deeply"),
    (b"junk", "junk.xlsx", "Cannot read the workbook: the file is not an .xlsx workbook"),
    (b"PK\x03\x04 not really a zip", "named.json", "Cannot read the workbook"),
])
def test_a_file_that_is_no_scenario_is_refused_with_a_sentence(app, login, data, filename,
                                                                 sentence):
    before = count(app, ScenarioRecord)
    response = upload(login("ana"), data, filename)
    assert response.status_code == 422
    block = error_block(response.get_data(as_text=True))
    assert sentence in block and "Nothing was saved." in block
    assert 'id="file-problems"' not in block
    assert count(app, ScenarioRecord) == before


def test_no_file_chosen_is_refused(login):
    ana = login("ana")
    response = ana.post("/scenarios/from-file", {}, content_type="multipart/form-data")
    assert response.status_code == 422
    assert "Choose a scenario file (.json) or a buyrent workbook (.xlsx)." in \
        error_block(response.get_data(as_text=True))


def test_the_refusals_read_in_korean(login):
    ana = login("ana")
    block = error_block(upload(ana, BAD_PUE, "bad.json", headers=KO).get_data(as_text=True))
    assert "파일의 시나리오가 올바르지 않습니다:" in block
    assert "<td>자체 보유 서버: PUE</td><td>1 이상이어야 합니다</td>" in block
    assert "아무것도 저장하지 않았습니다." in block
    block = error_block(upload(ana, b"{nope", "x.json", headers=KO).get_data(as_text=True))
    assert "파일이 JSON이 아닙니다(1행 2열을 읽을 수 없음)" in block
    block = error_block(upload(ana, b"junk", "w.xlsx", headers=KO).get_data(as_text=True))
    assert "워크북을 읽을 수 없습니다: .xlsx 워크북이 아닙니다(zip 컨테이너가 아님)" in block
    assert not re.search(r"[A-Za-z]{3,}", re.sub(r"\.xlsx|w\.xlsx|zip|<[^>]+>", "", block))


def test_a_message_no_translation_knows_is_marked_english(app):
    """A Korean page marks pydantic's own English (lang="en"), never a translated message."""
    from service.i18n import using_locale
    from service.scenarios.from_file import problem
    with app.test_request_context(), using_locale("ko"):
        unknown = problem({"loc": ("owned", "financing", "loan", "apr"),
                           "msg": "Value error, a rule no catalog knows", "type": "value_error"})
        known = problem({"loc": ("owned", "pue"), "msg": "Input should be greater than or "
                         "equal to 1", "type": "greater_than_equal", "ctx": {"ge": 1}})
        whole = problem({"loc": (), "msg": "Input should be an object", "type": "model_type"})
    assert (unknown.label, unknown.message, unknown.english) == \
        ("자체 보유 서버: 대출 연이율(APR)", "a rule no catalog knows", True)
    assert (known.label, known.message, known.english) == ("자체 보유 서버: PUE",
                                                           "1 이상이어야 합니다", False)
    assert whole.label == "시나리오"


def test_the_form_needs_a_login_and_its_csrf_token(app, browser, login):
    response = upload(browser, BAD_PUE, "bad.json")      # logged out, with a CSRF token
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    ana = login("ana")
    before = count(app, ScenarioRecord)
    path = SAMPLE_FILES[0]
    response = ana.client.post("/scenarios/from-file",
                               data={"scenario_file": (io.BytesIO(path.read_bytes()), path.name)},
                               content_type="multipart/form-data")
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert count(app, ScenarioRecord) == before


def test_a_form_sent_twice_saves_one_scenario(app, login):
    ana = login("ana")
    path = SAMPLE_FILES[1]
    before = count(app, ScenarioRecord)
    sent = [ana.post("/scenarios/from-file",
                     {"scenario_file": (io.BytesIO(path.read_bytes()), path.name),
                      "idempotency_key": "from-file-key-1"},
                     content_type="multipart/form-data") for _ in range(2)]
    assert [r.status_code for r in sent] == [302, 302]
    assert sent[0].headers["Location"] == sent[1].headers["Location"]
    assert sent[1].headers["Idempotent-Replayed"] == "true"
    assert count(app, ScenarioRecord) == before + 1


def test_every_role_may_create_a_scenario_from_a_file(app, login):
    """As the form's "New scenario": any logged-in user, the scenario their own."""
    for name in ("otto", "rita", "root"):
        response = upload(login(name), SAMPLE_FILES[0].read_bytes(), SAMPLE_FILES[0].name)
        assert response.status_code == 302, name
        revision = first_revision(app, int(response.headers["Location"].rsplit("/", 1)[1]))
        with app.app_context():
            with write_session() as s:
                assert s.get(User, revision.author_id).username == name


def test_a_file_over_the_upload_limit_is_refused(app, login):
    app.config["MAX_CONTENT_LENGTH"] = 2048
    before = count(app, ScenarioRecord)
    response = upload(login("ana"), b'{"name": "' + b"x" * 4096 + b'"}', "big.json")
    assert response.status_code == 413
    assert count(app, ScenarioRecord) == before


# -- the API --------------------------------------------------------------------------------

@pytest.fixture
def api_token(app):
    with app.app_context():
        with write_session() as s:
            return create_token(s, s.query(User).filter_by(username="ana").one(), "test")


def api_post(app, token: str | None, body, **headers):
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    kw = {"json": body} if not isinstance(body, bytes) else \
        {"data": body, "content_type": headers.pop("content_type", "application/json")}
    return app.test_client().post("/api/v1/scenarios", headers={**auth, **headers}, **kw)


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_api_creates_a_scenario_from_a_sample_file(app, api_token, path):
    before = count(app, ScenarioRecord)
    response = api_post(app, api_token, path.read_bytes())
    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    scenario_id = body["scenario_id"]
    assert response.headers["Location"] == body["url"] == f"/scenarios/{scenario_id}"
    assert body["revisions"] == f"/api/v1/scenarios/{scenario_id}/revisions"
    assert body["number"] == 1 and body["usage_sha256"] is None
    assert body["content_hash"] == first_revision(app, scenario_id).content_hash
    assert count(app, ScenarioRecord) == before + 1
    assert_saved_as_the_file(app, scenario_id, path)
    assert first_revision(app, scenario_id).note == "created through the API"
    listed = app.test_client().get(body["revisions"],
                                   headers={"Authorization": f"Bearer {api_token}"})
    assert listed.get_json()["revisions"] == [{k: body[k] for k in
                                               ("scenario_id", "number", "content_hash",
                                                "usage_sha256")}]
    with app.app_context():
        with write_session() as s:
            assert s.scalar(select(func.count()).select_from(AuditEvent).where(
                AuditEvent.action == "scenario.create", AuditEvent.scenario_id == scenario_id
            )) == 1


def test_api_an_empty_object_is_the_default_scenario(app, api_token):
    response = api_post(app, api_token, {})
    assert response.status_code == 201
    saved = first_revision(app, response.get_json()["scenario_id"]).assumptions
    assert Scenario.model_validate_json(saved) == Scenario()


def test_api_refuses_bad_fields_by_path_and_saves_nothing(app, api_token):
    before = (count(app, ScenarioRecord), count(app, Revision))
    response = api_post(app, api_token, {"owned": {"pue": 0.5},
                                         "finance": {"horizon_months": "12"}, "bogus": 1})
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "invalid_input" and error["message"] == "The scenario is invalid."
    assert sorted(error["details"], key=lambda d: d["field"]) == [
        {"field": "bogus", "message": "Extra inputs are not permitted"},
        {"field": "finance.horizon_months", "message": "Input should be a valid integer"},
        {"field": "owned.pue", "message": "Input should be greater than or equal to 1"}]
    assert (count(app, ScenarioRecord), count(app, Revision)) == before


def test_api_refusals_in_korean(app, api_token):
    response = api_post(app, api_token, {"owned": {"pue": 0.5}}, **{"Accept-Language": "ko"})
    error = response.get_json()["error"]
    assert error["message"] == "시나리오가 올바르지 않습니다."
    assert error["details"] == [{"field": "owned.pue", "message": "1 이상이어야 합니다"}]


@pytest.mark.parametrize("body,content_type,status,code", [
    (b"{nope", "application/json", 400, "bad_request"),
    (b"[1, 2]", "application/json", 400, "bad_request"),
    (b"", "application/json", 400, "bad_request"),
    (b"{}", "text/plain", 415, "unsupported_media_type"),
])
def test_api_refuses_a_body_that_is_no_json_object(app, api_token, body, content_type, status,
                                                  code):
    before = count(app, ScenarioRecord)
    response = api_post(app, api_token, body, content_type=content_type)
    assert response.status_code == status
    assert response.get_json()["error"]["code"] == code
    assert count(app, ScenarioRecord) == before


@pytest.mark.parametrize("token", [None, "wrong"])
def test_api_needs_a_token(app, token):
    before = count(app, ScenarioRecord)
    response = api_post(app, token, {})
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthorized"
    assert count(app, ScenarioRecord) == before


def test_api_a_retry_with_its_key_answers_the_same_and_saves_once(app, api_token):
    before = count(app, ScenarioRecord)
    first, second = (api_post(app, api_token, {"name": "retried"},
                              **{"Idempotency-Key": "create-once-1"}) for _ in range(2))
    assert first.status_code == second.status_code == 201
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.get_json() == first.get_json()
    assert second.headers["Location"] == first.headers["Location"]
    assert count(app, ScenarioRecord) == before + 1
    other = api_post(app, api_token, {"name": "another"}, **{"Idempotency-Key": "create-once-1"})
    assert other.status_code == 422 and count(app, ScenarioRecord) == before + 1


def test_api_every_role_may_create(app):
    for name in ("otto", "rita", "root"):
        with app.app_context():
            with write_session() as s:
                token = create_token(s, s.query(User).filter_by(username=name).one(), "t")
        response = api_post(app, token, {"name": f"{name}'s"})
        assert response.status_code == 201, name


def test_api_a_body_over_the_upload_limit_is_refused(app, api_token):
    app.config["MAX_CONTENT_LENGTH"] = 2048
    response = api_post(app, api_token, {"name": "x" * 4096})
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "too_large"
