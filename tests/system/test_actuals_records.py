"""Plan against actual's records (issue 43, items 1-2; migration 0007) on SQLite and on a real
PostgreSQL (tests/system/conftest.py's db_app): the approved strategy is stored with the
approval, only an approval may name one, uploads of actual bills and their files are
append-only, and the whole walk (approve, upload, read) runs on both."""
from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DatabaseError

from service.web.db import write_session
from service.web.tables import ActualFile, ActualUpload, Review, Revision, User
from tests.support.client import count, revision_hash
from tests.support.paths import SAMPLES

pytestmark = pytest.mark.postgres
R1 = "/scenarios/1/revisions/1"
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))


def run(app, statement: str) -> None:
    with app.app_context():
        with write_session() as s:
            s.execute(text(statement))


def test_approve_upload_and_read_then_the_records_refuse_change(db_app, as_user):
    rita, ana = as_user("rita"), as_user("ana")
    assert rita.post(R1 + "/reviews", {"decision": "approve", "comment": "ok",
                                       "strategy": "cloud_only",
                                       "revision_hash": revision_hash(db_app)}
                     ).status_code == 302
    files = {"bills": [(io.BytesIO(p.read_bytes()), p.name) for p in BILLS]}
    response = ana.post("/scenarios/1/actuals", files, content_type="multipart/form-data")
    assert response.status_code == 302
    html = rita.get(R1 + "/actual").get_data(as_text=True)
    total = re.search(r'<tr class="total">(.*?)</tr>', html, re.S).group(1)
    assert len(re.findall(r'data-cents="', total)) == 7
    with db_app.app_context():
        with write_session() as s:
            assert s.scalars(select(Review.strategy)).all() == ["cloud_only"]
    assert (count(db_app, ActualUpload), count(db_app, ActualFile)) == (1, 6)
    statements = ["UPDATE actual_uploads SET months = '[]'", "DELETE FROM actual_uploads",
                  "UPDATE actual_files SET data = NULL", "DELETE FROM actual_files",
                  "UPDATE reviews SET strategy = 'all_on_demand'"]
    if db_app.extensions["buyrent_engine"].dialect.name == "postgresql":
        statements += ["TRUNCATE actual_uploads CASCADE", "TRUNCATE actual_files"]
    for statement in statements:
        with pytest.raises(DatabaseError, match="append-only"):
            run(db_app, statement)
    assert (count(db_app, ActualUpload), count(db_app, ActualFile)) == (1, 6)


def test_only_an_approval_names_a_strategy(db_app):
    with db_app.app_context():
        with write_session() as s:
            rita = s.scalar(select(User.id).where(User.username == "rita"))
            r1 = s.get(Revision, 1)
            ids = (rita, r1.id, r1.content_hash)
    before = count(db_app, Review)
    with pytest.raises(DatabaseError, match="only an approval names"):
        with db_app.app_context():
            with write_session() as s:
                s.add(Review(revision_id=ids[1], reviewer_id=ids[0], decision="comment",
                             comment="x", revision_hash=ids[2], strategy="cloud_only"))
    assert count(db_app, Review) == before


def test_the_new_triggers_exist_at_head(db_app):
    engine = db_app.extensions["buyrent_engine"]
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            names = set(conn.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars())
            expected = {f"{t}_no_{v}" for t in ("actual_uploads", "actual_files")
                        for v in ("update", "delete")} | {"reviews_strategy_approval",
                                                           "reviews_no_update"}
        else:
            names = set(conn.execute(text(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).scalars())
            expected = {f"{t}_{k}" for t in ("actual_uploads", "actual_files")
                        for k in ("append_only", "no_truncate")} | {
                "reviews_strategy_approval", "reviews_append_only"}
    assert expected <= names, expected - names
