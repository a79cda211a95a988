"""Hostile forms, sessions and access (issue 8.3, design 7): one test per attack.

Each test asserts the status, the message and that nothing was saved (every table's row count).
Brute-force login and replayed session cookies belong to the resilience suite.

The defects an outside security test found (issue 12) have their tests in the hostile suite:
``DEFECTS`` below lists each with the tests that reproduce it, and
``test_every_defect_of_the_security_test_has_its_tests`` keeps the list true.
"""
from __future__ import annotations

import html
import io
import re

from openpyxl import load_workbook

from service.web.tables import User
from service.web.db import write_session
from tests.support.client import PASSWORD, Browser, form_data
from tests.support.hostile import attach_usage, page_text, snapshot, usage_csv

R1 = "/scenarios/1/revisions/1"

# issue 12 defect -> "layer.module::test" that reproduces it (modules under tests/)
DEFECTS = {
    "1 one form post pins a core (commitment rows from the highest index)": [
        "web.test_hostile_requests::test_commitment_row_beyond_the_schema_limit_is_422_in_milliseconds",
        "web.test_hostile_requests::test_row_index_in_other_digits_is_no_row"],
    "2 open redirect after login (/%09/evil.example, CR LF in next)": [
        "web.test_hostile_requests::test_login_next_is_only_a_same_site_path"],
    "3 huge integer ids -> OverflowError": [
        "web.test_hostile_requests::test_huge_integer_ids_are_404_on_every_route"],
    "3 JSON nested 5,000-100,000 deep -> RecursionError": [
        "web.test_hostile_requests::test_deeply_nested_json_is_400"],
    "3 CSV header field of 131,073 characters -> _csv.Error": [
        "web.test_hostile_upload::test_csv_header_field_over_the_csv_limit_is_422_naming_the_column",
        "web.test_hostile_upload::test_api_usage_column_name_over_the_limit_is_422"],
    "4 error responses echo whole values (15 MB cell -> 31.4 MB page)": [
        "web.test_hostile_upload::test_a_15_mb_cell_is_echoed_cut_to_80_characters",
        "web.test_hostile_upload::test_error_bodies_are_bounded_whatever_they_quote"],
    "5 approval records can be changed": [
        "system.test_hostile_records::"
        "test_reviews_plans_usage_files_and_reviewed_scenarios_refuse_update_and_delete",
        "system.test_hostile_records::test_a_review_row_must_name_its_revision_hash",
        "system.test_hostile_records::test_every_append_only_trigger_exists_at_head"],
    "5 a review POST without the revision hash approves": [
        "system.test_hostile_records::"
        "test_review_post_without_the_revision_hash_is_400_and_saves_nothing"],
    "5 a revision without usage file or plan can be approved": [
        "system.test_hostile_records::test_a_revision_without_usage_or_plan_cannot_be_approved"],
    "6 downloads and logouts are not audited": [
        "system.test_hostile_records::test_downloads_and_logouts_are_audited"],
    "7 a downloaded usage file can run formulas": [
        "web.test_hostile_upload::test_downloaded_usage_file_cannot_run_formulas",
        "web.test_hostile_upload::test_downloaded_xlsx_usage_is_values_only_csv"],
    "8 anyone can lock any account": [
        "web.test_hostile_accounts::test_a_stranger_cannot_lock_a_reviewer_out",
        "web.test_hostile_accounts::test_brute_force_from_one_address_stays_limited",
        "web.test_hostile_accounts::test_behind_a_proxy_the_limit_counts_the_forwarded_address"],
    "9 weak credentials accepted": [
        "web.test_hostile_accounts::test_weak_passwords_are_refused",
        "web.test_hostile_accounts::test_password_equal_to_the_user_name_is_refused",
        "web.test_hostile_accounts::test_unsafe_user_names_are_refused",
        "web.test_hostile_accounts::test_users_add_on_the_command_line_refuses_a_weak_password"],
    "10 downloads lack Cache-Control: no-store": [
        "web.test_hostile_requests::test_downloads_and_api_answers_are_not_stored_by_caches"],
    "10 workbook import accepts a zip part named ../x.xml": [
        "web.test_hostile_upload::test_workbook_import_refuses_parts_outside_the_archive"],
    "10 workbook import shows openpyxl's exception text": [
        "web.test_hostile_upload::test_workbook_import_never_shows_library_exception_text"],
}


