"""Alert thresholds on the web (issue 43, thresholds): the scenario's alert settings (its owner
only, no new revision, refused values saved nowhere, the webhook URL never shown back), breaches
evaluated when actual bills are uploaded and recorded once per (scenario, month, kind), shown on
the list of scenarios for its analyst and reviewers, on the Plan vs actual page and in the
audit log, in English and Korean.

The six bills made against the demo plan's cloud_only strategy (tests/data/actuals_cloud_only)
give per month spend over plan and commitment utilization of (from the variance document's
cents and GPU-hours): 2027-01 49.74 % / 63.21 %, 2027-02 55.18 % / 57.76 %, 2027-03
46.82 % / 63.82 %, 2027-04 66.24 % / 62.64 %, 2027-05 55.64 % / 66.51 %, 2027-06 50.90 % /
67.77 %. Thresholds of 55 % and 63 % are breached by 02, 04, 05 (spend) and 02, 04 (use).
"""
from __future__ import annotations

import re

from sqlalchemy import select

from models.thresholds import KINDS, Thresholds
from service.i18n.alert_words import LABELS, UNITS
from service.web.db import write_session
from service.web.tables import AlertBreach, AlertSettings, AuditEvent, Revision
from tests.support.client import count
from tests.support.actual_steps import (CLOUD_ONLY_BILLS, R1, approve, english_words,
                                        sample_files, upload)

ALERTS = "/scenarios/1/alerts"
SECRET_URL = "https://hooks.slack.example/services/T000/B000/very-secret-token"


def save(client, **fields):
    data = {"spend_over_plan": "", "commitment_utilization": "", "owned_utilization": "",
            "webhook_url": "", **fields}
    return client.post(ALERTS, data)


def settings(app):
    with app.app_context():
        with write_session() as s:
            return [(r.spend_over_plan, r.commitment_utilization, r.owned_utilization,
                     r.webhook_url) for r in s.scalars(select(AlertSettings))]


def breaches(app):
    with app.app_context():
        with write_session() as s:
            return sorted((b.month, b.kind, b.value, b.threshold)
                          for b in s.scalars(select(AlertBreach)))


def test_the_form_is_made_of_the_thresholds_fields():
    for name in KINDS:
        info = Thresholds.model_fields[name]
        assert info.title == LABELS[name]
        assert info.json_schema_extra["unit"] == "% " + UNITS[name]


def test_the_owner_sets_thresholds_without_a_new_revision_and_others_cannot(login, app):
    ana, rita, otto = login("ana"), login("rita"), login("otto")
    page = ana.get(ALERTS).get_data(as_text=True)
    assert "Alert when a month&#39;s spend is over its plan by more than" in page
    assert 'min="0" max="1000"' in page and 'min="0" max="100"' in page
    assert "Exactly at a threshold is no alert." in page
    assert 'id="alert-settings"' in ana.get("/scenarios/1").get_data(as_text=True)
    assert rita.get(ALERTS).status_code == 403 and otto.get(ALERTS).status_code == 404
    assert save(rita, spend_over_plan="5").status_code == 403
    revisions = count(app, Revision)
    assert save(ana, spend_over_plan="55", commitment_utilization="63").status_code == 302
    assert settings(app) == [("55", "63", None, None)]
    assert count(app, Revision) == revisions          # not a plan input
    assert 'value="55"' in ana.get(ALERTS).get_data(as_text=True)
    audit = ana.get("/audit").get_data(as_text=True)
    assert "alert settings saved" in audit and "spend over plan above 55 %" in audit


