"""Approvals and what they bind cannot be changed, and who read what is recorded (issue 12,
defects 5 and 6), on SQLite and on a real PostgreSQL (tests/system/conftest.py's fixtures).
The index of every defect and its test is in tests/web/test_hostile_web.py.
"""
from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DatabaseError

from models.scenario import Scenario
from service.web.tables import (AuditEvent, PlanRecord, Review, Revision, ScenarioRecord, UsageFile,
                        User)
from service.web.db import write_session
from service.plans.revisions import add_revision, create_scenario
from tests.support.client import count, form_data, revision_hash

pytestmark = pytest.mark.postgres
R1 = "/scenarios/1/revisions/1"
TABLES = (Review, PlanRecord, UsageFile, ScenarioRecord, Revision, AuditEvent)


def run(app, statement: str, **params) -> None:
    with app.app_context():
        with write_session() as s:
            s.execute(text(statement), params)


def counts(app) -> dict:
    return {model.__name__: count(app, model) for model in TABLES}


def approve_r1(as_user, app) -> None:
    response = as_user("rita").post(R1 + "/reviews", {"decision": "approve", "comment": "ok",
                                                      "revision_hash": revision_hash(app)})
    assert response.status_code == 302


def test_reviews_plans_usage_files_and_reviewed_scenarios_refuse_update_and_delete(
        db_app, as_user):
    approve_r1(as_user, db_app)
    statements = ["UPDATE reviews SET decision = 'reject'", "UPDATE reviews SET comment = 'x'",
                  "DELETE FROM reviews",
                  "UPDATE plans SET document = '{}'", "DELETE FROM plans",
                  "UPDATE usage_files SET filename = 'x.csv'", "DELETE FROM usage_files",
                  "UPDATE scenarios SET owner_id = (SELECT id FROM users WHERE username = "
                  "'otto') WHERE id = 1",
                  "UPDATE scenarios SET name = 'renamed behind the reviewer' WHERE id = 1",
                  "DELETE FROM scenarios WHERE id = 1"]
    if db_app.extensions["buyrent_engine"].dialect.name == "postgresql":
        statements += [f"TRUNCATE {table} CASCADE"
                       for table in ("reviews", "plans", "usage_files", "scenarios")]
    before = counts(db_app)
    for statement in statements:
        with pytest.raises(DatabaseError, match="append-only"):
            run(db_app, statement)
    assert counts(db_app) == before


def test_a_reviewed_scenario_still_takes_new_revisions_and_their_name(db_app, as_user):
    approve_r1(as_user, db_app)
    data = form_data({**Scenario().model_dump(mode="json"), "name": "renamed in revision 2"})
    assert as_user("ana").post("/scenarios/1/edit", data).status_code == 302
    with db_app.app_context():
        with write_session() as s:
            assert s.get(ScenarioRecord, 1).name == "renamed in revision 2"
    run(db_app, "UPDATE scenarios SET name = 'Rex renamed' WHERE id = 2")   # never reviewed


def test_a_review_row_must_name_its_revision_hash(db_app):
    with db_app.app_context():
        with write_session() as s:
            rita, r1 = s.scalar(select(User.id).where(User.username == "rita")), \
                s.get(Revision, 1)
            ids = (rita, r1.id, r1.content_hash)
    for wrong in (None, "0" * 64):
        with pytest.raises(DatabaseError, match="revision_hash must be"):
            with db_app.app_context():
                with write_session() as s:
                    s.add(Review(revision_id=ids[1], reviewer_id=ids[0], decision="comment",
                                 comment="x", revision_hash=wrong))
    # a decision kind added later (no CHECK constraint, one list in service.web.tables) is a new row,
    # and stays unchangeable once written
    with db_app.app_context():
        with write_session() as s:
            s.add(Review(revision_id=ids[1], reviewer_id=ids[0], decision="request_changes",
                         comment="please split the offers", revision_hash=ids[2]))
    with pytest.raises(DatabaseError, match="append-only"):
        run(db_app, "UPDATE reviews SET decision = 'approve'")


