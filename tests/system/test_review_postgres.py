"""Issue 16's database changes on PostgreSQL: request changes with a field path, the live plan,
progress rows and the waterfall on a real server (migration 0003 at head)."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import text

from service.web.db import write_session
from tests.support.client import PASSWORD, Browser, form_data
from tests.support.paths import SAMPLE_USAGE
from tests.support.pg_server import postgres_server

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def database_url():
    with postgres_server() as url:
        yield url


def test_review_decisions_and_progress_on_postgres(database_url, tmp_path, sample_plan):
    from service.app import create_app
    # plan jobs run when enqueued (the test client has no worker process)
    app = create_app({"INSTANCE_PATH": str(tmp_path), "DATABASE_URL": database_url,
                      "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000", "QUEUE_URL": "immediate"})
    try:
        check(app, sample_plan)
    finally:
        app.extensions["buyrent_engine"].dispose()


def check(app, sample_plan):
    from service.web.users import create_user
    from service.plans.revisions import create_scenario, store_usage
    model, result = sample_plan
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "pg16-ana", PASSWORD, "analyst")
            create_user(s, "pg16-rita", PASSWORD, "reviewer")
            usage = store_usage(s, ana, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            revision = create_scenario(s, ana, model, usage, result=result)
    base = f"/scenarios/{revision.scenario_id}"
    rita, ana_client = Browser(app.test_client()), Browser(app.test_client())
    assert rita.login("pg16-rita").status_code == 302
    assert ana_client.login("pg16-ana").status_code == 302
    page = rita.get(base + "/revisions/1").get_data(as_text=True)
    digest = re.search(r'id="revision-hash">([0-9a-f]{64})<', page).group(1)
    assert rita.post(base + "/revisions/1/reviews", {
        "decision": "changes", "comment": "Check the PUE.", "field_path": "owned.pue",
        "revision_hash": digest}).status_code == 302
    assert "changes requested" in ana_client.get("/scenarios/").get_data(as_text=True).lower()
    data = form_data(model.model_dump(mode="json"))
    data.update({"owned.pue": "1.2"})
    assert ana_client.post(base + "/preview", data).get_json()["valid"]
    assert ana_client.post(base + "/edit", data).status_code == 302
    # the save queued revision 2's plan job, whose row on PostgreSQL holds the complete plan
    state = ana_client.get(base + "/revisions/2/job").get_json()
    assert state["complete"] is True and state["stage"] == "complete"
    html = rita.get(base + "/compare?a=1&b=2").get_data(as_text=True)
    assert "Owned servers: PUE" in re.search(r'id="waterfall".*?</table>', html, re.S).group(0)
    with app.app_context():
        with write_session() as s:
            rows = s.execute(text("SELECT decision, field_path FROM reviews")).all()
    assert [tuple(r) for r in rows] == [("changes", "owned.pue")]