def test_every_defect_of_the_security_test_has_its_tests():
    import importlib
    assert len({key.split()[0] for key in DEFECTS}) == 10
    for defect, tests in DEFECTS.items():
        assert tests, defect
        for name in tests:
            module, function = name.split("::")
            assert callable(getattr(importlib.import_module(f"tests.{module}"), function)), name


def _default() -> dict:
    from models.scenario import Scenario
    return Scenario().model_dump(mode="json")


def new_scenario(client, **changes) -> int:
    data = form_data(_default())
    data.update(changes)
    response = client.post("/scenarios/new", data)
    assert response.status_code == 302, page_text(response)[:1500]
    return int(re.search(r"/scenarios/(\d+)$", response.headers["Location"]).group(1))


def revision_hash(client, plan_url: str) -> str:
    """The SHA-256 the plan page's review form carries (every review must name it)."""
    page = client.get(plan_url).get_data(as_text=True)
    return re.search(r'name="revision_hash" value="([0-9a-f]{64})"', page).group(1)


# -- formula injection in the exported workbook ------------------------------------------------

INJECTED = {"name": '=HYPERLINK("http://evil.example","click")',
            "offer_a": "-A1", "offer_b": "-2",
            "teams": ["=1+2", "+SUM(1,2)", "@cmd", "-3+4", "\t=5"],
            "file": "=cmd+1.csv"}


def test_formula_injection_in_every_exported_text_cell(login, app):
    """Scenario name, offer ids, team names and the file name are written as text cells."""
    client = login("ana")
    sid = new_scenario(client, **{"name": INJECTED["name"],
                                  "commitments.0.id": INJECTED["offer_a"],
                                  "commitments.1.id": INJECTED["offer_b"]})
    number = attach_usage(client, sid, usage_csv(INJECTED["teams"]), INJECTED["file"])
    response = client.get(f"/scenarios/{sid}/revisions/{number}/plan.xlsx")
    assert response.status_code == 200
    assert re.fullmatch(r'attachment; filename="buyrent-plan-[a-z0-9-]+-r\d+\.xlsx"',
                        response.headers["Content-Disposition"])
    book = load_workbook(io.BytesIO(response.get_data()))
    texts, formulas = [], []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for c in row:
                if c.data_type == "f":
                    formulas.append(str(c.value))
                elif isinstance(c.value, str):
                    texts.append(c.value)
    user_text = [INJECTED["name"], INJECTED["offer_a"], INJECTED["offer_b"],
                 *INJECTED["teams"], INJECTED["file"]]
    for text in user_text:
        assert not any(text.strip() in f for f in formulas if len(text.strip()) > 2), text
    # every user string that the workbook shows is a plain string cell, never a formula
    shown = {t for t in user_text if any(t in s for s in texts)}
    assert INJECTED["name"] in shown
    assert {INJECTED["offer_a"], INJECTED["offer_b"]} <= {t for t in shown if t.startswith("-")}
    assert set(INJECTED["teams"]) - {"\t=5"} <= shown
    assert not {t.strip() for t in user_text} & {f.strip() for f in formulas}
    # the plan JSON download keeps the text as data too
    doc = client.get(f"/scenarios/{sid}/revisions/{number}/plan.json").get_json()
    assert doc["scenario"]["name"] == INJECTED["name"]


# -- script in every displayed name ------------------------------------------------------------

XSS = {k: f"<script>xss_{k}()</script>" for k in ("scenario", "team", "user", "comment")}
XSS["file"] = "<img src=x onerror=xss_file()>"   # a "/" would end the name at the last one


