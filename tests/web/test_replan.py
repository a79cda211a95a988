"""Re-plan from the actuals on the web (issue 43, re-plan), on SQLite: approve the demo plan's
cloud_only strategy, upload the six sample bills (2027-01 to 2027-06), re-plan, run the job
(the test queue runs it at once) and read the new revision's position, start and usage, the
comparison with the approved revision and the forecast re-planned.

By hand: cloud_only commits 48 GPUs of the 3-year offer (64 % off 6.88) in the plan's first
month, 2027-01, so after June 2027 the team holds that contract: 48 GPUs from 2027-01 for 36
months at 6.88 x 0.36 = 2.4768 a GPU-hour (the on-demand trend has not moved it at month 0)
and no server. The approved plan has 60 months (2027-01 to 2031-12): the re-plan starts in
2027-07 with the 54 months left. Its usage is the sample usage (hourly, 2026) with the six
months' billed GPU-hours appended, cut to the year 2026-07 to 2027-06.
"""
from __future__ import annotations

import io
import json
import re
from html import unescape as html_unescape
from fractions import Fraction

import numpy as np
from sqlalchemy import select

from service.ingest import read_usage
from service.web.db import write_session
from service.web.tables import ActualUpload, PlanJob, PlanRecord, Revision, User
from service.web.users import create_token
from tests.support.client import count, revision_hash
from tests.support.paths import SAMPLES

R1, R2 = "/scenarios/1/revisions/1", "/scenarios/1/revisions/2"
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))


def approve(client, app, strategy):
    return client.post(R1 + "/reviews", {"decision": "approve", "comment": "Numbers checked.",
                                         "strategy": strategy,
                                         "revision_hash": revision_hash(app)})


def upload(client, files):
    data = {"bills": [(io.BytesIO(body), name) for name, body in files]}
    return client.post("/scenarios/1/actuals", data, content_type="multipart/form-data")


def sample_files():
    return [(p.name, p.read_bytes()) for p in BILLS]


def tokens(app, *names):
    with app.app_context():
        with write_session() as s:
            return [{"Authorization": "Bearer " + create_token(
                s, s.query(User).filter_by(username=n).one(), "test")} for n in names]


def stored(app):
    """Revision 2's assumptions, usage bytes and plan document; the upload's actuals."""
    with app.app_context():
        with write_session() as s:
            r2 = s.scalar(select(Revision).where(Revision.scenario_id == 1,
                                                 Revision.number == 2))
            plan = s.get(PlanRecord, r2.id)
            actuals = json.loads(s.scalars(select(ActualUpload)).one().actuals)
            key = s.scalar(select(PlanJob.key).where(PlanJob.kind == "plan",
                                                     PlanJob.revision_id == r2.id))
            return (r2.assumptions_dict, r2.usage_file.data, r2.usage_file.filename, r2.note,
                    json.loads(plan.document) if plan else None, actuals,
                    (key, r2.content_hash))


