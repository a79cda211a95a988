"""Language selection, the switch, translated pages, flashes and API errors (issue 15)."""
from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select

from service.web.tables import User
from service.web.db import write_session
from tests.support.client import Browser

KO = {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"}
R1 = "/scenarios/1/revisions/1"


def saved_language(app, name: str):
    with app.app_context():
        with write_session() as s:
            return s.scalar(select(User).where(User.username == name)).language


@pytest.mark.parametrize("header, lang, word", [
    ({}, "en", "Log in"),                                         # no header: English
    ({"Accept-Language": "ko"}, "ko", "로그인"),
    (KO, "ko", "로그인"),                                           # region tag falls back
    ({"Accept-Language": "fr-FR,fr;q=0.9"}, "en", "Log in"),      # unsupported: English
    ({"Accept-Language": "fr;q=1,ko;q=0.5"}, "ko", "로그인"),       # first supported one
])
def test_anonymous_page_follows_accept_language(browser, header, lang, word):
    html = browser.get("/login", headers=header).get_data(as_text=True)
    assert f'<html lang="{lang}">' in html and word in html


def test_switch_works_before_login_and_survives_it(browser):
    response = browser.post("/language", {"lang": "ko", "next": "/login"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/login")
    assert "사용자 이름" in browser.get("/login").get_data(as_text=True)
    assert browser.login("ana").status_code == 302
    assert "새 시나리오" in browser.get("/scenarios/").get_data(as_text=True)


def test_switch_needs_csrf_and_refuses_foreign_next(browser):
    assert browser.client.post("/language", data={"lang": "ko"}).status_code == 400
    response = browser.post("/language", {"lang": "ko", "next": "//evil.example/x"})
    assert response.headers["Location"].endswith("/scenarios/")


def test_saved_preference_beats_accept_language(app, login):
    ana = login("ana")
    assert saved_language(app, "ana") is None
    assert ana.post("/language", {"lang": "ko", "next": "/profile"}).status_code == 302
    assert saved_language(app, "ana") == "ko"
    other = Browser(app.test_client())              # a new browser, English by its header
    other.login("ana")
    html = other.get("/scenarios/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="ko">' in html
    other.post("/language", {"lang": "", "next": "/profile"})   # back to the browser's
    assert saved_language(app, "ana") is None
    assert '<html lang="en">' in other.get("/scenarios/").get_data(as_text=True)


def test_plan_page_in_korean_formats_numbers_and_money(login, sample_plan):
    html = login("ana").get(R1, headers=KO).get_data(as_text=True)
    assert '<html lang="ko">' in html and "현재가치 비용" in html and "최적 조합" in html
    pv = sample_plan[1].document["strategies"]["optimal"]["pv_cost"]
    assert f"US${pv:,.0f}" in html                  # CLDR ko writes dollars as US$
    charts = json.loads(re.search(r'id="plan-charts">(.*?)</script>', html, re.S).group(1))
    assert charts["text"]["cumulative"] == "전략별 누적 비용"
    assert charts["names"]["strategy:optimal"] == "최적 조합"
    labels = [row["label"] for row in charts["uncertainty"]["tornado"]]
    assert "수요 증가율" in labels and all(re.search("[가-힣]", x) for x in labels if x != "PUE")
    # the engine's sentences come as messages: the recommendation is rendered in Korean
    recommendation = re.search(r'id="recommendation"[^>]*>(.*?)</p>', html, re.S)
    assert 'id="recommendation" lang="en"' not in html
    assert re.search("[가-힣]", recommendation.group(1)) and "Buy" not in recommendation.group(1)


def test_flash_and_error_page_are_translated(login):
    ana = login("ana")
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    page = ana.get("/scenarios/1/edit").get_data(as_text=True)
    # units name the currency of the money they are in ("금액" -> USD), percent fields "%"
    assert "온디맨드 가격" in page and "GPU 시간당 USD" in page and "재무" in page
    response = ana.get("/scenarios/999")
    assert response.status_code == 404 and "찾을 수 없음" in response.get_data(as_text=True)
    data = {"csrf_token": ana.token()}
    response = ana.client.post("/scenarios/1/revisions/1/reviews", data=data)
    assert response.status_code == 403 and "검토자만" in response.get_data(as_text=True)


def test_form_errors_in_korean(login):
    ana = login("ana")
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    form = {"name": "x", "owned.pue": "0.5", "finance.horizon_months": "abc"}
    html = ana.post("/scenarios/new", form).get_data(as_text=True)
    assert "1 이상이어야 합니다" in html and "올바른 정수여야 합니다" in html


def test_api_messages_follow_accept_language_and_keys_stay_english(app):
    client = app.test_client()
    body = client.post("/api/v1/plans", headers=KO).get_json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == "unauthorized" and "토큰" in body["error"]["message"]
    english = client.post("/api/v1/plans").get_json()
    assert "token" in english["error"]["message"]


def test_api_scenario_errors_in_korean(app):
    from service.web.users import create_token
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.scalar(select(User).where(User.username == "ana")))
    headers = {**KO, "Authorization": f"Bearer {token}"}
    body = app.test_client().post("/api/v1/plans", headers=headers, json={
        "scenario": {"owned": {"pue": 0.5}}, "usage": [{"timestamp": "2026-01",
                                                          "gpu_hours": 5}]}).get_json()
    assert body["error"]["message"] == "시나리오가 올바르지 않습니다."
    assert body["error"]["details"] == [{"field": "owned.pue",
                                         "message": "1 이상이어야 합니다"}]


def test_workbook_download_in_the_readers_language(app, login):
    import io
    from pathlib import Path

    import openpyxl
    ana = login("ana")
    english = ana.get(R1 + "/plan.xlsx").data
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = ana.get(R1 + "/plan.xlsx").data
    assert openpyxl.load_workbook(io.BytesIO(english)).sheetnames[0] == "Summary"
    names = openpyxl.load_workbook(io.BytesIO(korean)).sheetnames
    assert names[:3] == ["요약", "가정", "프로필"] and "최적 조합" in names
    from sqlalchemy import select
    from service.web.db import write_session
    from service.web.tables import PlanJob
    with app.app_context():
        with write_session() as s:
            keys = s.scalars(select(PlanJob.key).where(PlanJob.kind == "workbook")).all()
    assert len(keys) == 2 and any(":ko:" in k for k in keys)   # one workbook per language


def test_korea_context_preset_form_in_korean(login):
    """The local-context preset (branch fx): its label, paragraph and each value's source come
    through the catalog; a preset that cannot apply says why in Korean."""
    ana = login("ana")
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    html = ana.get("/scenarios/new?preset=context/kr-2025").get_data(as_text=True)
    assert "지역 설정(국가: 통화, 부가세, 환율, 전기, 세금)" in html
    assert "프리셋 <strong>한국 2025: 원화 기준" in html and "USD당 1,422.16 KRW로 환산" in html
    assert "한국전력 산업용(을) 평균 단가" in html and "(2025-12-31 기준)" in html
    assert "KEPCO industrial" not in html and "as of 2025-12-31" not in html
    assert "보고 통화" in html and "환율" in html


def test_scenario_page_says_a_saved_price_presets_source_in_korean(login):
    """A revision records its price preset's source in English ("SkyPilot catalog ... at
    commit 00148f2"); the scenario page says it in the reader's language, as the form does
    (it was English on the Korean page, issue 24)."""
    from models.scenario import Scenario
    from tests.support.client import form_data
    preset = "aws/p5.48xlarge/ap-northeast-2"
    ana = login("ana")
    data = form_data({**Scenario().model_dump(mode="json"), "name": "서울 p5"})
    data.update({"preset": preset, "on_demand.price_per_gpu_hour": "9.4944",
                 "spot.availability": "0"})
    response = ana.post("/scenarios/new", data)
    assert response.status_code == 302
    html = ana.get(response.headers["Location"], headers=KO).get_data(as_text=True)
    assert "SkyPilot 카탈로그 skypilot-org/skypilot-catalog catalogs/v8/aws/vms.csv, 커밋 " \
        "00148f2" in html
    assert "at commit" not in html
    english = ana.get(response.headers["Location"], headers={"Accept-Language": "en"})
    assert "aws/vms.csv at commit 00148f2." in english.get_data(as_text=True)

def test_data_messages_are_translated_without_being_read_as_format_strings(app):
    """Pages show data messages (a preset's label, an ingest warning, a plan rule) through
    |translated: the catalog entry, else a reader's warning rebuilt from its parts, and never
    %-formatted (the Korea preset's label "... 10 % VAT ..." was a 500 through Jinja's _())."""
    from service.i18n import using_locale
    translated = app.jinja_env.filters["translated"]
    label = ("Korea 2025: figures in won, AWS billed in dollars, 10 % VAT, corporate tax 20.9 %, "
             "industrial electricity")
    warning = "12 hours between 2027-01-03 and 2027-01-04 have no rows; they count as zero usage"
    with app.test_request_context("/"):
        assert translated(label) == label              # English: as written
        with using_locale("ko"):
            assert "10 % VAT" not in translated(label) and "%" in translated(label)
            assert translated(warning) == ("2027-01-03부터 2027-01-04 사이의 12개 기간(시간)에 "
                                           "행이 없습니다. 사용량 0으로 계산합니다")
        assert translated(None) == "" and translated("") == ""


BROKEN = b"timestamp,gpu_hours\n2027-01-01T00:00,x\n2027-01-01T01:00,-1\n"


def test_upload_refusal_in_korean_by_row_and_column(login):
    """A broken usage file refused in Korean (issue 24): the message above the table and each
    problem, with the same rows and columns; a problem of the whole file shows no "None"."""
    import io
    ana = login("ana")
    response = ana.post("/scenarios/1/usage", {"usage": (io.BytesIO(BROKEN), "bad.csv")},
                        content_type="multipart/form-data", headers=KO)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert ("bad.csv: 2행, &#39;gpu_hours&#39; 열: 0 이상의 숫자여야 하는데 &#39;x&#39;입니다; "
            "3행, &#39;gpu_hours&#39; 열: 음수 &#39;-1&#39;: 0 이상의 숫자여야 합니다") in html
    assert "expected a number" not in html and "negative value" not in html
    whole = ana.post("/scenarios/1/usage", {"usage": (io.BytesIO(b"\n"), "empty.csv")},
                     content_type="multipart/form-data", headers=KO).get_data(as_text=True)
    assert "파일이 비어 있습니다" in whole and "None" not in whole
    assert "<td>-</td><td>-</td>" in whole


def test_api_usage_refusal_follows_accept_language(api):
    """The API's 422 for a broken usage file: message and details in the request's language,
    keys and rows as they were."""
    import io
    korean = api(data={"usage": (io.BytesIO(BROKEN), "bad.csv")}, headers=KO).get_json()
    english = api(data={"usage": (io.BytesIO(BROKEN), "bad.csv")}).get_json()
    assert korean["error"]["code"] == english["error"]["code"]
    assert korean["error"]["message"].startswith("bad.csv: 2행, 'gpu_hours' 열: ")
    assert [d["message"] for d in korean["error"]["details"]] == [
        "0 이상의 숫자여야 하는데 'x'입니다", "음수 '-1': 0 이상의 숫자여야 합니다"]
    assert [(d["row"], d["column"]) for d in korean["error"]["details"]] == [
        (d["row"], d["column"]) for d in english["error"]["details"]] == [
        (2, "gpu_hours"), (3, "gpu_hours")]
    assert english["error"]["details"][0]["message"] == "expected a number >= 0, got 'x'"
