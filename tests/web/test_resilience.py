"""Issue 8 resilience features: login limit, session revocation, idempotency keys, and 503 on
disk full / read-only storage with recovery in the same app instance."""
from __future__ import annotations

import errno
import io
import threading
import time

import pytest
from sqlalchemy import event, func, select

from service.app import create_app
from service.web.users import create_token
from service.web.tables import (AuditEvent, PlanRecord, Review, Revision, ScenarioRecord, UsageFile,
                        User)
from service.web.db import write_session
from service.web.tables import IdempotencyKey, LoginFailure, WebSession
from service.web.unavailable import MESSAGE as STORAGE_MESSAGE
from tests.support.client import (TEST_CONFIG, Browser, count, form_data,
                                  revision_hash)
from tests.support.paths import SAMPLE_USAGE

R1 = "/scenarios/1/revisions/1"


def assumptions(app, revision_id=1) -> dict:
    with app.app_context():
        with write_session() as s:
            return s.get(Revision, revision_id).assumptions_dict


def edit_data(app, price: str) -> dict:
    data = form_data(assumptions(app))
    data["on_demand.price_per_gpu_hour"] = price
    return data


@pytest.fixture
def token(app):
    def _token(name="ana"):
        with app.app_context():
            with write_session() as s:
                return create_token(s, s.query(User).filter_by(username=name).one(), "t")
    return _token


# --- brute-force login limit ---------------------------------------------------------------

def test_login_limit_answers_429_even_with_the_right_password(app, browser, login):
    app.config["LOGIN_MAX_FAILURES_PER_USER"] = 3
    for _ in range(3):
        assert browser.login("ana", "wrong password").status_code == 401
    response = browser.login("ana")                     # right password, still refused
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) > 0
    html = response.get_data(as_text=True)
    assert "Too many failed logins" in html and "15 minutes" in html
    assert browser.get("/scenarios/").status_code == 302          # not logged in
    assert login("otto").get("/scenarios/").status_code == 200    # other users unaffected
    with app.app_context():
        assert count(app, LoginFailure) == 3


def test_login_limit_per_address_counts_every_user_name(app, browser):
    app.config.update(LOGIN_MAX_FAILURES_PER_USER=100, LOGIN_MAX_FAILURES_PER_IP=4)
    for name in ("ana", "otto", "nobody", "rita"):
        assert browser.login(name, "wrong password").status_code == 401
    assert browser.login("rex").status_code == 429


def test_login_limit_lifts_when_the_window_passes(app, browser):
    app.config.update(LOGIN_MAX_FAILURES_PER_USER=2, LOGIN_WINDOW_SECONDS=1)
    for _ in range(2):
        browser.login("ana", "wrong password")
    assert browser.login("ana").status_code == 429
    time.sleep(1.2)
    assert browser.login("ana").status_code == 302


def test_login_limit_is_shared_by_two_app_instances_on_one_database(app):
    second = create_app({**TEST_CONFIG, "INSTANCE_PATH": app.instance_path})
    try:
        for a in (app, second):
            a.config["LOGIN_MAX_FAILURES_PER_USER"] = 4
        one, two = Browser(app.test_client()), Browser(second.test_client())
        for b in (one, two, one, two):
            assert b.login("ana", "wrong password").status_code == 401
        assert one.login("ana").status_code == 429
        assert two.login("ana").status_code == 429
    finally:
        second.extensions["buyrent_engine"].dispose()


# --- session revocation --------------------------------------------------------------------

def test_session_cookie_replayed_after_logout_is_anonymous(app, login):
    client = login("ana")
    assert client.get("/scenarios/1").status_code == 200
    cookie = client.client.get_cookie("session").value
    client.post("/logout")
    replay = app.test_client()
    replay.set_cookie("session", cookie)
    for url in ("/scenarios/", "/scenarios/1", R1, "/profile"):
        response = replay.get(url)
        assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert replay.get("/api/v1/scenarios/1/revisions",
                      headers={"Cookie": f"session={cookie}"}).status_code == 401
    with app.app_context():
        with write_session() as s:
            assert s.scalar(select(func.count()).select_from(WebSession)
                            .where(WebSession.revoked_at.is_(None))) == 0


