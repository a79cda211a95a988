"""Plan against actual on the web (issue 43, items 1-3): an approval names the strategy it
approves (the baseline), actual bills are uploaded per scenario (checked by row and column,
nothing saved on a refusal, append-only and audited), and the Plan vs actual page shows the
variance by part per month and year to date, cumulative spend, the forecast and the lines."""
from __future__ import annotations

import re

from sqlalchemy import select

from service.web.tables import ActualFile, ActualUpload, AuditEvent, Review
from service.web.db import write_session
from tests.support.client import count
from tests.support.actual_steps import BILLS, R1, approve, sample_files, upload


def approvals(app):
    with app.app_context():
        with write_session() as s:
            return [(r.decision, r.strategy) for r in s.scalars(select(Review))]


def test_an_approval_stores_the_recommended_strategy_or_the_one_named(login, app):
    rita = login("rita")
    page = rita.get(R1).get_data(as_text=True)
    assert 'name="strategy"' in page and "recommended" in page
    assert approve(rita, app).status_code == 302
    recommended = approvals(app)[-1]
    assert recommended[0] == "approve" and recommended[1] not in (None, "cloud_only")
    assert approve(rita, app, "cloud_only").status_code == 302
    assert approvals(app)[-1] == ("approve", "cloud_only")
    before = (count(app, Review), count(app, AuditEvent))
    assert approve(rita, app, "no_such_strategy").status_code == 400
    assert (count(app, Review), count(app, AuditEvent)) == before
    html = rita.get(R1).get_data(as_text=True)
    assert "strategy approved: Cloud only" in html and 'id="plan-vs-actual-link"' in html
    assert "[strategy cloud_only]" in rita.get("/audit").get_data(as_text=True)


def test_actuals_need_an_approved_revision_and_the_owner(login, app):
    ana, otto, rita = login("ana"), login("otto"), login("rita")
    assert upload(ana, sample_files()).status_code == 409
    assert "No revision of this scenario is approved" in ana.get(
        "/scenarios/1/actuals").get_data(as_text=True)
    assert ana.get(R1 + "/actual").status_code == 404       # no approval, no baseline
    approve(rita, app, "cloud_only")
    assert upload(otto, sample_files()).status_code == 404   # not his to see
    assert upload(rita, sample_files()).status_code == 403   # a reviewer reads, never uploads
    assert count(app, ActualUpload) == 0


def test_six_months_of_bills_are_stored_audited_and_read_as_the_variance(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    form = ana.get("/scenarios/1/actuals").get_data(as_text=True)
    key = re.search(r'name="idempotency_key" value="([^"]+)"', form).group(1)
    response = upload(ana, sample_files(), idempotency_key=key)
    assert response.status_code == 302 and response.headers["Location"].endswith(R1 + "/actual")
    assert (count(app, ActualUpload), count(app, ActualFile)) == (1, 6)
    replay = upload(ana, sample_files(), idempotency_key=key)      # the form sent twice
    assert replay.status_code == 302 and replay.headers["Location"].endswith(R1 + "/actual")
    assert (count(app, ActualUpload), count(app, ActualFile)) == (1, 6)
    with app.app_context():
        with write_session() as s:
            stored = {f.filename: f.data for f in s.scalars(select(ActualFile))}
            event = s.scalars(select(AuditEvent).where(
                AuditEvent.action == "actuals.upload")).one()
    assert stored == dict(sample_files())                    # byte for byte
    assert "2027-01, 2027-02" in event.details and "sha256=" in event.details
    html = rita.get(R1 + "/actual").get_data(as_text=True)  # a reviewer reads it
    for word in ("Volume (more or less work)", "Mix (work on another source)",
                 "Price (rate paid against plan)", "Idle commitments", "Total variance",
                 "Year to date 2027-01 to 2027-06", "Cumulative forecast", "By cost line"):
        assert word in html, word
    table = re.search(r'id="variance-table".*?</table>', html, re.S).group(0)
    rows = re.findall(r'<tr class="(part|total)"[^>]*>(.*?)</tr>', table, re.S)
    cells = [[int(c) for c in re.findall(r'data-cents="(-?\d+)"', body)] for _k, body in rows]
    parts, total = cells[:-1], cells[-1]
    assert len(total) == 7                                   # six months and the year to date
    for column in range(7):                                  # the parts add up to the cent
        assert sum(p[column] for p in parts) == total[column]
    assert all(t > 0 for t in total)                         # more work, dearer mix, idle
    assert "actual bills uploaded" in ana.get("/audit").get_data(as_text=True)


def test_a_bad_bill_is_refused_by_row_and_column_and_nothing_is_saved(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    bad = BILLS[0].read_text().splitlines()
    header = bad[0].split(",")
    row = bad[1].split(",")
    row[header.index("PricingCurrency")] = "EUR"     # the cost read is PricingCurrencyEffectiveCost
    bad[1] = ",".join(row)
    before = (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent))
    files = sample_files(BILLS[1:]) + [("bill-eur.csv", ("\n".join(bad) + "\n").encode())]
    response = upload(ana, files)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'id="problems"' in html and "BillingCurrency" in html and "<td>2</td>" in html
    assert "the plan has no exchange rate for it (the plan is in USD)" in html
    assert "Nothing was saved." in html
    assert (count(app, ActualUpload), count(app, ActualFile), count(app, AuditEvent)) == before
    ana.post("/language", {"lang": "ko", "next": "/profile"})
    korean = upload(ana, files).get_data(as_text=True)
    assert "저장하지 않았습니다" in korean or "저장되지 않았습니다" in korean
    assert "BillingCurrency" in korean and "USD" in korean


def test_a_month_outside_the_plan_is_refused(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    text = BILLS[0].read_text().replace("2027-01-01T", "2040-01-01T").replace(
        "2027-02-01T", "2040-02-01T")
    response = upload(ana, [("late.csv", text.encode())])
    assert response.status_code == 422
    assert "2040-01 is not a month of the plan" in response.get_data(as_text=True)
    assert count(app, ActualUpload) == 0


def test_a_later_upload_of_a_month_replaces_it_and_the_first_stays(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    upload(ana, sample_files())
    first = rita.get(R1 + "/actual").get_data(as_text=True)
    again = BILLS[0].read_text().replace("157751.68", "167751.68")   # January's on demand
    assert again != BILLS[0].read_text()
    assert upload(ana, [("jan-corrected.csv", again.encode())]).status_code == 302
    second = rita.get(R1 + "/actual").get_data(as_text=True)
    assert (count(app, ActualUpload), count(app, ActualFile)) == (2, 7)

    def january_total(html):
        table = re.search(r'id="variance-table".*?</table>', html, re.S).group(0)
        total = re.search(r'<tr class="total">(.*?)</tr>', table, re.S).group(1)
        return int(re.findall(r'data-cents="(-?\d+)"', total)[0])
    assert january_total(second) - january_total(first) == 1_000_000      # 10,000.00 more
    listing = ana.get("/scenarios/1/actuals").get_data(as_text=True)
    assert "jan-corrected.csv" in listing and BILLS[5].name in listing
