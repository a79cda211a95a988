"""Resilience features on PostgreSQL: the login limit shared by two app instances, idempotent
saves under concurrent retries, and 503 + recovery when the database turns read-only."""
from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select, text

from service.web.tables import Revision
from service.web.db import write_session
from service.web.tables import IdempotencyKey
from service.web.unavailable import MESSAGE
from tests.support.client import PASSWORD, Browser
from tests.support.pg_server import postgres_server

pytestmark = pytest.mark.postgres
FAST = {"PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000", "SECRET_KEY": "pg-test",
        "TESTING": True}


@pytest.fixture(scope="module")
def database_url():
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def apps(database_url, tmp_path_factory):
    from models.scenario import Scenario
    from service.app import create_app
    from service.web.users import create_token, create_user
    from service.plans.revisions import create_scenario
    one = create_app({**FAST, "INSTANCE_PATH": str(tmp_path_factory.mktemp("one")),
                      "DATABASE_URL": database_url})
    two = create_app({**FAST, "INSTANCE_PATH": str(tmp_path_factory.mktemp("two")),
                      "DATABASE_URL": database_url})
    with one.app_context():
        with write_session() as s:
            ana = create_user(s, "res-ana", PASSWORD, "analyst")
            create_user(s, "res-otto", PASSWORD, "analyst")
            revision = create_scenario(s, ana, Scenario(name="pg resilience"))
            token = create_token(s, ana, "pg")
    yield one, two, revision.scenario_id, token
    for a in (one, two):
        a.extensions["buyrent_engine"].dispose()


def test_login_limit_is_counted_across_instances(apps):
    one, two, _, _ = apps
    for a in (one, two):
        a.config["LOGIN_MAX_FAILURES_PER_USER"] = 4
    b1, b2 = Browser(one.test_client()), Browser(two.test_client())
    for b in (b1, b2, b1, b2):
        assert b.login("res-otto", "wrong password").status_code == 401
    response = b2.login("res-otto")
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0
    assert "Too many failed logins" in response.get_data(as_text=True)
    assert b1.login("res-otto").status_code == 429
    assert b1.login("res-ana").status_code == 302        # other users unaffected


def test_concurrent_retries_on_two_instances_save_once(apps):
    one, two, scenario_id, token = apps
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": "pg-race-key-1"}
    body = {"scenario": Scenario_json("pg race"), "note": "pg race"}
    answers = []

    def send(a):
        answers.append(a.test_client().post(f"/api/v1/scenarios/{scenario_id}/revisions",
                                            json=body, headers=headers))
    threads = [threading.Thread(target=send, args=(a,)) for a in (one, two, one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a.status_code for a in answers} == {201}, [a.get_json() for a in answers]
    assert len({a.data for a in answers}) == 1
    with one.app_context():
        with write_session() as s:
            assert s.scalar(select(func.count()).select_from(IdempotencyKey)
                            .where(IdempotencyKey.key == "pg-race-key-1")) == 1
            assert s.scalar(select(func.count()).select_from(Revision)
                            .where(Revision.note == "pg race")) == 1


def Scenario_json(note):
    from models.scenario import Scenario
    return {**Scenario(name=note).model_dump(mode="json")}


def test_read_only_database_answers_503_and_recovers(apps, database_url):
    one, _, scenario_id, token = apps
    engine = one.extensions["buyrent_engine"]
    url = f"/api/v1/scenarios/{scenario_id}/revisions"
    headers = {"Authorization": f"Bearer {token}"}
    body = {"scenario": Scenario_json("read-only"), "note": "read-only"}
    with engine.connect() as conn:
        conn.execute(text("ALTER DATABASE buyrent SET default_transaction_read_only = on"))
        conn.commit()
    engine.dispose()                  # new connections pick up the setting
    try:
        response = one.test_client().post(url, json=body, headers=headers)
        assert response.status_code == 503
        assert response.get_json()["error"]["message"] == MESSAGE
    finally:
        with engine.connect() as conn:
            conn.execute(text("SET TRANSACTION READ WRITE"))  # first statement: allowed
            conn.execute(text("ALTER DATABASE buyrent SET default_transaction_read_only = off"))
            conn.commit()
        engine.dispose()
    with one.app_context():
        with write_session() as s:
            assert s.scalar(select(func.count()).select_from(Revision)
                            .where(Revision.note == "read-only")) == 0
    assert one.test_client().post(url, json=body, headers=headers).status_code == 201


def test_concurrent_saves_with_different_keys_get_consecutive_numbers(apps):
    one, two, scenario_id, token = apps
    answers = []

    def send(a, i):
        answers.append(a.test_client().post(
            f"/api/v1/scenarios/{scenario_id}/revisions",
            json={"scenario": Scenario_json(f"pg parallel {i}"), "note": f"parallel {i}"},
            headers={"Authorization": f"Bearer {token}", "Idempotency-Key": f"pg-par-{i:04d}"}))
    threads = [threading.Thread(target=send, args=(a, i)) for i, a in enumerate((one, two) * 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [201] * 6, [a.get_json() for a in answers]
    numbers = sorted(a.get_json()["number"] for a in answers)
    assert numbers == list(range(numbers[0], numbers[0] + 6))