def test_a_revision_without_usage_or_plan_cannot_be_approved(db_app, as_user):
    with db_app.app_context():
        with write_session() as s:
            ana = s.scalar(select(User).where(User.username == "ana"))
            bare = create_scenario(s, ana, Scenario().model_copy(update={"name": "bare"}))
            usage = s.scalar(select(UsageFile).where(UsageFile.uploaded_by == ana.id))
            unplanned = add_revision(s, s.get(ScenarioRecord, 1), ana, Scenario(), usage)
            rita = s.scalar(select(User.id).where(User.username == "rita"))
            cases = [(bare.id, bare.content_hash), (unplanned.id, unplanned.content_hash)]
            bare_url = f"/scenarios/{bare.scenario_id}/revisions/1"
    for revision_id, content_hash in cases:     # in the database, whoever writes the row
        with pytest.raises(DatabaseError, match="cannot be approved"):
            with db_app.app_context():
                with write_session() as s:
                    s.add(Review(revision_id=revision_id, reviewer_id=rita, decision="approve",
                                 comment="", revision_hash=content_hash))
    reviewer = as_user("rita")
    before = counts(db_app)                    # through the page: 409 and nothing saved
    response = reviewer.post(bare_url + "/reviews", {
        "decision": "approve", "revision_hash": cases[0][1]})
    assert response.status_code == 409
    assert "without a usage file cannot be approved" in response.get_data(as_text=True)
    assert counts(db_app) == before
    # the revision with usage but no cached plan: the page computes the plan, then approves
    response = reviewer.post("/scenarios/1/revisions/2/reviews", {
        "decision": "approve", "revision_hash": cases[1][1]})
    assert response.status_code == 302
    assert count(db_app, PlanRecord) == before["PlanRecord"] + 1


def test_every_append_only_trigger_exists_at_head(db_app):
    engine = db_app.extensions["buyrent_engine"]
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            names = set(conn.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars())
            expected = {f"{t}_no_{v}" for t in ("audit_events", "revisions", "reviews",
                                                 "plans", "usage_files")
                        for v in ("update", "delete")} | {
                "reviews_bind_hash", "reviews_approve_planned",
                "scenarios_reviewed_no_update", "scenarios_reviewed_no_delete"}
        else:
            names = set(conn.execute(text(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).scalars())
            expected = {f"{t}_append_only" for t in ("audit_events", "revisions", "reviews",
                                                      "plans", "usage_files")} | {
                f"{t}_no_truncate" for t in ("audit_events", "revisions", "reviews", "plans",
                                             "usage_files", "scenarios")} | {
                "reviews_bind", "scenarios_reviewed"}
    assert expected <= names, expected - names


# -- the review form must carry the hash ------------------------------------------------------

def test_review_post_without_the_revision_hash_is_400_and_saves_nothing(app, login):
    """A POST without revision_hash approved the revision the URL named."""
    rita = login("rita")
    before = counts(app)
    for decision in ("approve", "reject", "comment"):
        response = rita.post(R1 + "/reviews", {"decision": decision, "comment": "x"})
        assert response.status_code == 400
        assert "must name the SHA-256" in response.get_data(as_text=True)
    assert counts(app) == before


# -- downloads and logouts are audited ----------------------------------------------------------

def test_downloads_and_logouts_are_audited(app, login):
    """A reviewer downloading another analyst's plan.xlsx, plan.json or usage file, and
    logouts, left no audit event."""
    rita = login("rita")
    downloads = {"plan.xlsx": "plan.xlsx", "plan.json": "plan.json",
                 "usage": "usage (formulas escaped)", "usage/original": "usage original"}
    for path in downloads:
        assert rita.get(f"{R1}/{path}").status_code == 200, path
    assert rita.post("/logout").status_code == 302
    with app.app_context():
        with write_session() as s:
            rows = s.scalars(select(AuditEvent).where(AuditEvent.action.in_(
                ("download", "logout"))).order_by(AuditEvent.id)).all()
            r1 = s.get(Revision, 1)
            seen = [(e.actor, e.action, e.revision_id, e.revision_hash, e.details, e.at)
                    for e in rows]
    assert [d for *_, d, _ in seen[:4]] == [downloads[p] if p != "usage/original" else
                                            f"usage original sha256={r1.usage_sha256}"
                                            for p in downloads]
    assert all(actor == "rita" and rid == r1.id and digest == r1.content_hash and at
               for actor, _, rid, digest, _, at in seen[:4])
    assert seen[4][:2] == ("rita", "logout")
    assert "download" in login("root").get("/audit").get_data(as_text=True)
