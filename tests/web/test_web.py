"""Web pages through the Flask test client: permissions, forms, uploads, review, security."""
from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import text

from service.web.tables import (AuditEvent, PlanRecord, Revision, ScenarioRecord, UsageFile)
from service.web.db import write_session
from tests.support.client import count, form_data, revision_hash

R1 = "/scenarios/1/revisions/1"

# (method, url, {user: expected status}); None = anonymous. Scenario 1 belongs to ana,
# scenario 2 to rex (a reviewer: the author-as-reviewer case).
MATRIX = [
    ("GET", "/scenarios/", {None: 302, "ana": 200, "otto": 200, "rita": 200, "rex": 200}),
    ("GET", "/scenarios/new", {None: 302, "ana": 200, "otto": 200, "rita": 200, "rex": 200}),
    ("GET", "/scenarios/1", {None: 302, "ana": 200, "otto": 404, "rita": 200, "rex": 200}),
    ("GET", "/scenarios/1/edit", {None: 302, "ana": 200, "otto": 404, "rita": 403,
                                  "rex": 403, "root": 200}),
    ("GET", "/scenarios/1/usage", {None: 302, "ana": 200, "otto": 404, "rita": 403}),
    ("GET", R1, {None: 302, "ana": 200, "otto": 404, "rita": 200, "rex": 200}),
    ("GET", R1 + "/plan.json", {None: 302, "ana": 200, "otto": 404, "rita": 200}),
    ("GET", R1 + "/plan.xlsx", {None: 302, "ana": 200, "otto": 404,
                                "rita": 200}),
    ("GET", R1 + "/usage", {None: 302, "ana": 200, "otto": 404, "rita": 200}),
    ("GET", "/scenarios/1/compare?a=1&b=1", {None: 302, "ana": 200, "otto": 404, "rita": 200}),
    ("GET", "/scenarios/9/revisions/1", {"ana": 404, "rita": 404}),
    ("GET", "/scenarios/1/revisions/9", {"ana": 404, "rita": 404}),
    ("GET", "/audit", {None: 302, "ana": 200, "otto": 200, "rita": 200}),
    ("GET", "/profile", {None: 302, "ana": 200, "rita": 200}),
    ("GET", "/usage-template.csv", {None: 302, "ana": 200}),
    ("GET", "/usage-template.xlsx", {None: 302, "ana": 200, "rita": 200}),
    ("GET", "/usage-template.pdf", {"ana": 404}),
    ("GET", "/vendor/plotly.min.js", {None: 200, "ana": 200}),
    ("GET", "/login", {None: 200, "ana": 200}),
    ("GET", "/", {None: 302, "ana": 302}),
    ("GET", "/logout", {None: 405, "ana": 405}),              # no state change on GET
    ("GET", R1 + "/reviews", {"rita": 405}),
    ("POST", R1 + "/reviews", {None: 302, "ana": 403, "otto": 404, "rita": 302, "rex": 302,
                               "root": 302}),
    ("POST", "/scenarios/2/revisions/1/reviews", {"rex": 403, "rita": 302, "ana": 404,
                                                  "root": 302}),
    ("POST", "/scenarios/1/edit", {None: 302, "otto": 404, "rita": 403}),
    ("POST", "/scenarios/1/usage", {None: 302, "otto": 404, "rita": 403}),
    ("POST", "/scenarios/1/usage/1/attach", {None: 302, "otto": 404, "rita": 403}),
    ("POST", "/scenarios/1/import", {None: 302, "otto": 404, "rita": 403}),
]
CASES = [(m, u, who, status) for m, u, table in MATRIX for who, status in table.items()]


@pytest.mark.parametrize("method,url,who,status", CASES,
                         ids=[f"{m} {u} as {w}" for m, u, w, _ in CASES])
def test_permission_matrix(app, login, method, url, who, status):
    client = login(who)
    if method == "GET":
        response = client.get(url)
    else:
        data = {"decision": "approve", "comment": "ok"}
        if url.endswith("/reviews"):
            scenario_id, number = map(int, re.findall(r"/(\d+)", url)[:2])
            data["revision_hash"] = revision_hash(app, scenario_id, number)
        response = client.post(url, data)
    response.close()
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    if who is None and status == 302:
        assert "/login" in response.headers["Location"]


