"""The owned fleet's FOCUS export on the web and in the API (issue 43, item 1): a download link
on the plan page and on the Plan vs actual page, the CSV made from the stored plan document,
and ``GET /api/v1/scenarios/<id>/revisions/<n>/focus-owned.csv``, which is what
``buyrent focus-export`` writes for the revision's plan.json; refusals in English and Korean."""
from __future__ import annotations

import csv
import io
import json

from sqlalchemy import select

from service.cli.main import main as buyrent
from service.focus_export import focus_csv
from service.web.db import write_session
from service.web.tables import AuditEvent, User
from service.web.users import create_token
from tests.support.client import revision_hash

R1 = "/scenarios/1/revisions/1"
API = "/api/v1/scenarios/1/revisions/1/focus-owned.csv"


def tokens(app, *names):
    with app.app_context():
        with write_session() as s:
            return [{"Authorization": "Bearer " + create_token(
                s, s.query(User).filter_by(username=n).one(), "test")} for n in names]


def plan_doc(login) -> dict:
    return json.loads(login("ana").get(R1 + "/plan.json").get_data())


def approve(login, app, strategy):
    assert login("rita").post(R1 + "/reviews", {
        "decision": "approve", "comment": "ok", "strategy": strategy,
        "revision_hash": revision_hash(app)}).status_code == 302


def test_plan_page_links_the_recommended_strategys_owned_rows(login, app):
    doc = plan_doc(login)
    name = doc["recommendation"]
    assert any(m["owned_gpu_hours"] > 0 for m in doc["strategies"][name]["monthly"])
    ana = login("ana")
    html = ana.get(R1).get_data(as_text=True)
    assert 'id="download-focus-owned"' in html and f"strategy={name}" in html
    assert "as FOCUS rows (CSV)" in html
    korean = ana.get(R1, headers={"Accept-Language": "ko"}).get_data(as_text=True)
    assert 'id="download-focus-owned"' in korean and "as FOCUS rows" not in korean
    response = ana.get(R1 + f"/focus-owned.csv?strategy={name}&version=1.4")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert f"-{name}-focus-1.4-owned.csv" in response.headers["Content-Disposition"]
    assert response.get_data(as_text=True) == focus_csv(
        doc, name, "1.4", account_id="scenario-1", account_name=doc["scenario"]["name"])
    with app.app_context():
        with write_session() as s:
            details = [e.details for e in s.scalars(select(AuditEvent).where(
                AuditEvent.action == "download"))]
    assert f"focus-owned.csv [strategy {name}]" in details


def test_plan_vs_actual_links_the_approved_strategy_only_with_an_owned_fleet(login, app):
    doc = plan_doc(login)
    name = doc["recommendation"]
    approve(login, app, name)
    page = login("ana").get(R1 + "/actual").get_data(as_text=True)
    assert 'id="download-focus-owned"' in page and f"strategy={name}" in page
    approve(login, app, "cloud_only")
    page = login("ana").get(R1 + "/actual").get_data(as_text=True)
    assert 'id="download-focus-owned"' not in page
    # the approved strategy is the download's default
    assert login("ana").get(R1 + "/focus-owned.csv").status_code == 409


def test_api_is_the_commands_csv(app, login, tmp_path, capsys):
    doc = plan_doc(login)
    name = doc["recommendation"]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc), encoding="utf-8")
    (ana,) = tokens(app, "ana")
    client = app.test_client()
    api = client.get(API + "?version=1.3", headers=ana)
    assert api.status_code == 200 and api.mimetype == "text/csv"
    capsys.readouterr()
    assert buyrent(["focus-export", "--plan", str(plan), "--strategy", name]) == 0
    cli = capsys.readouterr().out
    # the same rows; the account id is the scenario's on the service ("buyrent" on the CLI)
    def rows(text):
        return [{k: v for k, v in r.items() if k not in ("BillingAccountId", "SubAccountId")}
                for r in csv.DictReader(io.StringIO(text))]
    assert rows(api.get_data(as_text=True)) == rows(cli) and len(rows(cli)) > 12
    assert "scenario-1" in api.get_data(as_text=True)


def test_api_refusals_in_english_and_korean(app, login):
    (ana, otto) = tokens(app, "ana", "otto")
    client = app.test_client()
    refused = client.get(API + "?strategy=cloud_only", headers=ana)
    assert refused.status_code == 409
    english = refused.get_json()["error"]["message"]
    assert english == ("the strategy Cloud only (best mix) has no owned GPU-hours: there is "
                       "no owned fleet to export")
    korean = client.get(API + "?strategy=cloud_only",
                        headers={**ana, "Accept-Language": "ko"}).get_json()["error"]["message"]
    assert "보유" in korean and "cloud_only" not in korean and "Cloud only" not in korean
    assert client.get(API + "?version=2.0", headers=ana).status_code == 400
    assert client.get(API + "?strategy=nope", headers=ana).status_code == 404
    assert client.get(API, headers=otto).status_code == 404           # not his to see
    assert client.get("/api/v1/scenarios/1/revisions/9/focus-owned.csv",
                      headers=ana).status_code == 404