def test_a_re_plan_holds_the_actual_position_usage_and_start(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert 'id="replan-button"' not in page                  # no actuals yet: nothing to do
    upload(ana, sample_files())
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert 'id="replan-button"' in page and "replanned-heading" not in page
    assert 'id="replan-button"' not in rita.get(R1 + "/actual").get_data(as_text=True)
    assert rita.post(R1 + "/replan", {}).status_code == 403     # a reviewer never re-plans
    response = ana.post(R1 + "/replan", {})
    assert response.status_code == 302 and response.headers["Location"].endswith(R2)
    scenario, usage, filename, note, doc, actuals, (key, content) = stored(app)
    assert note == "re-planned from r1 with actuals to 2027-06"
    # the stored plan's key: the content hash (assumptions with the start month, and the new
    # usage) and the planning month (pinned by the suite), so it plans from 2027-07 always
    assert key.startswith(f"{content}:2026-12:")
    assert scenario["finance"]["start_month"] == "2027-07"
    assert scenario["finance"]["horizon_months"] == 54
    assert scenario["position"]["servers"] == []
    [contract] = scenario["position"]["commitments"]
    assert {k: contract[k] for k in ("id", "gpus", "start", "term_months", "payment")} == {
        "id": "3y:2027-01", "gpus": 48, "start": "2027-01", "term_months": 36,
        "payment": "none"}
    assert round(contract["price_per_gpu_hour"], 10) == 2.4768
    # the usage: 2026-07 to 2027-06 by hour, each 2027 month the bills' GPU-hours
    profile = read_usage(usage, filename).profile
    months = profile.starts.astype("datetime64[M]")
    assert profile.period == "hour" and str(months[0]) == "2026-07" and \
        str(months[-1]) == "2027-06"
    billed = {a["month"]: sum(a["gpu_hours"].values()) for a in actuals}
    assert sorted(billed) == [f"2027-0{m}" for m in range(1, 7)]
    for month, hours in billed.items():
        inside = months == np.datetime64(month, "M")
        used = profile.steady[inside].sum() + profile.interruptible[inside].sum()
        assert abs(used - hours) < 1e-6 * hours, month
    # planned by the job from 2027-07, 54 months, holding the contract
    assert doc is not None and doc["months"][0] == "2027-07" and len(doc["months"]) == 54
    cloud = doc["strategies"]["cloud_only"]["monthly"]
    assert cloud[0]["committed_gpus"] >= 48
    # its page says where it came from and links the comparison with the approved revision
    html = ana.get(R2).get_data(as_text=True)
    assert 'id="replanned-from"' in html and "/scenarios/1/compare?a=1&amp;b=2" in html
    compare = ana.get("/scenarios/1/compare?a=1&b=2").get_data(as_text=True)
    assert 'id="waterfall"' in compare and "Start month" in compare
    table = re.search(r'id="waterfall".*?</table>', compare, re.S).group(0)
    bars = [int(c) for c in re.findall(r'class="delta" data-cents="(-?\d+)"', table)]
    total = int(re.search(r'id="waterfall-total" data-cents="(-?\d+)"', table).group(1))
    assert bars and sum(bars) == total
    # a second click makes no second revision
    again = ana.post(R1 + "/replan", {})
    assert again.status_code == 302 and again.headers["Location"].endswith(R2)
    assert count(app, Revision) == 3                          # scenario 1: r1, r2; Rex's r1
    # the forecast re-planned: the actuals to date, then the re-plan's recommendation
    page = rita.get(R1 + "/actual").get_data(as_text=True)
    assert 'id="replanned-heading"' in page and 'id="replanned-compare"' in page
    summary = re.search(r'id="forecast-summary".*?</table>', page, re.S).group(0)
    to_date = re.search(r'id="to-date".*?</tr>', summary, re.S).group(0)
    whole = re.search(r'id="forecast-total".*?</tr>', summary, re.S).group(0)
    actual_to_date = int(re.findall(r'data-cents="(-?\d+)"', to_date)[-1])
    replanned_total = int(re.findall(r'data-cents="(-?\d+)"', whole)[-1])
    rec = doc["strategies"][doc["recommendation"]]["monthly"]
    rest = sum((Fraction(r["total_cost"]) for r in rec), Fraction(0))
    assert abs(replanned_total - actual_to_date - round(rest * 100)) <= 1
    # the cumulative chart draws it: from the actual to date in June to the whole forecast
    charts = json.loads(html_unescape(re.search(
        r'<script type="application/json" id="actual-charts">(.*?)</script>', page,
        re.S).group(1)))
    c = charts["cumulative"]
    line = dict(zip(c["months"], c["replanned"]))
    assert round(line["2027-06"] * 100) == actual_to_date
    assert round(line[rec[-1]["month"]] * 100) == replanned_total    # the re-plan's last
    assert all(v is None for m, v in line.items() if m < "2027-06")
    assert "Re-planned (revision 2), the whole forecast is" in charts["summary"]["cumulative"]


def test_the_re_plan_api_answers_202_with_the_new_revision_in_english_and_korean(login, app):
    client = app.test_client()
    ana, rita = tokens(app, "ana", "rita")
    url = "/api/v1/scenarios/1/replan"
    refused = client.post(url, headers=ana)
    assert refused.status_code == 409 and "approved" in refused.get_json()["error"]["message"]
    approve(login("rita"), app, "cloud_only")
    none_yet = client.post(url, headers={**ana, "Accept-Language": "ko"})
    assert none_yet.status_code == 409
    assert re.search("[가-힣]", none_yet.get_json()["error"]["message"])
    assert "No actual bills" in client.post(url, headers=ana).get_json()["error"]["message"]
    upload(login("ana"), sample_files())
    assert client.post(url, headers=rita).status_code == 403
    made = client.post(url, headers=ana)
    assert made.status_code == 202, made.get_data(as_text=True)
    body = made.get_json()
    assert made.headers["Location"].endswith(R2)
    assert (body["number"], body["replanned_from"], body["last_actual"],
            body["start_month"]) == (2, 1, "2027-06", "2027-07")
    assert body["compare"] == "/scenarios/1/compare?a=1&b=2"
    same = client.post(url, headers=ana)
    assert same.status_code == 200 and same.get_json()["number"] == 2
    assert same.get_json()["plan"] == "stored"             # the test queue ran its job


def test_the_re_plan_pages_in_korean(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    upload(ana, sample_files())
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert "Re-plan from actuals" not in page and 'id="replan-button"' in page
    ana.post(R1 + "/replan", {})
    html = ana.get(R2).get_data(as_text=True)
    assert 'id="replanned-from"' in html and "Re-planned from" not in html
    listing = ana.get("/scenarios/1").get_data(as_text=True)     # the revision's note
    assert "r1의 2027-06까지 실적으로 재계획" in listing
    assert "re-planned from" not in listing
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert 'id="replanned-heading"' in page and "Forecast re-planned" not in page



def test_the_refusals_are_in_the_catalog_word_for_word():
    from models.actual_usage import MESSAGES as USAGE
    from service.i18n.replan_words import MESSAGES as SAID, USAGE_MESSAGES as SAID_USAGE
    from service.plans.replan import MESSAGES as REPLAN
    assert SAID == REPLAN and SAID_USAGE == USAGE


def test_a_re_plan_without_actuals_is_refused_in_english_and_korean_and_saves_nothing(login,
                                                                                     app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    before = count(app, Revision)
    response = ana.post(R1 + "/replan", {})
    assert response.status_code == 302 and response.headers["Location"].endswith(R1 + "/actual")
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert "No actual bills within the approved plan&#39;s months yet" in page
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    ana.post(R1 + "/replan", {})
    korean = ana.get(R1 + "/actual").get_data(as_text=True)
    assert "승인된 계획의 기간 안에 실제 청구서가 아직 없습니다" in korean
    assert count(app, Revision) == before


def test_a_re_plan_of_the_approved_proposal_holds_its_servers_and_proposes_keeping_them(
        login, app):
    """The demo's proposal: 8 servers bought in 2027-01 at 300,000 + 30,000 install and 16
    GPUs of the 1-year offer at 6.88 x (1 - 0.41) = 4.0592 signed then (running to 2027-12,
    so held at the re-plan's start, 2027-07). The re-plan holds them and proposes keeping
    them, not buying 8 more on top."""
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "proposed")
    upload(ana, sample_files())
    assert ana.post(R1 + "/replan", {}).headers["Location"].endswith(R2)
    scenario, *_rest, doc, _actuals, _key = stored(app)
    assert [{k: p[k] for k in ("count", "purchased", "price", "install_cost")}
            for p in scenario["position"]["servers"]] == [
        {"count": 8, "purchased": "2027-01", "price": 300_000.0, "install_cost": 30_000.0}]
    [contract] = scenario["position"]["commitments"]
    assert (contract["id"], contract["gpus"], round(contract["price_per_gpu_hour"], 10)) == (
        "1y:2027-01", 16, 4.0592)
    proposed = scenario["proposed"]
    assert proposed["hold_only"] and proposed["servers"] is None and \
        not proposed["committed_gpus"]
    held = doc["strategies"]["proposed"]["monthly"]
    assert held[0]["servers_online"] == 8 and held[0]["committed_gpus"] == 16


def test_a_re_plan_holds_the_servers_the_owned_actuals_show_delivered_late(login, app):
    """The sample's owned actuals (samples/actuals/owned_2027-01_2027-06.csv) cover every
    month to 2027-06: 6 servers delivered in 2027-01 and 2 in 2027-03, each 330,000 all-in
    (the plan's 300,000 + 30,000 install). The re-plan holds them as delivered, not as the
    proposal's 8 in 2027-01; the contract is the plan's, as the owned actuals do not give
    contracts."""
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "proposed")
    owned = SAMPLES / "actuals" / "owned_2027-01_2027-06.csv"
    assert upload(ana, sample_files() + [(owned.name, owned.read_bytes())]).status_code == 302
    assert ana.post(R1 + "/replan", {}).headers["Location"].endswith(R2)
    scenario, *_rest = stored_scenario(app)
    assert [{k: p[k] for k in ("count", "purchased", "price", "install_cost")}
            for p in scenario["position"]["servers"]] == [
        {"count": 6, "purchased": "2027-01", "price": 330_000.0, "install_cost": 0.0},
        {"count": 2, "purchased": "2027-03", "price": 330_000.0, "install_cost": 0.0}]
    [contract] = scenario["position"]["commitments"]
    assert (contract["id"], contract["gpus"]) == ("1y:2027-01", 16)


def stored_scenario(app):
    """Revision 2's assumptions (its plan need not be computed yet)."""
    with app.app_context():
        with write_session() as s:
            r2 = s.scalar(select(Revision).where(Revision.scenario_id == 1,
                                                 Revision.number == 2))
            return (r2.assumptions_dict,)
