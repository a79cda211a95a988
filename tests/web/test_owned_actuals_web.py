"""The owned fleet's actuals in the service (issue 43): uploaded beside the bills through the same
form and API part, refused by row and column in English and Korean with nothing saved, read
into the Plan vs actual page's idle-server and late-delivery parts, and a later upload of
either kind replacing only its own part of a month."""
from __future__ import annotations

import io
import re

from service.owned_actuals import COLUMNS
from service.web.db import write_session
from service.web.tables import ActualFile, ActualUpload, AuditEvent, User
from service.web.users import create_token
from tests.support.client import count, revision_hash
from tests.support.paths import SAMPLES

R1 = "/scenarios/1/revisions/1"
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
OWNED = SAMPLES / "actuals" / "owned_2027-01_2027-06.csv"
API = "/api/v1/scenarios/1/actuals"


def approve_proposed(login, app):
    assert login("rita").post(R1 + "/reviews", {
        "decision": "approve", "comment": "ok", "strategy": "proposed",
        "revision_hash": revision_hash(app)}).status_code == 302


def upload(client, files):
    data = {"bills": [(io.BytesIO(body), name) for name, body in files]}
    return client.post("/scenarios/1/actuals", data, content_type="multipart/form-data")


def files(paths):
    return [(p.name, p.read_bytes()) for p in paths]


def variance_rows(html):
    """Part name -> cents per column (six months, then the year to date), and the totals."""
    table = re.search(r'id="variance-table".*?</table>', html, re.S).group(0)
    parts = {name: [int(c) for c in re.findall(r'data-cents="(-?\d+)"', body)]
             for name, body in re.findall(r'<tr class="part" data-part="([^"]+)">(.*?)</tr>',
                                          table, re.S)}
    total = re.search(r'<tr class="total">(.*?)</tr>', table, re.S).group(1)
    return parts, [int(c) for c in re.findall(r'data-cents="(-?\d+)"', total)]


def bad_owned() -> bytes:
    lines = OWNED.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace(",6,", ",7,", 1)           # January: 7 online, 6 held
    return ("\n".join(lines) + "\n").encode()


def test_the_template_downloads_and_the_page_links_it(login, app):
    ana = login("ana")
    approve_proposed(login, app)
    response = ana.get("/owned-actuals-template.csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.get_data(as_text=True).splitlines()[0] == ",".join(COLUMNS)
    page = ana.get("/scenarios/1/actuals").get_data(as_text=True)
    assert 'href="/owned-actuals-template.csv"' in page and "owned fleet" in page
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = ana.get("/scenarios/1/actuals").get_data(as_text=True)
    assert "자체 보유 실적 템플릿" in korean and "The owned fleet" not in korean


def test_bills_then_owned_actuals_each_replace_their_own_part(login, app):
    ana, rita = login("ana"), login("rita")
    approve_proposed(login, app)
    assert upload(ana, files(BILLS)).status_code == 302
    bills_only, _total = variance_rows(rita.get(R1 + "/actual").get_data(as_text=True))
    assert "idle_servers" not in bills_only and "timing.delivery" not in bills_only
    assert upload(ana, files([OWNED])).status_code == 302
    html = rita.get(R1 + "/actual").get_data(as_text=True)
    parts, total = variance_rows(html)
    assert "Idle servers (owned capacity that did no work)" in html
    assert "Timing: servers delivered late or early" in html
    for column in range(7):
        assert sum(p[column] for p in parts.values()) == total[column]
    assert all(c > 0 for c in parts["idle_servers"])
    assert parts["timing.delivery"][:3] == [parts["timing.delivery"][0],
                                            parts["timing.delivery"][1], 0]
    assert parts["timing.delivery"][0] > 0 and parts["timing.capex"][0] == -66_000_000
    assert parts["idle_commitments"] == bills_only["idle_commitments"]   # the bills stay
    # a corrected January bill replaces the bill only: the owned parts of January stay
    again = BILLS[0].read_text().replace("157751.68", "167751.68")
    assert again != BILLS[0].read_text()
    assert upload(ana, [("jan-corrected.csv", again.encode())]).status_code == 302
    after, after_total = variance_rows(rita.get(R1 + "/actual").get_data(as_text=True))
    assert after["idle_servers"][0] == parts["idle_servers"][0]
    assert after["timing.capex"][0] == -66_000_000
    assert after_total[0] - total[0] == 1_000_000                    # 10,000.00 more
    assert (count(app, ActualUpload), count(app, ActualFile)) == (3, 8)


def test_a_bad_owned_file_is_refused_by_row_and_column_nothing_saved(login, app):
    ana = login("ana")
    approve_proposed(login, app)
    before = (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent))
    response = upload(ana, files(BILLS) + [("owned.csv", bad_owned())])
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'id="problems"' in html and "servers_online" in html and "<td>2</td>" in html
    assert "7 servers online but 6 held in 2027-01" in html and "Nothing was saved." in html
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = upload(ana, [("owned.csv", bad_owned())]).get_data(as_text=True)
    assert "가동 서버 7대, 2027-01에 보유한 서버 6대" in korean and "servers online but" \
        not in korean
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before


def test_owned_actuals_through_the_api(login, app):
    with app.app_context():
        with write_session() as s:
            ana = {"Authorization": "Bearer " + create_token(
                s, s.query(User).filter_by(username="ana").one(), "test")}
    approve_proposed(login, app)
    client = app.test_client()

    def post(payload, **headers):
        data = {"bills": [(io.BytesIO(body), name) for name, body in payload]}
        return client.post(API, data=data, headers={**ana, **headers},
                           content_type="multipart/form-data")
    refused = post([("owned.csv", bad_owned())], **{"Accept-Language": "ko"})
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "invalid_input"
    assert [(d["row"], d["column"]) for d in error["details"]] == [(2, "servers_online")]
    assert "가동 서버 7대" in error["message"] and "owned.csv" in error["message"]
    assert count(app, ActualUpload) == 0
    saved = post(files(BILLS) + files([OWNED]))
    assert saved.status_code == 201, saved.get_data(as_text=True)
    assert saved.get_json()["upload"]["months"] == [f"2027-0{m}" for m in range(1, 7)]
    doc = client.get("/api/v1/scenarios/1/revisions/1/variance", headers=ana).get_json()
    for entry in doc["months"] + [doc["ytd"]]:
        assert sum(entry["parts_cents"].values()) == entry["total_cents"]
        assert entry["parts_cents"]["idle_servers"] > 0
    assert doc["ytd"]["parts_cents"]["timing.delivery"] > 0
    assert doc["months"][0]["parts"]["timing.capex"] == "-660000.00"
