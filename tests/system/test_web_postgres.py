"""The web service on PostgreSQL: migrations, a full write path and the append-only triggers."""
from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DatabaseError

from service.web.tables import AuditEvent, Revision
from service.web.db import write_session
from tests.support.client import PASSWORD, Browser
from tests.support.paths import SAMPLE_USAGE
from tests.support.pg_server import postgres_server

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def database_url():
    with postgres_server() as url:
        yield url


def test_postgres_app_saves_reviews_and_refuses_audit_edits(database_url, tmp_path,
                                                           sample_plan):
    from service.app import create_app
    app = create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": database_url,
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    try:
        check_postgres_app(app, sample_plan)
    finally:  # pooled psycopg connections left to the garbage collector warn (= fail) later
        app.extensions["buyrent_engine"].dispose()


def check_postgres_app(app, sample_plan):
    from service.web.users import create_user
    from service.plans.revisions import create_scenario, store_usage
    model, result = sample_plan
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "pg-ana", PASSWORD, "analyst")
            create_user(s, "pg-rita", PASSWORD, "reviewer")
            usage = store_usage(s, ana, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            revision = create_scenario(s, ana, model, usage, result=result)
    url = f"/scenarios/{revision.scenario_id}/revisions/1"
    rita = Browser(app.test_client())
    assert rita.login("pg-rita").status_code == 302
    assert rita.get(url).status_code == 200
    assert rita.post(url + "/reviews", {"decision": "approve", "comment": "ok",
                                        "revision_hash": revision.content_hash}
                     ).status_code == 302
    assert "binds to revision 1" in rita.get(url).get_data(as_text=True)
    for statement in ("UPDATE audit_events SET actor = 'x'", "DELETE FROM audit_events",
                      "TRUNCATE audit_events CASCADE", "UPDATE revisions SET note = 'x'"):
        with pytest.raises(DatabaseError, match="append-only"):
            with app.app_context():
                with write_session() as s:
                    s.execute(text(statement))
    with app.app_context():
        with write_session() as s:
            assert s.query(AuditEvent).filter_by(action="review.approve").count() == 1
            assert s.query(Revision).count() == 1
    # close the pool now: a psycopg connection collected later, in another test, is a
    # ResourceWarning there (an error under filterwarnings=error)
    app.extensions["buyrent_engine"].dispose()
