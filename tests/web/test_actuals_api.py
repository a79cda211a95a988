"""The JSON API of plan against actual (issue 43, item 4): GET/POST
/api/v1/scenarios/<id>/actuals and the variance document of an approved revision, which is the
document ``buyrent variance --json`` prints for the same plan and bills."""
from __future__ import annotations

import io
import json

from service.cli.main import main as buyrent
from service.web.db import write_session
from service.web.tables import ActualFile, ActualUpload, AuditEvent, User
from service.web.users import create_token
from tests.support.client import count, revision_hash
from tests.support.paths import SAMPLES

BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
URL = "/api/v1/scenarios/1/actuals"


def tokens(app, *names):
    with app.app_context():
        with write_session() as s:
            return [{"Authorization": "Bearer " + create_token(
                s, s.query(User).filter_by(username=n).one(), "test")} for n in names]


def post_bills(client, headers, files, **extra):
    data = {"bills": [(io.BytesIO(body), name) for name, body in files]}
    return client.post(URL, data=data, headers={**headers, **extra},
                       content_type="multipart/form-data")


def sample_files():
    return [(p.name, p.read_bytes()) for p in BILLS]


def approve_cloud_only(login, app):
    assert login("rita").post("/scenarios/1/revisions/1/reviews", {
        "decision": "approve", "comment": "ok", "strategy": "cloud_only",
        "revision_hash": revision_hash(app)}).status_code == 302


def test_actuals_through_the_api(app, login):
    client = app.test_client()
    ana, rita, otto = tokens(app, "ana", "rita", "otto")
    empty = client.get(URL, headers=ana).get_json()
    assert empty == {"scenario_id": 1, "baseline": None, "uploads": [], "variance": None,
                     "alert_settings": {"spend_over_plan": None, "commitment_utilization": None,
                                        "owned_utilization": None, "webhook": None},
                     "alerts": []}                      # issue 43, thresholds
    assert post_bills(client, ana, sample_files()).status_code == 409      # nothing approved
    approve_cloud_only(login, app)
    assert client.get(URL, headers=otto).status_code == 404
    assert post_bills(client, rita, sample_files()).status_code == 403
    assert client.post(URL, headers=ana, json={"bills": []}).status_code == 415
    response = post_bills(client, ana, sample_files(), **{"Idempotency-Key": "bills-2027-h1"})
    assert response.status_code == 201, response.get_data(as_text=True)
    saved = response.get_json()
    assert response.headers["Location"].endswith(URL) and saved["actuals"] == URL
    assert saved["upload"]["months"] == [f"2027-0{m}" for m in range(1, 7)]
    assert [f["filename"] for f in saved["upload"]["files"]] == [p.name for p in BILLS]
    assert saved["baseline"]["strategy"] == "cloud_only"
    assert not saved["baseline"]["recommended"]
    again = post_bills(client, ana, sample_files(), **{"Idempotency-Key": "bills-2027-h1"})
    assert again.status_code == 201 and again.get_json() == saved       # saved once
    assert (count(app, ActualUpload), count(app, ActualFile)) == (1, 6)
    body = client.get(URL, headers=ana).get_json()
    assert body["baseline"] == saved["baseline"] and body["uploads"] == [saved["upload"]]
    variance = body["variance"]
    for entry in variance["months"] + [variance["ytd"]]:
        assert sum(entry["parts_cents"].values()) == entry["total_cents"]
        assert {"volume", "mix", "price", "idle_commitments"} <= set(entry["parts"])
    assert variance["forecast"]["to_date"]["difference_cents"] == variance["ytd"]["total_cents"]
    assert client.get(URL, headers=rita).get_json() == body          # a reviewer reads it
    assert client.get(URL + "?revision=1", headers=ana).get_json() == body
    assert client.get(URL + "?revision=99", headers=ana).status_code == 404


def test_a_bad_bill_is_a_422_by_row_and_column_and_nothing_is_saved(app, login):
    client = app.test_client()
    (ana,) = tokens(app, "ana")
    approve_cloud_only(login, app)
    lines = BILLS[2].read_text().splitlines()
    header, row = lines[0].split(","), lines[3].split(",")
    row[header.index("ConsumedQuantity")] = "-5"
    row[header.index("PricingQuantity")] = "-5"
    lines[3] = ",".join(row)
    before = (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent))
    response = post_bills(client, ana, [("bad.csv", ("\n".join(lines) + "\n").encode())])
    assert response.status_code == 422, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == "invalid_input"
    assert any(d["row"] == 4 and d["column"] for d in error["details"]), error
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before
    korean = post_bills(client, ana, [("bad.csv", ("\n".join(lines) + "\n").encode())],
                        **{"Accept-Language": "ko"}).get_json()["error"]
    assert korean["message"] != error["message"] and "bad.csv" in korean["message"]


def test_the_variance_document_is_the_commands(app, login, tmp_path, capsys):
    client = app.test_client()
    (ana,) = tokens(app, "ana")
    approve_cloud_only(login, app)
    assert post_bills(client, ana, sample_files()).status_code == 201
    api = client.get("/api/v1/scenarios/1/revisions/1/variance", headers=ana)
    assert api.status_code == 200
    plan = tmp_path / "plan.json"
    plan.write_bytes(login("ana").get("/scenarios/1/revisions/1/plan.json").get_data())
    capsys.readouterr()
    assert buyrent(["variance", "--plan", str(plan), *map(str, BILLS), "--strategy",
                    "cloud_only", "--json"]) == 0
    assert api.get_json() == json.loads(capsys.readouterr().out)


def test_the_variance_of_a_revision_without_approval_or_actuals_is_refused(app, login):
    client = app.test_client()
    (ana,) = tokens(app, "ana")
    url = "/api/v1/scenarios/1/revisions/1/variance"
    assert client.get(url, headers=ana).status_code == 409            # not approved
    approve_cloud_only(login, app)
    response = client.get(url, headers=ana)
    assert response.status_code == 409 and "No actual bills" in \
        response.get_json()["error"]["message"]
    assert client.get("/api/v1/scenarios/1/revisions/7/variance", headers=ana).status_code \
        == 404