def test_script_in_every_displayed_name_is_escaped(login, app):
    # create_user refuses such a name now (test_hostile_accounts); an account made before
    # that rule may still carry one, and every page must still escape it
    from service.web.users import password_hash
    with app.app_context():
        with write_session() as s:
            s.add(User(username=XSS["user"], password_hash=password_hash(PASSWORD),
                       role="reviewer"))
    ana = login("ana")
    sid = new_scenario(ana, name=XSS["scenario"])
    number = attach_usage(ana, sid, usage_csv([XSS["team"], "ok"]), XSS["file"] + ".csv")
    evil = Browser(app.test_client())
    assert evil.login(XSS["user"]).status_code == 302
    plan = f"/scenarios/{sid}/revisions/{number}"
    assert evil.post(plan + "/reviews", {"decision": "comment", "comment": XSS["comment"],
                                         "revision_hash": revision_hash(evil, plan)}
                     ).status_code == 302
    pages = {"/scenarios/": ("scenario",), f"/scenarios/{sid}": ("scenario", "file"),
             plan: ("scenario", "comment", "user"),
             f"/scenarios/{sid}/compare?a=1&b={number}": ("scenario",),
             "/audit": ("user", "comment", "file")}
    seen = set()
    for who in (ana, evil, login("rita")):
        for url, expected in pages.items():
            response = who.get(url)
            assert response.status_code == 200, url
            raw = response.get_data(as_text=True)
            for key, marker in XSS.items():
                assert marker not in raw, (url, key)          # never as live markup
                if html.escape(marker, quote=False) in raw or \
                        html.escape(marker) in raw:
                    seen.add((url, key))
            for key in expected:
                if who is ana and key in ("comment", "user") and url == "/audit":
                    continue              # ana's audit view: her own scenarios' events
                assert (url, key) in seen, (url, key, raw[:300])
    # the team name travels only inside JSON / the preview, escaped as well
    preview = ana.post(f"/scenarios/{sid}/usage",
                       {"usage": (io.BytesIO(usage_csv([XSS["team"]], 40)), XSS["file"])},
                       content_type="multipart/form-data").get_data(as_text=True)
    assert XSS["team"] not in preview and XSS["file"] not in preview


# -- CSRF --------------------------------------------------------------------------------------

def test_missing_csrf_token_is_400_and_saves_nothing(login, app):
    client = login("ana")
    rita = login("rita")
    before = snapshot(app)
    data = form_data(_default())
    for url, body in (("/scenarios/new", data), ("/scenarios/1/edit", data),
                      ("/profile/tokens", {"label": "x"}), ("/logout", {})):
        response = client.client.post(url, data=body)
        assert response.status_code == 400, url
        assert "The CSRF token is missing." in page_text(response), url
    response = rita.client.post(R1 + "/reviews", data={"decision": "approve"})
    assert response.status_code == 400 and "CSRF token is missing" in page_text(response)
    assert snapshot(app) == before
    assert client.get("/profile").status_code == 200       # still logged in: logout refused


def test_stale_and_foreign_csrf_tokens_are_400_and_save_nothing(login, app):
    otto = login("otto")
    foreign = otto.token()
    rita = login("rita")
    stale = rita.token()
    rita.post("/logout")
    assert rita.login("rita").status_code == 302            # a new session
    rita.get(R1)
    before = snapshot(app)
    for token, message in ((foreign, "The CSRF tokens do not match."),
                           (stale, "The CSRF tokens do not match."),
                           ("garbage", "The CSRF token is invalid.")):
        response = rita.client.post(R1 + "/reviews", data={"decision": "approve",
                                                           "csrf_token": token})
        assert response.status_code == 400, token
        assert message in page_text(response)
    assert snapshot(app) == before


# -- state change by GET -----------------------------------------------------------------------