def test_logout_revokes_only_that_session(app, login):
    first, second = login("ana"), login("ana")
    first.post("/logout")
    assert second.get("/scenarios/1").status_code == 200


# --- idempotency keys ----------------------------------------------------------------------

def test_forms_carry_a_fresh_idempotency_key(login):
    client = login("ana")
    keys = []
    for url in ("/scenarios/new", "/scenarios/1/edit", "/profile", "/scenarios/new"):
        html = client.get(url).get_data(as_text=True)
        keys.append(html.split('name="idempotency_key" value="')[1].split('"')[0])
    assert len(set(keys)) == 4
    assert 'name="idempotency_key"' in login("rita").get(R1).get_data(as_text=True)


def test_resent_edit_creates_one_revision_and_answers_the_same(app, login):
    client = login("ana")
    data = {**edit_data(app, "5.5"), "idempotency_key": "edit-key-0001"}
    first = client.post("/scenarios/1/edit", data)
    second = client.post("/scenarios/1/edit", data)
    assert first.status_code == second.status_code == 302
    assert first.headers["Location"] == second.headers["Location"]
    assert second.headers["Idempotent-Replayed"] == "true"
    assert count(app, Revision) == 3
    assert "already saved" in client.get(second.headers["Location"]).get_data(as_text=True)


def test_resent_new_scenario_review_attach_and_token_save_once(app, login):
    ana = login("ana")
    data = {**form_data(assumptions(app)), "idempotency_key": "new-key-0001"}
    assert ana.post("/scenarios/new", data).headers["Location"] == \
        ana.post("/scenarios/new", data).headers["Location"]
    assert count(app, ScenarioRecord) == 3
    rita = login("rita")
    review = {"decision": "approve", "comment": "ok", "idempotency_key": "review-key-01",
              "revision_hash": revision_hash(app)}
    assert rita.post(R1 + "/reviews", review).status_code == 302
    assert rita.post(R1 + "/reviews", review).status_code == 302
    assert count(app, Review) == 1
    with app.app_context():
        with write_session() as s:
            assert s.query(AuditEvent).filter_by(action="review.approve").count() == 1
    csv = b"timestamp,gpu_hours\n" + b"".join(f"2026-03-{d:02d},{90 + d}\n".encode()
                                               for d in range(1, 29))
    html = ana.post("/scenarios/1/usage", {"usage": (io.BytesIO(csv), "d.csv")},
                    content_type="multipart/form-data").get_data(as_text=True)
    attach = [part.split('"')[0] for part in html.split('action="') if "/attach" in
              part.split('"')[0]][0]
    key = {"idempotency_key": "attach-key-01"}
    a, b = ana.post(attach, key), ana.post(attach, key)
    assert a.headers["Location"] == b.headers["Location"]
    before = count(app, Revision)
    assert ana.post(attach, key).status_code == 302 and count(app, Revision) == before
    tokens = {"label": "ci", "idempotency_key": "token-key-01"}
    assert ana.post("/profile/tokens", tokens).status_code == 200
    assert ana.post("/profile/tokens", tokens).status_code == 302
    with app.app_context():
        with write_session() as s:
            assert s.query(AuditEvent).filter_by(action="token.create").count() == 1


def test_a_key_belongs_to_one_request(app, login):
    client = login("ana")
    key = {"idempotency_key": "shared-key-01"}
    assert client.post("/scenarios/1/edit", {**edit_data(app, "5.5"), **key}).status_code == 302
    assert client.post("/profile/tokens", {"label": "x", **key}).status_code == 422
    assert client.post("/scenarios/1/edit", {**edit_data(app, "5.5"),
                                             "idempotency_key": "bad key!"}).status_code == 400