def test_login_rejects_wrong_password_and_missing_csrf(browser):
    assert browser.login("ana", "wrong").status_code == 401
    assert browser.login("nobody", "wrong").status_code == 401
    response = browser.client.post("/login", data={"username": "ana", "password": "x"})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)


def test_login_redirects_only_to_local_paths(browser):
    data = {"username": "ana", "password": "correct horse battery",
            "csrf_token": browser.token()}
    response = browser.client.post("/login?next=//evil.example/x", data=data)
    assert response.headers["Location"] == "/scenarios/"
    browser.post("/logout")
    data["csrf_token"] = browser.token()
    response = browser.client.post("/login?next=/audit", data=data)
    assert response.headers["Location"] == "/audit"


def test_session_cookie_flags(browser):
    response = browser.login("ana")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie                      # plain HTTP on loopback


def test_session_cookie_is_secure_over_https(app):
    from tests.support.client import PASSWORD, Browser
    https = Browser(app.test_client())
    https.client.environ_base["wsgi.url_scheme"] = "https"
    page = https.client.get("/login", base_url="https://localhost")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    response = https.client.post("/login", base_url="https://localhost",
                                 headers={"Referer": "https://localhost/login"},
                                 data={"username": "ana", "password": PASSWORD,
                                       "csrf_token": token})
    assert response.status_code == 302
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie


def test_security_headers_and_no_inline_scripts(login):
    page = login("ana").get(R1)
    csp = page.headers["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]+)", csp).group(1)
    assert "unsafe-inline" not in script_src and "frame-ancestors 'none'" in csp
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    html = page.get_data(as_text=True)
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert "cdn" not in html.lower()


def test_plan_page_shows_cards_charts_table_and_downloads(login):
    html = login("ana").get(R1).get_data(as_text=True)
    for needle in ('id="summary"', 'id="recommendation"', 'id="chart-cumulative"',
                   'id="chart-by-source"', 'id="chart-load-duration"', 'id="monthly"',
                   'id="download-xlsx"', 'id="download-json"', "/usage-template.csv",
                   "/vendor/plotly.min.js", "Not approved"):
        assert needle in html
    charts = json.loads(re.search(r'id="plan-charts">(.*?)</script>', html, re.S).group(1))
    assert set(charts["cumulative"]) >= {"on_demand", "buy_for_peak"}
    assert len(charts["months"]) == 60 and charts["load_duration"]["gpus"]


def test_plan_page_shows_the_uncertainty_section(login, sample_plan):
    html = login("ana").get(R1).get_data(as_text=True)
    section = sample_plan[1].document["uncertainty"]
    assert 'id="chart-tornado"' in html and 'id="chart-histogram"' in html
    assert f"Over {section['draws']:,} draws (seed {section['seed']})" in html
    charts = json.loads(re.search(r'id="plan-charts">(.*?)</script>', html, re.S).group(1))
    rows = charts["uncertainty"]["tornado"]
    assert [r["label"] for r in rows] == [r["label"] for r in section["tornado"]]
    assert sum(charts["uncertainty"]["histogram"]["counts"]) == section["draws"]
    staged = section.get("staged")
    strategies = sample_plan[1].document["strategies"]
    same = [r["cumulative_cost"] for r in strategies["staged"]["monthly"]] == \
        [r["cumulative_cost"] for r in strategies["optimal"]["monthly"]]
    if staged and same:   # issue 37: the same plan is said to be it, not "beats it in 0.0 %"
        assert "The staged schedule is the best static plan itself" in html
    elif staged:   # the staged schedule held fixed under every draw
        assert "The staged schedule, held fixed under every draw" in html
        assert f"{staged['probability_beats_best_static']:.1%}" in html


def test_plan_json_download_is_the_plan_document(login, sample_plan):
    response = login("ana").get(R1 + "/plan.json")
    assert "attachment" in response.headers["Content-Disposition"]
    doc = response.get_json()
    assert doc["recommendation"] == sample_plan[1].document["recommendation"]
    assert set(doc) >= {"scenario", "profile", "strategies", "recommendation", "warnings"}


def test_xlsx_download_opens(login):
    import io

    import openpyxl
    response = login("ana").get(R1 + "/plan.xlsx")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment")
    assert openpyxl.load_workbook(io.BytesIO(response.data)).sheetnames