def test_a_bad_value_or_webhook_is_refused_by_field_and_nothing_is_saved(login, app):
    ana = login("ana")
    before = (count(app, AlertSettings), count(app, AuditEvent))
    for fields, words in (({"spend_over_plan": "-1"}, "greater than or equal to 0"),
                          ({"commitment_utilization": "101"}, "less than or equal to 100"),
                          ({"owned_utilization": "abc"}, "valid decimal"),
                          ({"spend_over_plan": "10.125"}, "2 decimal places"),
                          ({"webhook_url": "http://hooks.slack.example/x"}, "https://"),
                          ({"webhook_url": "https://127.0.0.1/hook"}, "loopback"),
                          ({"webhook_url": "https://10.0.0.8/hook"}, "loopback"),
                          ({"webhook_url": "https://localhost/hook"}, "loopback"),
                          ({"webhook_url": "https://user:pw@hooks.slack.example/x"}, "https://"),
                          ({"webhook_url": "https://[::ffff:127.0.0.1]/x"}, "loopback")):
        response = save(ana, **fields)
        html = response.get_data(as_text=True)
        assert response.status_code == 422, fields
        assert "Nothing was saved" in html and words in html, (fields, html[-3000:])
    assert (count(app, AlertSettings), count(app, AuditEvent)) == before
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = save(ana, spend_over_plan="-1", webhook_url="https://127.0.0.1/x"
                  ).get_data(as_text=True)
    assert "아무것도 저장하지 않았습니다" in korean and "0 이상" in korean
    assert "웹훅 URL은 인터넷상의 https:// 주소여야" in korean
    assert (count(app, AlertSettings), count(app, AuditEvent)) == before


def test_the_webhook_url_is_never_shown_back(login, app):
    ana = login("ana")
    assert save(ana, spend_over_plan="55", webhook_url=SECRET_URL).status_code == 302
    assert settings(app)[-1][3] == SECRET_URL
    for page in (ALERTS, "/audit", "/scenarios/1", "/scenarios/"):
        html = ana.get(page).get_data(as_text=True)
        assert "very-secret-token" not in html and "hooks.slack.example" not in html, page
    assert "A webhook is configured for this scenario." in ana.get(ALERTS).get_data(as_text=True)
    assert save(ana, spend_over_plan="60").status_code == 302          # empty field: kept
    assert settings(app)[-1] == ("60", None, None, SECRET_URL)
    assert save(ana, spend_over_plan="60", webhook_remove="1").status_code == 302
    assert settings(app)[-1] == ("60", None, None, None)
    assert "No webhook is configured" in ana.get(ALERTS).get_data(as_text=True)
    assert len(settings(app)) == 3                                    # a history, append-only
    audit = ana.get("/audit").get_data(as_text=True)
    assert "a new webhook configured" in audit and "; webhook removed" in audit


def test_breaches_are_recorded_once_and_shown_to_the_analyst_and_reviewers(login, app):
    ana, rita, otto = login("ana"), login("rita"), login("otto")
    approve(rita, app, "cloud_only")
    assert save(ana, spend_over_plan="55", commitment_utilization="63").status_code == 302
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)).status_code == 302
    expected = [("2027-02", "commitment_utilization", "57.76", "63.00"),
                ("2027-02", "spend_over_plan", "55.18", "55.00"),
                ("2027-04", "commitment_utilization", "62.64", "63.00"),
                ("2027-04", "spend_over_plan", "66.24", "55.00"),
                ("2027-05", "spend_over_plan", "55.64", "55.00")]
    assert breaches(app) == expected
    events = count(app, AuditEvent)
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)).status_code == 302        # the same months again
    assert breaches(app) == expected                              # recorded once
    assert count(app, AuditEvent) == events + 1                   # the upload's own event only
    for client in (ana, rita):
        listing = client.get("/scenarios/").get_data(as_text=True)
        badges = re.findall(r'<a class="alert-badge" data-kind="(\w+)"[^>]*>([^<]*)</a>',
                            listing)
        assert badges == [("spend_over_plan", "Spend over plan: 2027-05 and 2 more months"),
                          ("commitment_utilization",
                           "Commitment utilization low: 2027-04 and 1 more month")]
    assert "alert-badge" not in otto.get("/scenarios/").get_data(as_text=True)
    page = rita.get(R1 + "/actual").get_data(as_text=True)
    section = re.search(r'<section id="alerts".*?</section>', page, re.S).group(0)
    assert "2027-02: spend 55.18 % over plan (alert above 55.00 %)" in section
    assert "2027-04: commitment utilization 62.64 % (alert under 63.00 %)" in section
    assert section.count('class="alert-breach"') == 5
    audit = rita.get("/audit").get_data(as_text=True)
    assert audit.count('data-action="alert.breach"') == 5
    assert "2027-05: spend 55.64 % over plan (alert above 55.00 %)" in audit
    for client in (ana, rita):
        client.post("/language", {"lang": "ko", "next": "/profile"})
    listing = rita.get("/scenarios/").get_data(as_text=True)
    assert "계획 초과 지출: 2027-05 외 2개월" in listing
    assert "약정 가동률 낮음: 2027-04 외 1개월" in listing
    korean = ana.get(R1 + "/actual").get_data(as_text=True)
    assert "2027-02: 지출이 계획보다 55.18% 많음 (알림 기준 55.00% 초과)" in korean
    assert "2027-04: 약정 가동률 62.64% (알림 기준 63.00% 미만)" in korean
    assert "알림 기준 초과" in rita.get("/audit").get_data(as_text=True)
    assert "알림 설정" in ana.get(ALERTS).get_data(as_text=True)