def test_api_revisions_and_plans_honour_the_idempotency_key_header(app, token):
    client, headers = app.test_client(), {"Authorization": f"Bearer {token()}"}
    body = {"scenario": {**assumptions(app), "name": "API edit"}, "note": "api"}
    url = "/api/v1/scenarios/1/revisions"
    first = client.post(url, json=body, headers={**headers, "Idempotency-Key": "api-key-0001"})
    again = client.post(url, json=body, headers={**headers, "Idempotency-Key": "api-key-0001"})
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json() and first.get_json()["number"] == 2
    assert count(app, Revision) == 3
    other = client.post(url, json=body, headers={**headers, "Idempotency-Key": "api-key-0002"})
    assert other.get_json()["number"] == 3
    days = [{"timestamp": f"2026-02-{d:02d}", "gpu_hours": 200.0 + d} for d in range(1, 29)]
    plan = {"usage": days}
    keyed = {**headers, "Idempotency-Key": "p-1234567"}
    p1 = client.post("/api/v1/plans", json=plan, headers=keyed)
    p2 = client.post("/api/v1/plans", json=plan, headers=keyed)
    assert p1.status_code == p2.status_code == 200 and p1.data == p2.data
    with app.app_context():
        with write_session() as s:
            assert s.query(AuditEvent).filter_by(action="api.plan").count() == 1
    assert client.post(url, json=body, headers={"Idempotency-Key": "api-key-0003"}
                       ).status_code == 401
    rita = {"Authorization": f"Bearer {token('rita')}"}
    assert client.post(url, json=body, headers=rita).get_json()["error"]["code"] == "forbidden"


def test_an_idempotency_key_sent_again_with_another_body_is_refused(app, token):
    # The IETF draft (httpapi idempotency-key header, Error Scenarios): a key reused with a
    # different payload is a 422. Before, the first 201 came back and the new body was dropped.
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token()}", "Idempotency-Key": "body-key-0001"}
    url = "/api/v1/scenarios/1/revisions"
    first = client.post(url, json={"scenario": {**assumptions(app), "name": "A"}},
                        headers=headers)
    assert first.status_code == 201
    other = client.post(url, json={"scenario": {**assumptions(app), "name": "B"}},
                        headers=headers)
    assert other.status_code == 422 and other.get_json()["error"]["code"] == "invalid_input"
    assert "used for this request with another body" in other.get_json()["error"]["message"]
    again = client.post(url, json={"scenario": {**assumptions(app), "name": "A"}},
                        headers=headers)
    assert again.status_code == 201 and again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert count(app, Revision) == 3                    # the seeded two and A, not B


def test_a_form_resent_with_other_values_under_its_key_is_refused(app, login):
    # the same for a form: its CSRF token may differ (a new one per render), its values not
    client = login("ana")
    key = {"idempotency_key": "form-body-key-01"}
    assert client.post("/scenarios/1/edit", {**edit_data(app, "5.5"), **key}).status_code == 302
    assert client.post("/scenarios/1/edit", {**edit_data(app, "5.5"), **key,
                                             "csrf_token": client.token()}).status_code == 302
    assert client.post("/scenarios/1/edit", {**edit_data(app, "6.5"), **key}).status_code == 422
    assert count(app, Revision) == 3


def test_concurrent_requests_with_one_key_save_once(app, token):
    headers = {"Authorization": f"Bearer {token()}", "Idempotency-Key": "race-key-0001"}
    body = {"scenario": {**assumptions(app), "name": "race"}}
    answers = []

    def send():
        answers.append(app.test_client().post("/api/v1/scenarios/1/revisions", json=body,
                                              headers=headers))
    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a.status_code for a in answers} == {201}
    assert len({a.data for a in answers}) == 1
    assert count(app, Revision) == 3 and count(app, IdempotencyKey) == 1


def test_concurrent_requests_with_one_key_and_other_bodies_answer_422(app, token,
                                                                       monkeypatch):
    """Two requests with one key and different bodies, the second reaching its write after the
    first committed (before, the second found no key at its start: its Duplicate handler's
    refusal became a 500). The race made certain: the second's first look finds nothing."""
    from service.web import idempotency
    headers = {"Authorization": f"Bearer {token()}", "Idempotency-Key": "race-key-0002"}
    url = "/api/v1/scenarios/1/revisions"
    first = app.test_client().post(url, json={"scenario": {**assumptions(app), "name": "A"}},
                                   headers=headers)
    assert first.status_code == 201
    looks = []
    real = idempotency.replay

    def late():     # the first look (before the view) as if the winner had not committed yet
        looks.append(1)
        return None if len(looks) == 1 else real()

    monkeypatch.setattr(idempotency, "replay", late)
    other = app.test_client().post(url, json={"scenario": {**assumptions(app), "name": "B"}},
                                   headers=headers)
    assert other.status_code == 422, other.data
    assert other.get_json()["error"]["code"] == "invalid_input"
    assert "used for this request with another body" in other.get_json()["error"]["message"]
    assert count(app, Revision) == 3 and count(app, IdempotencyKey) == 1