def test_new_scenario_from_preset_shows_source_and_saves_provenance(login, app):
    client = login("otto")
    preset = "aws/p5.48xlarge/us-east-2"
    html = client.get(f"/scenarios/new?preset={preset}").get_data(as_text=True)
    assert "SkyPilot catalog skypilot-org/skypilot-catalog" in html and "00148f2" in html
    assert 'value="1.4068"' in html                      # spot per GPU-hour from the catalog
    assert "Filled from preset" in html
    data = form_data({**json.loads(json.dumps(_default())), "name": "otto's p5"})
    data.update({"preset": preset, "on_demand.price_per_gpu_hour": "6.88",
                 "spot.price_per_gpu_hour": "1.4068"})
    response = client.post("/scenarios/new", data)
    assert response.status_code == 302
    with app.app_context():
        with write_session() as s:
            revision = s.query(Revision).order_by(Revision.id.desc()).first()
            assert revision.preset_dict["id"] == preset
            assert revision.assumptions_dict["spot"]["price_per_gpu_hour"] == 1.4068
            assert revision.usage_file_id is None


def test_a_preset_without_a_listed_spot_price_turns_spot_off(login):
    """Issue 23: AWS Seoul p5 has no spot price in the catalog, yet its plans ran
    interruptible work on spot at the default 70 % discount. The preset sets spot's share to
    0 (marked as filled from it); a preset with a listed price leaves the share alone."""
    from tests.support.plans import compute_plan
    from models.scenario import Scenario
    from service.presets.gpu_prices import apply, load_presets
    from tests.support.engine_cases import flat_profile
    seoul = load_presets()["aws/p5.48xlarge/ap-northeast-2"]
    assert seoul.spot_per_gpu_hour is None
    s = Scenario.model_validate(apply(_default(), seoul))
    assert s.spot.availability == 0.0 and s.spot.price_per_gpu_hour is None
    plan = compute_plan(s.with_changes(finance={"start_month": "2027-01"},
                                       uncertainty={"draws": 0}),
                        flat_profile(16, "2026-01", 12, interruptible=True))
    assert all(r.spot_gpu_hours_by_month.sum() == 0 for r in plan.strategies.values())
    listed = Scenario.model_validate(apply(_default(), load_presets()[
        "aws/p5.48xlarge/us-east-2"]))
    assert listed.spot.availability == 0.8 and listed.spot.price_per_gpu_hour == 1.4068
    html = login("otto").get("/scenarios/new?preset=aws/p5.48xlarge/ap-northeast-2"
                             ).get_data(as_text=True)
    field = re.search(r'name="spot.availability".*?</div>', html, re.S).group(0)
    assert 'value="0"' in field and "Filled from preset" in field
    assert "the catalog lists no spot price there" in field


def test_unknown_preset_is_a_bad_request(login):
    assert login("ana").get("/scenarios/new?preset=nope").status_code == 400


def _default():
    from models.scenario import Scenario
    return Scenario().model_dump(mode="json")


# Each out-of-range input -> the field's own pydantic message next to that field.
BAD_FIELDS = [
    ("owned.pue", "0.5", "greater than or equal to 1"),                 # PUE below 1
    ("finance.horizon_months", "0", "greater than or equal to 1"),      # horizon 0
    ("spot.availability", "150", "less than or equal to 100 %"),        # > 100 %, typed in %
    ("on_demand.price_per_gpu_hour", "-3", "greater than or equal to 0"),  # negative price
    ("owned.server_price", "lots", "valid number"),                     # not a number
    ("commitments.0.discount", "100", "less than 100 %"),               # offer row field
    ("owned.resale_fraction_by_year", "50, 70", "must not increase"),   # list rule
]


@pytest.mark.parametrize("name,value,message", BAD_FIELDS, ids=[b[0] for b in BAD_FIELDS])
def test_bad_form_input_shows_field_message_and_saves_nothing(login, app, name, value, message):
    client = login("ana")
    before = (count(app, Revision), count(app, AuditEvent), count(app, ScenarioRecord))
    data = form_data(_default())
    data[name] = value
    response = client.post("/scenarios/1/edit", data)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    error = re.search(rf'data-field="{re.escape(name)}">([^<]*)<', html)
    assert error and message in error.group(1), html[:300]
    assert f'value="{value}"' in html                      # the user's input is kept
    after = (count(app, Revision), count(app, AuditEvent), count(app, ScenarioRecord))
    assert after == before
    assert login("ana").post("/scenarios/new", data).status_code == 422
    assert count(app, ScenarioRecord) == before[2]


