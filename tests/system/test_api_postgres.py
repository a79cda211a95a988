"""The key persistence and API scenarios on both databases: SQLite and a real PostgreSQL.

One PostgreSQL server (tests/support/pg_server.py, on loopback) serves the whole module; every test on
it gets a fresh database (CREATE DATABASE) seeded like conftest's SQLite template (the fixtures are in tests/system/conftest.py): the users and
ana's scenario 1 and rex's scenario 2. Nothing is skipped: without PostgreSQL the server fixture
raises and every postgresql case fails loudly.
"""
from __future__ import annotations

import io
import json
import re

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DatabaseError

from service.web.tables import (AuditEvent, PlanRecord, Review, Revision, ScenarioRecord, UsageFile,
                        User)
from service.web.db import write_session
from tests.support.client import count, form_data, revision_hash
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

pytestmark = pytest.mark.postgres
R1 = "/scenarios/1/revisions/1"
DAILY = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0 + d} for d in range(1, 29)]


def assumptions(app, revision_id: int) -> dict:
    with app.app_context():
        with write_session() as s:
            return s.get(Revision, revision_id).assumptions_dict


def test_create_scenario_saves_revision_and_audit(db_app, as_user):
    client = as_user("otto")
    from models.scenario import Scenario
    data = form_data({**Scenario().model_dump(mode="json"), "name": "otto on the database"})
    before = count(db_app, AuditEvent)
    response = client.post("/scenarios/new", data)
    assert response.status_code == 302
    sid = int(response.headers["Location"].rsplit("/", 1)[1])
    assert "otto on the database" in client.get(f"/scenarios/{sid}").get_data(as_text=True)
    with db_app.app_context():
        with write_session() as s:
            revision = s.scalar(select(Revision).where(Revision.scenario_id == sid))
            assert revision.number == 1 and revision.usage_file_id is None
            actions = s.scalars(select(AuditEvent.action).where(AuditEvent.id > before)).all()
    assert actions == ["scenario.create", "revision.create"]


def test_revise_keeps_the_old_revision_and_compare_shows_the_diff(db_app, as_user):
    client = as_user("ana")
    old = assumptions(db_app, 1)
    data = form_data(old)
    data["spot.discount"] = "60"  # percent, as typed
    assert client.post("/scenarios/1/edit", data).status_code == 302
    assert assumptions(db_app, 1) == old                      # revision 1 never changes
    assert assumptions(db_app, 3)["spot"]["discount"] == 0.6  # scenario 1's revision 2 (id 3)
    assert count(db_app, PlanRecord) == 3                     # its plan cached with it
    html = client.get("/scenarios/1/compare?a=1&b=2").get_data(as_text=True)
    assert "spot.discount" in html or "Spot" in html


def test_upload_attach_stores_the_file_by_content(db_app, as_user):
    client = as_user("ana")
    csv = b"timestamp,gpu_hours\n" + b"".join(f"2026-03-{d:02d},{100 + d}\n".encode()
                                               for d in range(1, 29))
    response = client.post("/scenarios/1/usage", {"usage": (io.BytesIO(csv), "../x\x00.csv")},
                           content_type="multipart/form-data")
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    file_id = int(re.search(r"/usage/(\d+)/attach", response.get_data(as_text=True)).group(1))
    assert client.post(f"/scenarios/1/usage/{file_id}/attach").status_code == 302
    with db_app.app_context():
        with write_session() as s:
            stored = s.get(UsageFile, file_id)
            assert stored.data == csv and stored.filename == "x.csv"
    assert client.get("/scenarios/1/revisions/2/usage/original").get_data() == csv
    safe = client.get("/scenarios/1/revisions/2/usage").get_data()   # quoted, formulas escaped
    assert safe.replace(b'"', b"") == csv


def test_review_binds_to_its_revision(db_app, as_user):
    rita = as_user("rita")
    assert rita.post(R1 + "/reviews", {"decision": "approve", "comment": "fine",
                                       "revision_hash": revision_hash(db_app)}
                     ).status_code == 302
    assert "binds to revision 1" in rita.get(R1).get_data(as_text=True)
    assert as_user("rex").post("/scenarios/2/revisions/1/reviews",
                               {"decision": "approve", "revision_hash": revision_hash(db_app, 2)}
                               ).status_code == 403
    data = form_data(assumptions(db_app, 1))
    data["spot.discount"] = "60"  # percent, as typed
    assert as_user("ana").post("/scenarios/1/edit", data).status_code == 302
    html = rita.get("/scenarios/1/revisions/2").get_data(as_text=True)
    assert "Not approved: revision 2 has no approval" in html
    with db_app.app_context():
        with write_session() as s:
            assert s.scalar(select(Review.decision)) == "approve"
            event = s.scalar(select(AuditEvent).where(AuditEvent.action == "review.approve"))
            assert event.revision_hash == s.get(Revision, 1).content_hash


def test_audit_and_revisions_are_append_only(db_app):
    statements = ["UPDATE audit_events SET actor = 'x'", "DELETE FROM audit_events",
                  "UPDATE revisions SET note = 'x'", "DELETE FROM revisions"]
    if db_app.extensions["buyrent_engine"].dialect.name == "postgresql":
        statements.append("TRUNCATE audit_events CASCADE")
    before = count(db_app, AuditEvent)
    for statement in statements:
        with pytest.raises(DatabaseError, match="append-only"):
            with db_app.app_context():
                with write_session() as s:
                    s.execute(text(statement))
    assert count(db_app, AuditEvent) == before


def test_plan_via_api_json_and_multipart_is_audited(db_app):
    from service.web.users import create_token
    with db_app.app_context():
        with write_session() as s:
            token = create_token(s, s.scalar(select(User).where(User.username == "ana")), "t")
    client = db_app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    response = client.post("/api/v1/plans", headers=headers,
                           json={"scenario": {"finance": {"horizon_months": 12}},
                                 "usage": DAILY})
    assert response.status_code == 200
    assert len(response.get_json()["months"]) == 12
    response = client.post("/api/v1/plans", headers=headers, content_type="multipart/form-data",
                           data={"usage": (io.BytesIO(SAMPLE_USAGE.read_bytes()), "usage.csv"),
                                 "scenario": SAMPLE_SCENARIO.read_text()})
    assert response.status_code == 200
    assert response.get_json()["scenario"]["name"] == json.loads(
        SAMPLE_SCENARIO.read_text())["name"]
    bad = client.post("/api/v1/plans", headers={"Authorization": "Bearer nope"}, json={})
    assert bad.status_code == 401 and bad.get_json()["error"]["code"] == "unauthorized"
    with db_app.app_context():
        with write_session() as s:
            events = s.scalars(select(AuditEvent).where(AuditEvent.action == "api.plan")).all()
    assert len(events) == 2 and all(e.actor == "ana" for e in events)
    assert count(db_app, ScenarioRecord) == 2                 # the API stores no scenario