# --- disk full / read-only -----------------------------------------------------------------

class StorageFault:
    """Makes every pooled connection of the app read-only or full while ``mode`` is set."""

    def __init__(self, app):
        self.mode = None
        self.engine = app.extensions["buyrent_engine"]
        event.listen(self.engine, "checkout", self._checkout)

    def _checkout(self, dbapi_connection, _record, _proxy):
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA query_only={'ON' if self.mode == 'readonly' else 'OFF'}")
        if self.mode == "full":
            pages = cursor.execute("PRAGMA page_count").fetchone()[0]
            cursor.execute(f"PRAGMA max_page_count={pages}")
        else:
            cursor.execute("PRAGMA max_page_count=1073741823")
        cursor.close()


def snapshot(app):
    return tuple(count(app, t) for t in (Revision, PlanRecord, AuditEvent, Review, UsageFile,
                                         IdempotencyKey))


@pytest.mark.parametrize("mode", ["full", "readonly"])
def test_storage_failure_answers_503_saves_nothing_and_recovers(app, login, mode):
    fault = StorageFault(app)
    client = login("ana")
    data = {**edit_data(app, "5.5"), "idempotency_key": f"{mode}-key-0001"}
    before = snapshot(app)
    fault.mode = mode
    response = client.post("/scenarios/1/edit", data)
    assert response.status_code == 503, response.get_data(as_text=True)[:2000]
    assert STORAGE_MESSAGE in response.get_data(as_text=True)
    assert response.headers["Retry-After"]
    fault.mode = None
    assert snapshot(app) == before
    assert client.post("/scenarios/1/edit", data).status_code == 302   # same app, same key
    assert count(app, Revision) == before[0] + 1


def test_storage_failure_on_review_and_api_uses_the_json_shape(app, login, token):
    fault = StorageFault(app)
    rita, bearer = login("rita"), token()
    before, body = snapshot(app), {"scenario": {**assumptions(app), "name": "x"}}
    approve = {"decision": "approve", "comment": "ok", "revision_hash": revision_hash(app)}
    fault.mode = "readonly"
    assert rita.post(R1 + "/reviews", approve).status_code == 503
    response = app.test_client().post(
        "/api/v1/scenarios/1/revisions", json=body,
        headers={"Authorization": f"Bearer {bearer}"})
    assert response.status_code == 503
    assert response.get_json()["error"] == {"code": "storage_unavailable",
                                            "message": STORAGE_MESSAGE, "details": []}
    fault.mode = None
    assert snapshot(app) == before
    assert rita.post(R1 + "/reviews", approve).status_code == 302


def test_login_while_the_database_is_read_only(app, browser):
    fault = StorageFault(app)
    fault.mode = "readonly"
    response = browser.login("ana")
    assert response.status_code == 503
    assert browser.get("/scenarios/").status_code == 302   # not half logged in
    fault.mode = None
    assert browser.login("ana").status_code == 302


def test_no_space_while_storing_the_usage_file(app, login, monkeypatch):
    import service.scenarios.views

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")
    client = login("ana")
    before = snapshot(app)
    monkeypatch.setattr(service.scenarios.views, "store_usage", no_space)
    response = client.post("/scenarios/1/usage",
                           {"usage": (io.BytesIO(SAMPLE_USAGE.read_bytes()), "u.csv")},
                           content_type="multipart/form-data")
    assert response.status_code == 503 and STORAGE_MESSAGE in response.get_data(as_text=True)
    assert snapshot(app) == before
    monkeypatch.undo()
    response = client.post("/scenarios/1/usage",
                           {"usage": (io.BytesIO(SAMPLE_USAGE.read_bytes() + b"\n"), "u.csv")},
                           content_type="multipart/form-data")
    assert response.status_code == 200


def test_other_database_errors_stay_500(app, login, monkeypatch):
    import service.plans.views

    def broken(*_a, **_k):
        raise RuntimeError("boom")
    monkeypatch.setattr(service.plans.views, "audit", broken)
    assert login("rita").post(R1 + "/reviews", {"decision": "approve", "comment": "ok",
                                                "revision_hash": revision_hash(app)}
                              ).status_code == 500