def test_get_on_every_post_route_changes_nothing(login, app):
    """Every rule that accepts POST, requested with GET by an owner, a reviewer and an admin:
    405 or a harmless page (the form), and no table changes."""
    rules = [r for r in app.url_map.iter_rules() if "POST" in r.methods]
    assert len(rules) >= 8
    values = {"scenario_id": 1, "number": 1, "file_id": 1, "token_id": 1}
    clients = [login(who) for who in ("ana", "rita", "root")]
    before = snapshot(app)
    checked = 0
    for client in clients:
        for rule in rules:
            url = rule.rule
            for name, value in values.items():
                url = url.replace(f"<int:{name}>", str(value))
            response = client.get(url + "?decision=approve&comment=x&label=x&name=x")
            if "GET" in rule.methods:
                assert response.status_code in (200, 403), (url, response.status_code)
            elif url.startswith("/api/"):
                assert response.status_code in (401, 405), url
            else:
                assert response.status_code == 405, (url, response.status_code)
                assert "Method Not Allowed" in page_text(response)
            checked += 1
    assert checked == 3 * len(rules)
    assert snapshot(app) == before


# -- object-level access -----------------------------------------------------------------------

def test_other_users_scenarios_by_id_are_404_everywhere(login, app):
    """otto (analyst) on ana's scenario 1: every page, download and POST is 404, the API has no
    way to reach a stored scenario, and nothing is saved."""
    otto = login("otto")
    before = snapshot(app)
    values = {"scenario_id": 1, "number": 1, "file_id": 1, "job_id": 1}
    rules = [r for r in app.url_map.iter_rules() if "scenario_id" in r.arguments]
    api_rules = [r for r in rules if r.rule.startswith("/api/")]
    rules = [r for r in rules if r not in api_rules]  # the API takes tokens, below
    assert len(rules) >= 10
    for rule in rules:
        url = rule.rule
        for name, value in values.items():
            url = url.replace(f"<int:{name}>", str(value))
        for method in sorted(rule.methods & {"GET", "POST"}):
            response = otto.get(url) if method == "GET" else \
                otto.post(url, {"decision": "approve", "comment": "mine now"})
            assert response.status_code == 404, (method, url, response.status_code)
            if getattr(app.view_functions[rule.endpoint], "answers_json", False):
                assert response.get_json()["error"]["code"] == "not_found"   # the live plan
            else:
                assert "Not Found" in page_text(response)
            assert "8x H100" not in page_text(response)        # nothing of the scenario leaks
    assert "/scenarios/1" not in otto.get("/scenarios/").get_data(as_text=True)
    # the API: a token of otto's only computes plans from what he sends
    from service.web.users import create_token
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="otto").one(), "t")
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    for url in ("/api/v1/scenarios/1", "/api/v1/plans/1", "/api/v1/scenarios/1/revisions/1"):
        response = client.get(url, headers=headers)
        assert response.status_code == 404
        assert response.get_json()["error"]["code"] == "not_found"
    assert api_rules  # every API route that names a scenario: another user's is a 404
    for rule in api_rules:
        url = rule.rule.replace("<int:scenario_id>", "1")
        response = client.post(url, headers=headers, json={"scenario": {}})
        assert response.status_code == 404, (url, response.status_code)
        assert response.get_json()["error"]["code"] == "not_found"
    after = snapshot(app)
    assert {k: v for k, v in after.items() if k not in ("ApiToken", "AuditEvent")} == \
        {k: v for k, v in before.items() if k not in ("ApiToken", "AuditEvent")}


# -- self-approval -----------------------------------------------------------------------------

def test_self_approval_is_403_and_saves_nothing(login, app):
    rex = login("rex")                 # a reviewer who authored scenario 2
    before = snapshot(app)
    for decision in ("approve", "reject", "comment"):
        response = rex.post("/scenarios/2/revisions/1/reviews",
                            {"decision": decision, "comment": "looks great"})
        assert response.status_code == 403
        assert "You authored this revision: someone else must review it." in \
            page_text(response)
    assert snapshot(app) == before
    assert 'id="review-form"' not in rex.get("/scenarios/2/revisions/1").get_data(as_text=True)