def test_cross_field_rule_is_shown_on_its_section(login, app):
    data = form_data(_default())
    data["owned.power_kw_idle"] = "20"
    html = login("ana").post("/scenarios/1/edit", data).get_data(as_text=True)
    assert "power_kw_idle (20.0) must be &lt;= power_kw_max" in html


def test_edit_creates_new_revision_and_compare_shows_diffs(login, app):
    client = login("ana")
    data = form_data(json.loads(json.dumps(_revision_assumptions(app, 1))))
    data["on_demand.price_per_gpu_hour"] = "5.5"
    assert client.post("/scenarios/1/edit", data).status_code == 302
    assert count(app, Revision) == 3
    assert client.post("/scenarios/1/edit", data).status_code == 302   # unchanged: no revision
    assert count(app, Revision) == 3
    html = client.get("/scenarios/1/compare?a=1&b=2").get_data(as_text=True)
    diffs = re.search(r'id="assumption-diffs">(.*?)</table>', html, re.S).group(1)
    assert "On demand: On-demand price" in diffs and "6.88" in diffs and "5.5" in diffs
    assert "finance" not in diffs
    results = re.search(r'id="result-diffs">(.*?)</table>', html, re.S).group(1)
    assert "All on demand" in results
    with app.app_context():
        with write_session() as s:
            assert s.get(PlanRecord, 3) is not None      # plan cached with the revision


def _revision_assumptions(app, revision_id):
    with app.app_context():
        with write_session() as s:
            return s.get(Revision, revision_id).assumptions_dict


def test_upload_preview_then_attach(login, app):
    client = login("ana")
    csv = b"timestamp,gpu_hours,workload\n" + b"".join(
        f"2026-03-{d:02d},{100 + d},steady\n".encode() for d in range(1, 29))
    response = client.post("/scenarios/1/usage", {"usage": (_file(csv), "daily.csv")},
                           content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "daily, 28 rows" in html and 'id="chart-usage"' in html and "128.0" in html
    assert count(app, Revision) == 2                         # preview does not attach
    file_id = int(re.search(r"/usage/(\d+)/attach", html).group(1))
    response = client.post(f"/scenarios/1/usage/{file_id}/attach")
    assert response.status_code == 302 and response.headers["Location"].endswith(
        "/scenarios/1/revisions/2")
    assert "daily.csv" in client.get("/scenarios/1").get_data(as_text=True)
    # somebody else's upload cannot be attached
    assert login("root").post(f"/scenarios/1/usage/{file_id}/attach").status_code == 404


def _file(data: bytes):
    import io
    return io.BytesIO(data)


BAD_UPLOADS = [
    (b"timestamp,gpu_hours\n2026-01-01T00:00,5\n2026-01-01T01:00,-2\n", "neg.csv",
     "row 3"),                                                   # negative hours
    (b"timestamp,gpu_hours\n2026-01-01T00:00,5\n2026-01-01T01:00,abc\n", "nan.csv",
     "gpu_hours"),                                               # not a number
    (b"when,hours\n2026-01-01,5\n", "cols.csv", "missing column"),   # wrong columns
    (b"PK\x03\x04 not really a workbook", "fake.xlsx", "xlsx"),  # not-really-xlsx
    (b"", "empty.csv", "empty"),                                  # empty file
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600, "old.xlsx", "xls"),  # OLE/encrypted
]


def test_bad_upload_problems_table_names_row_and_column(login):
    html = login("ana").post("/scenarios/1/usage", {"usage": (_file(BAD_UPLOADS[0][0]),
                                                              "neg.csv")},
                             content_type="multipart/form-data").get_data(as_text=True)
    table = re.search(r'<table id="problems">(.*?)</table>', html, re.S).group(1)
    assert re.search(r"<td>3</td><td>gpu_hours</td><td>negative value", table)


