"""Alert thresholds' records (issue 43, thresholds; migration 0008_thresholds) on SQLite and on
a real PostgreSQL (tests/system/conftest.py's db_app): settings, breaches and webhook posts are
append-only, a breach is recorded once per (scenario, month, kind) by the database itself, and
the walk (approve, set thresholds, upload, read the breaches) runs on both; the migration goes
down to 0007 and up again."""
from __future__ import annotations

import io

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import DatabaseError, IntegrityError

from service.paths import MIGRATIONS
from service.web.db import write_session
from service.web.tables import AlertBreach, AlertPost, AlertSettings
from tests.support.actual_steps import CLOUD_ONLY_BILLS
from tests.support.client import count, revision_hash

pytestmark = pytest.mark.postgres
R1 = "/scenarios/1/revisions/1"
BILLS = CLOUD_ONLY_BILLS     # the alert tests' bills, made against cloud_only
TABLES = ("alert_settings", "alert_breaches", "alert_posts")


def run(app, statement: str) -> None:
    with app.app_context():
        with write_session() as s:
            s.execute(text(statement))


def walk(app, as_user):
    rita, ana = as_user("rita"), as_user("ana")
    assert rita.post(R1 + "/reviews", {"decision": "approve", "comment": "ok",
                                       "strategy": "cloud_only",
                                       "revision_hash": revision_hash(app)}).status_code == 302
    assert ana.post("/scenarios/1/alerts", {"spend_over_plan": "55",
                                            "commitment_utilization": "63"}).status_code == 302
    files = {"bills": [(io.BytesIO(p.read_bytes()), p.name) for p in BILLS]}
    assert ana.post("/scenarios/1/actuals", files,
                    content_type="multipart/form-data").status_code == 302
    return ana, rita


def test_thresholds_breaches_and_posts_are_append_only_and_once(db_app, as_user):
    ana, rita = walk(db_app, as_user)
    with db_app.app_context():
        with write_session() as s:
            found = sorted((b.month, b.kind, b.value) for b in s.scalars(select(AlertBreach)))
            first = s.scalars(select(AlertBreach).order_by(AlertBreach.id)).first()
            s.add(AlertPost(breach_id=first.id, outcome="failed", status=500))
            ids = (first.scenario_id, first.revision_id, first.upload_id)
    assert found == [("2027-02", "commitment_utilization", "57.76"),
                     ("2027-02", "spend_over_plan", "55.18"),
                     ("2027-04", "commitment_utilization", "62.64"),
                     ("2027-04", "spend_over_plan", "66.24"),
                     ("2027-05", "spend_over_plan", "55.64")]
    assert "Spend over plan: 2027-05" in rita.get("/scenarios/").get_data(as_text=True)
    with pytest.raises(IntegrityError):         # once per (scenario, month, kind)
        with db_app.app_context():
            with write_session() as s:
                s.add(AlertBreach(scenario_id=ids[0], revision_id=ids[1], upload_id=ids[2],
                                  month="2027-02", kind="spend_over_plan", value="1.00",
                                  threshold="0.00"))
    statements = [f"UPDATE {t} SET created_at = 'x'" for t in TABLES] + \
                 [f"DELETE FROM {t}" for t in TABLES]
    if db_app.extensions["buyrent_engine"].dialect.name == "postgresql":
        statements += [f"TRUNCATE {t} CASCADE" for t in TABLES]
    for statement in statements:
        with pytest.raises(DatabaseError, match="append-only"):
            run(db_app, statement)
    assert (count(db_app, AlertSettings), count(db_app, AlertBreach),
            count(db_app, AlertPost)) == (1, 5, 1)


def test_the_migration_goes_down_to_0007_and_up_again(db_app):
    engine = db_app.extensions["buyrent_engine"]
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    for target, present in (("0007_actuals", False), ("head", True)):
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            (command.downgrade if target != "head" else command.upgrade)(config, target)
        names = set(inspect(engine).get_table_names())
        assert all((t in names) == present for t in TABLES), (target, names)
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            triggers = set(conn.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars())
            expected = {f"{t}_no_{v}" for t in TABLES for v in ("update", "delete")}
        else:
            triggers = set(conn.execute(text(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).scalars())
            expected = {f"{t}_{k}" for t in TABLES for k in ("append_only", "no_truncate")}
    assert expected <= triggers, expected - triggers
