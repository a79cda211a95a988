"""The Plan vs actual workbook and charts on the web (issue 43, variance-sheet): the workbook is
written by a ``variance`` job (the tests' queue runs it at once), once per revision, language
and set of actuals, downloaded from the Plan vs actual page in the reader's language; the
page's chart data come from the variance it computes, and the waterfall's bars are the
table's cents, adding up from the plan to the plan plus the total variance. The figures
static/js/app.js builds from that data are read in Node (tests/support/js_figures.py)."""
from __future__ import annotations

import io
import json
import re
from decimal import Decimal

import openpyxl
import pytest
from sqlalchemy import select

from models.variance import variance
from service.i18n import using_locale
from service.plans.actual_charts import waterfall
from service.plans.jobs.runner import run_job
from service.web.db import write_session
from service.web.tables import AuditEvent, PlanJob
from tests.support.client import Browser
from tests.support.js_figures import build_figure
from tests.support.queued import queued_app
from tests.support.variance_sheet_cases import EDGE_ACTUALS, EDGE_PLAN
from tests.support.actuals_flow import BILLS, R1, approve, sample_files, upload

XLSX = R1 + "/plan-vs-actual.xlsx"


def variance_jobs(app) -> list[PlanJob]:
    with app.app_context():
        with write_session() as s:
            return list(s.scalars(select(PlanJob).where(PlanJob.kind == "variance")))


def page_charts(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="actual-charts">(.*?)'
                                r'</script>', html, re.S).group(1))


def table_cents(html: str) -> tuple[dict[str, list[int]], list[int]]:
    table = re.search(r'id="variance-table".*?</table>', html, re.S).group(0)
    parts = {name: [int(c) for c in re.findall(r'data-cents="(-?\d+)"', body)]
             for name, body in re.findall(r'<tr class="part" data-part="([^"]+)">(.*?)</tr>',
                                          table, re.S)}
    total = [int(c) for c in re.findall(r'data-cents="(-?\d+)"', re.search(
        r'<tr class="total">(.*?)</tr>', table, re.S).group(1))]
    return parts, total