@pytest.mark.parametrize("data,name,message", BAD_UPLOADS, ids=[b[1] for b in BAD_UPLOADS])
def test_bad_upload_lists_problem_and_saves_nothing(login, app, data, name, message):
    client = login("ana")
    before = (count(app, UsageFile), count(app, AuditEvent))
    response = client.post("/scenarios/1/usage", {"usage": (_file(data), name)},
                                 content_type="multipart/form-data")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'id="upload-error"' in html and "Nothing was saved" in html
    assert message in html
    assert (count(app, UsageFile), count(app, AuditEvent)) == before


def test_upload_over_the_size_limit_is_refused(login, app):
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = login("ana").post("/scenarios/1/usage",
                                 {"usage": (_file(b"x" * 5000), "big.csv")},
                                 content_type="multipart/form-data")
    assert response.status_code == 413


def test_review_binds_to_revision_and_new_revision_is_unapproved(login, app):
    reviewer = login("rita")
    assert reviewer.post(R1 + "/reviews", {"decision": "approve", "comment": "fine",
                                           "revision_hash": revision_hash(app)}
                         ).status_code == 302
    html = reviewer.get(R1).get_data(as_text=True)
    assert "binds to revision 1" in html and "rita</strong> approved revision 1" in html
    data = form_data(_revision_assumptions(app, 1))
    data["spot.discount"] = "60"
    assert login("ana").post("/scenarios/1/edit", data).status_code == 302
    html = reviewer.get("/scenarios/1/revisions/2").get_data(as_text=True)
    assert "Not approved: revision 2 has no approval" in html and ">r1</a>" in html
    assert "A newer revision exists" in reviewer.get(R1).get_data(as_text=True)
    audit = reviewer.get("/audit").get_data(as_text=True)
    assert "review.approve" in audit and _revision_hash(app, 1)[:12] in audit


def _revision_hash(app, revision_id):
    with app.app_context():
        with write_session() as s:
            return s.get(Revision, revision_id).content_hash


def test_review_of_a_mismatched_hash_is_refused(login, app):
    client = login("rita")
    before = count(app, AuditEvent)
    response = client.post(R1 + "/reviews", {"decision": "approve", "revision_hash": "0" * 64})
    assert response.status_code == 409 and count(app, AuditEvent) == before


def test_author_as_reviewer_sees_no_review_form(login):
    html = login("rex").get("/scenarios/2/revisions/1").get_data(as_text=True)
    assert 'id="review-form"' not in html and "someone else must review" in html
    assert 'id="review-form"' in login("rita").get("/scenarios/2/revisions/1").get_data(
        as_text=True)


def test_empty_comment_is_not_saved(login, app):
    client = login("rita")
    before = count(app, AuditEvent)
    client.post(R1 + "/reviews", {"decision": "comment", "comment": "  ",
                                  "revision_hash": revision_hash(app)})
    assert count(app, AuditEvent) == before


def test_audit_events_and_revisions_are_append_only(app):
    from sqlalchemy.exc import DatabaseError
    for statement in ("UPDATE audit_events SET actor = 'x'", "DELETE FROM audit_events",
                      "UPDATE revisions SET note = 'x'", "DELETE FROM revisions"):
        with pytest.raises(DatabaseError, match="append-only"):
            with app.app_context():
                with write_session() as s:
                    s.execute(text(statement))


def test_analyst_audit_log_is_limited_to_own_scenarios(login):
    otto = login("otto").get("/audit").get_data(as_text=True)
    assert "Rex&#39;s own" not in otto and "revision.create" not in otto


def test_sqlite_pragmas(app):
    with app.app_context():
        with write_session() as s:
            assert s.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert s.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert s.execute(text("PRAGMA busy_timeout")).scalar() == 15000


def test_profile_tokens_create_use_and_revoke(login, app):
    client = login("ana")
    html = client.post("/profile/tokens", {"label": "laptop"}).get_data(as_text=True)
    token = re.search(r'id="new-token">([^<]+)<', html).group(1)
    api = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    assert api.post("/api/v1/plans", json={}, headers=headers).status_code == 422
    with app.app_context():
        with write_session() as s:
            stored = s.execute(text("SELECT token_hash FROM api_tokens")).scalars().all()
    assert token not in stored and len(stored) == 1
    token_id = int(re.search(r"/profile/tokens/(\d+)/revoke", html).group(1))
    assert login("otto").post(f"/profile/tokens/{token_id}/revoke").status_code == 404
    assert client.post(f"/profile/tokens/{token_id}/revoke").status_code == 302
    assert api.post("/api/v1/plans", json={}, headers=headers).status_code == 401