def test_thresholds_set_later_apply_from_the_next_upload_and_add_new_kinds_only(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)).status_code == 302
    assert breaches(app) == []                                    # no thresholds yet
    save(ana, spend_over_plan="66.23")
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)[3:4]).status_code == 302    # 2027-04 again
    assert breaches(app) == [("2027-04", "spend_over_plan", "66.24", "66.23")]
    save(ana, spend_over_plan="50", commitment_utilization="58")
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)[1:2]).status_code == 302    # 2027-02
    # every month with actuals is evaluated; 2027-04's spend was recorded already
    assert breaches(app) == [("2027-02", "commitment_utilization", "57.76", "58.00"),
                             ("2027-02", "spend_over_plan", "55.18", "50.00"),
                             ("2027-04", "spend_over_plan", "66.24", "66.23"),
                             ("2027-05", "spend_over_plan", "55.64", "50.00"),
                             ("2027-06", "spend_over_plan", "50.90", "50.00")]


def test_the_alert_pages_are_korean(login, app):
    """What this piece puts on a Korean page (the settings page and its refusal, the list's
    badges, Plan vs actual's alerts, the audit log's alert rows) holds no English word but
    names (Slack, Microsoft Teams, URL, https)."""
    names = frozenset({"Slack", "Microsoft", "Teams", "URL", "https"})
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only", comment="확인했습니다.")
    assert save(ana, spend_over_plan="55", commitment_utilization="63",
                webhook_url=SECRET_URL).status_code == 302
    assert save(ana, spend_over_plan="55", webhook_remove="1").status_code == 302
    assert upload(ana, sample_files(CLOUD_ONLY_BILLS)).status_code == 302
    for user in (ana, rita):
        user.post("/language", {"lang": "ko", "next": "/profile"})

    def main(html):
        return re.search(r"<main.*?</main>", html, re.S).group(0)
    pages = {ALERTS: main(ana.get(ALERTS).get_data(as_text=True)),
             "refused": main(save(ana, spend_over_plan="x", webhook_url="https://10.0.0.1/"
                                  ).get_data(as_text=True)),
             "badges": " ".join(re.findall(r'<a class="alert-badge".*?</a>', rita.get(
                 "/scenarios/").get_data(as_text=True), re.S)),
             "alerts": re.search(r'<section id="alerts".*?</section>', ana.get(
                 R1 + "/actual").get_data(as_text=True), re.S).group(0),
             "audit": " ".join(re.findall(r'<tr><td>\d+</td>(?:(?!</tr>).)*data-action="alert'
                                          r'(?:(?!</tr>).)*</tr>', rita.get("/audit").get_data(
                                              as_text=True), re.S))}
    assert pages["badges"] and pages["audit"].count("<tr>") == 5   # 2 settings, 3 breaches
    found = {url: english_words(html, names) for url, html in pages.items()}
    assert {url: words for url, words in found.items() if words} == {}


def test_the_api_gives_the_alerts_and_says_a_webhook_is_configured_never_its_url(login, app):
    from service.web.tables import User
    from service.web.users import create_token
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    save(ana, spend_over_plan="66", webhook_url=SECRET_URL)
    upload(ana, sample_files(CLOUD_ONLY_BILLS))
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.scalars(select(User).where(User.username == "rita")).one(),
                                 "t")
    answer = app.test_client().get("/api/v1/scenarios/1/actuals",
                                   headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["alert_settings"] == {"spend_over_plan": "66", "commitment_utilization": None,
                                      "owned_utilization": None, "webhook": "scenario"}
    assert [(a["month"], a["kind"], a["value"], a["threshold"], a["revision"])
            for a in body["alerts"]] == [("2027-04", "spend_over_plan", "66.24", "66.00", 1)]
    assert "very-secret-token" not in answer.get_data(as_text=True)