def test_the_workbook_is_a_job_per_language_and_actuals_and_downloads_in_each(login, app):
    ana, rita, otto = login("ana"), login("rita"), login("otto")
    assert ana.get(XLSX).status_code == 404                 # no approval: no baseline
    approve(rita, app, "cloud_only")
    assert ana.get(XLSX).status_code == 404                 # no actuals yet
    assert variance_jobs(app) == []
    upload(ana, sample_files())
    page = ana.get(R1 + "/actual").get_data(as_text=True)
    assert 'href="/scenarios/1/revisions/1/plan-vs-actual.xlsx"' in page
    assert otto.get(XLSX).status_code == 404                # not his to see
    response = rita.get(XLSX)                               # a reviewer downloads it
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].endswith('-plan-vs-actual.xlsx"')
    wb = openpyxl.load_workbook(io.BytesIO(response.data))
    assert wb.sheetnames == ["Variance"]
    ws = wb.active
    months = [ws.cell(6, c).value for c in range(3, 10)]
    assert months[:6] == [f"2027-0{i}" for i in range(1, 7)]
    assert months[6] == "Year to date 2027-01 to 2027-06"
    labels = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    # the cached value of the year to date's total (the engine's exact figure) rounds to the
    # page's total variance
    _parts, total = table_cents(page)
    ytd_total = wb_cached(response.data, labels["Total variance (actual - plan)"], 9)
    assert round(Decimal(str(ytd_total)) * 100) == total[-1]
    assert ws.cell(1, 1).value.startswith("Plan vs actual: ") and \
        ws.cell(1, 1).value.endswith(", revision 1")
    jobs = variance_jobs(app)
    assert len(jobs) == 1 and jobs[0].state == "done"
    assert rita.get(XLSX).status_code == 200 and len(variance_jobs(app)) == 1  # written once
    korean = rita.get(XLSX, headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    assert korean.status_code == 200
    ko = openpyxl.load_workbook(io.BytesIO(korean.data))
    assert ko.sheetnames == ["차이"] and "리비전 1" in ko.active.cell(1, 1).value
    assert len(variance_jobs(app)) == 2                     # one per language
    # a corrected month is other actuals: a new workbook, with January's 10,000.00 more
    again = BILLS[0].read_text().replace("157751.68", "167751.68")
    assert upload(ana, [("jan-corrected.csv", again.encode())]).status_code == 302
    newer = rita.get(XLSX)
    assert newer.status_code == 200 and len(variance_jobs(app)) == 3
    row = labels["Total variance (actual - plan)"]
    assert round((wb_cached(newer.data, row, 3) - wb_cached(response.data, row, 3)) * 100) \
        == 1_000_000
    with app.app_context():
        with write_session() as s:
            downloads = [e.details for e in s.scalars(select(AuditEvent).where(
                AuditEvent.action == "download"))]
    assert downloads.count("plan-vs-actual.xlsx") == 4


def wb_cached(data: bytes, row: int, column: int) -> float:
    """A formula cell's cached value (the engine's figure the job wrote)."""
    return openpyxl.load_workbook(io.BytesIO(data), data_only=True).active.cell(row, column).value


def test_the_page_charts_come_from_the_variance_and_the_waterfall_adds_up(login, app):
    ana, rita = login("ana"), login("rita")
    approve(rita, app, "cloud_only")
    assert "actual-charts" not in rita.get(R1 + "/actual").get_data(as_text=True)  # no actuals
    upload(ana, sample_files())
    html = rita.get(R1 + "/actual").get_data(as_text=True)
    charts = page_charts(html)
    parts, total = table_cents(html)
    w = charts["waterfall"]
    # the plan, every part the year-to-date column names (the table's cents), the actual
    assert w["parts"] == list(parts)
    assert w["cents"][1:-1] == [cents[-1] for cents in parts.values()]
    assert w["measures"] == ["absolute"] + ["relative"] * len(parts) + ["total"]
    assert sum(w["cents"][:-1]) == w["cents"][-1]                   # the bars add up
    assert w["cents"][-1] - w["cents"][0] == total[-1]              # by the total variance
    assert w["labels"][0] == "Plan" and w["labels"][-1] == "Actual"
    assert "Volume (more or less work)" in w["labels"]
    assert w["range"] is not None and w["range"][0] > 0          # an axis around the levels
    c = charts["cumulative"]
    assert len(c["months"]) == len(c["plan"]) == len(c["actual"]) == len(c["forecast"])
    last = c["months"].index("2027-06")
    assert all(v is not None for v in c["actual"][:last + 1])
    assert all(v is None for v in c["actual"][last + 1:] + c["forecast"][:last])
    assert c["forecast"][last] == c["actual"][last]             # the forecast continues it
    assert round(c["forecast"][-1] * 100) == charts_total(html)
    assert 'id="chart-actual-cumulative"' in html and 'id="chart-variance-waterfall"' in html
    ko = rita.get(R1 + "/actual", headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    words = page_charts(ko.get_data(as_text=True))
    assert words["waterfall"]["labels"][0] == "계획" and "물량(작업 증감)" in \
        words["waterfall"]["labels"]
    assert words["text"]["cumulative"] == "누적 지출: 계획 대비 실적"


def charts_total(html: str) -> int:
    """The whole plan's forecast in cents, as the page's headline table gives it."""
    row = re.search(r'<tr id="forecast-total">(.*?)</tr>', html, re.S).group(1)
    amounts = re.findall(r"<td>(.*?)</td>", row)
    return round(Decimal(re.sub(r"[^\d.\-]", "", amounts[1])) * 100)


def test_app_js_draws_the_waterfall_and_the_cumulative_lines():
    data = {"waterfall": {"labels": ["Plan", "Volume", "Price", "Actual"],
                          "values": [100.0, 12.5, -2.25, 110.25], "cents": [10000, 1250, -225,
                                                                              11025],
                          "measures": ["absolute", "relative", "relative", "total"],
                          "range": [90.0, 120.0], "parts": ["volume", "price"]},
            "cumulative": {"months": ["2027-01", "2027-02", "2027-03"], "plan": [1, 2, 3],
                           "actual": [1.5, 2.5, None], "forecast": [None, 2.5, 3.5]},
            "text": {"waterfall": "W", "cumulative": "C", "cost": "cost [USD]",
                     "plan": "P", "actual": "A", "forecast": "F", "month": "month"}}
    w = build_figure("variance_waterfall", data)
    trace = w["data"][0]
    assert trace["type"] == "waterfall" and trace["measure"] == data["waterfall"]["measures"]
    assert trace["y"] == data["waterfall"]["values"] and trace["x"][0] == "Plan"
    assert w["layout"]["yaxis"]["range"] == [90.0, 120.0]
    assert w["layout"]["title"]["text"] == "W" and w["layout"]["showlegend"] is False
    c = build_figure("actual_cumulative", data)
    assert [t["name"] for t in c["data"]] == ["P", "F", "A"]
    assert c["data"][2]["y"] == [1.5, 2.5, None] and c["data"][1]["line"]["dash"] == "dash"
    assert c["layout"]["xaxis"]["tickformat"] == "%Y-%m"
    # after a re-plan: a fourth line, dotted, from the last actual month on
    data["cumulative"]["replanned"] = [None, 2.5, 3.25]
    data["text"]["replanned"] = "R"
    again = build_figure("actual_cumulative", data)
    assert [t["name"] for t in again["data"]] == ["P", "F", "A", "R"]
    assert again["data"][3]["y"] == [None, 2.5, 3.25]
    assert again["data"][3]["line"]["dash"] == "dot"


def test_the_waterfall_of_the_edge_case_by_hand():
    """tests/support/variance_sheet_cases.py, year to date 2028-01 to 2028-02: plan 820 + 750 =
    1570; volume 170/7 + 3.3 x 650/280 = 31.946 -> 31.95; volume + mix = 24.2857 - 34.2857 +
    7.6607 + 8.8393 = 6.50, so mix -25.45; price -30 + 16.65 = -13.35; capex +1000; tax shield
    +5; total 998.15, so the last bar 2568.15 = the actual. Parts of 2027's months (resale,
    spot, storage) are rows of the table, so they are bars, of 0 in this year."""
    with using_locale("en"):
        w = waterfall({"currency": "USD", **variance(EDGE_PLAN, EDGE_ACTUALS)})
    assert dict(zip(w["parts"], w["cents"][1:-1])) == {
        "volume": 3195, "mix": -2545, "price": -1335, "idle_commitments": 0,
        "timing.capex": 100000, "timing.resale_credit": 0, "other.spot": 0, "other.storage": 0,
        "other.tax_shield": 500}
    assert (w["cents"][0], w["cents"][-1]) == (157000, 256815)
    assert w["labels"][0] == "Plan" and w["labels"][-1] == "Actual"
    # the levels run from 1563.15 (after price) to 2568.15; a quarter of that span each side
    low, high = w["range"]
    assert abs(low - (1563.15 - 251.25)) < 1e-9 and abs(high - (2568.15 + 251.25)) < 1e-9


@pytest.fixture
def queued(tmp_path, seeded_database):
    """An app whose jobs wait for a worker (the test runs them: run_job)."""
    with queued_app(tmp_path, seeded_database) as app:
        yield app


def test_no_request_writes_the_workbook_its_job_does(queued):
    ana, rita = Browser(queued.test_client()), Browser(queued.test_client())
    assert ana.login("ana").status_code == 302 and rita.login("rita").status_code == 302
    assert approve(rita, queued, "cloud_only").status_code == 302
    assert upload(ana, sample_files()).status_code == 302
    waiting = rita.get(XLSX, headers={"Accept": "application/json"})
    assert waiting.status_code == 202 and waiting.headers["Retry-After"] == "2"
    job = waiting.get_json()["job"]
    assert job["kind"] == "variance" and job["state"] == "queued"
    page = rita.get(XLSX)                            # a person's browser: a page that reloads
    assert page.status_code == 202 and page.headers["Refresh"] == "2"
    [row] = variance_jobs(queued)
    assert row.result is None                         # asked twice, written by no request
    with queued.app_context():
        run_job(job["id"])
    done = rita.get(XLSX)
    assert done.status_code == 200
    assert openpyxl.load_workbook(io.BytesIO(done.data)).sheetnames == ["Variance"]