def test_error_pages(login, app):
    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals")
    client = login("ana")
    response = client.get("/boom")
    html = response.get_data(as_text=True)
    assert response.status_code == 500 and 'id="error-id"' in html
    assert "secret internals" not in html and "Traceback" not in html
    assert client.get("/nope").status_code == 404
    api = app.test_client().get("/api/v1/nope")
    assert api.status_code == 404 and api.get_json()["error"]["code"] == "not_found"
    api = app.test_client().post("/api/v1/plans", headers={"Authorization": "Bearer x"})
    assert api.status_code == 401 and api.get_json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_usage_templates_are_readable(login, fmt):
    from service.ingest import read_usage
    data = login("ana").get(f"/usage-template.{fmt}").data
    assert read_usage(data, f"template.{fmt}").profile.gpu_hours > 0


def test_commitment_offers_can_be_added_and_removed(login, app):
    client = login("ana")
    data = form_data(_revision_assumptions(app, 1))
    assert data["commitments.2.id"] == ""                  # the blank row for a new offer
    data.update({"commitments.2.id": "6m", "commitments.2.term_months": "6",
                 "commitments.2.discount": "20", "commitments.1.remove": "true"})
    assert client.post("/scenarios/1/edit", data).status_code == 302
    offers = _revision_assumptions(app, 3)["commitments"]
    assert [o["id"] for o in offers] == ["1y", "6m"] and offers[1]["term_months"] == 6


def test_bad_value_in_a_later_offer_row_is_shown_on_that_row(login):
    data = form_data(_default())
    data.update({"commitments.0.remove": "true", "commitments.1.block_gpus": "0"})
    html = login("ana").post("/scenarios/1/edit", data).get_data(as_text=True)
    assert re.search(r'data-field="commitments.1.block_gpus">Input should be greater', html)


def test_import_assumptions_from_a_plan_workbook(login, app):
    import io
    client = login("ana")
    workbook = client.get(R1 + "/plan.xlsx").data
    response = client.post("/scenarios/1/import", {"workbook": (io.BytesIO(workbook), "p.xlsx")},
                           content_type="multipart/form-data")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Assumptions loaded from the workbook" in html
    assert 'name="on_demand.price_per_gpu_hour" value="6.88"' in html
    assert count(app, Revision) == 2                        # nothing saved until Save
    response = client.post("/scenarios/1/import", {"workbook": (io.BytesIO(b"junk"), "p.xlsx")},
                           content_type="multipart/form-data")
    assert response.status_code == 422 and "Cannot read the workbook" in response.get_data(
        as_text=True)


def test_saving_after_loading_a_workbook_keeps_what_was_loaded(login, app):
    """Issue 37, item 8: "Load into the form" fills the form; "Save scenario" then posted to
    /scenarios/<id>/import (the form posted to the page's own URL), got 422 "the file is
    empty", and the form returned to the defaults. The form posts to the edit URL, as a
    browser follows its action: the new revision holds the workbook's values."""
    import io
    client = login("ana")
    workbook = client.get(R1 + "/plan.xlsx").data                  # on demand at 6.88
    first = _revision_assumptions(app, 1)
    dearer = form_data({**first, "on_demand": {**first["on_demand"],
                                               "price_per_gpu_hour": 9.99}})
    assert client.post("/scenarios/1/edit", dearer).status_code == 302   # revision 2: 9.99
    loaded = client.post("/scenarios/1/import", {"workbook": (io.BytesIO(workbook), "p.xlsx")},
                         content_type="multipart/form-data").get_data(as_text=True)
    assert 'name="on_demand.price_per_gpu_hour" value="6.88"' in loaded
    action = re.search(r'<form method="post" id="scenario-form" action="([^"]+)"', loaded)
    assert action and action.group(1) == "/scenarios/1/edit"
    saved = client.post(action.group(1), form_data(first))        # the loaded values
    assert saved.status_code == 302, saved.get_data(as_text=True)[-2000:]
    with app.app_context():
        with write_session() as s:
            latest = s.get(ScenarioRecord, 1).latest
            number, assumptions = latest.number, latest.assumptions_dict
    assert number == 3 and assumptions["on_demand"]["price_per_gpu_hour"] == 6.88
