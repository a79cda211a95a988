"""Issue 24's Korean team, end to end in one Chromium session: an analyst makes a scenario from
the Korea context and the AWS Seoul p5 price preset (applied in the page, one on the other),
saves it in won, has a broken usage file refused in Korean, attaches the company's FOCUS 1.3
Contract Commitment file in dollars (the H100 contract; the L4 ones left unchecked, saying
why), attaches the sample usage, reads the plan in won without decimals and downloads the
workbook in Korean with whole won; a reviewer approves that revision. No page shows an English
word outside the allow-list (tests/support/korean.py and the file's own words below), no
console error. Screenshots: test-artifacts/ko-flow-NN-*.png.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import openpyxl
import pytest

from service.web.db import write_session
from service.web.tables import Revision
from tests.support.chromium import assert_charts_rendered, open_plan
from tests.support.korean import (CONTRACT_BOXES, SOURCES, check, korean_chromium, korean_page,
                                  log_in, preview_contracts, refused_upload)
from tests.support.paths import SAMPLE_USAGE

pytestmark = pytest.mark.browser
KOREA = "context/kr-2025"
SEOUL = "aws/p5.48xlarge/ap-northeast-2"
NAME = "서울 H100 원화 팀 계획"
CONTRACTS = SAMPLE_USAGE.parent / "focus_1.3_contract_commitment_sample.csv"
BROKEN = b"timestamp,gpu_hours,team\n2027-01-01T00:00,x,research\n2027-01-01T01:00,-1,\n"
CHARTS = ["chart-cumulative", "chart-by-source", "chart-load-duration", "chart-screening",
          "chart-tornado", "chart-histogram"]
# Proper names the presets cite as they are (tests/system/test_presets_browser.py): the price
# catalog's repository, file, region and zone, the Korea context's sources and their addresses.
CATALOG = {"skypilot", "org", "catalog", "catalogs", "v8", "aws", "vms", "ap", "northeast",
           "apne2", "az1", "IANS", "Korea", "LLC", "amazon", "com", "tax", "help", "apac",
           "vat", "rates", "south", "korea1", "donga", "econotelling"}
FILE_WORDS = {"focus", "contract", "commitment", "sample"}   # the contract file's name
# contract ids, instance names and FOCUS skip values: the contract file's own words
CONTRACT_WORDS = {"CC", "GCP", "A3", "1Y", "cud", "l4", "1y", "G2", "H100", "3Y", "a3",
                  "highgpu", "8g", "g2", "standard", "Nvidia", "L4", "80GB", "SPEND",
                  "STORAGE", "N2", "A2", "NOCOST", "GiB", "Months", "EUR", "SKU", *FILE_WORDS}
HELD = {"CC", "GCP", "A3", "1Y"}   # the held contract's id, as the plan page names it
# "₩1,234.56": won with a decimal, unless it is a card's 억 or 만 ("₩172.2억")
WON_WITH_DECIMALS = re.compile(r"₩\s?-?\d[\d,]*\.\d+(?!\d*\s?[만억조])")
# number formats without decimals: "#,##0;-#,##0;-", "#,##0", "0"
DECIMALS = re.compile(r"0\.0|\.#")


@pytest.fixture
def korean_browser():
    yield from korean_chromium()


def revision(app, number: int) -> dict:
    with app.app_context():
        with write_session() as s:
            r = s.query(Revision).filter_by(scenario_id=1, number=number).one()
            return {"assumptions": r.assumptions_dict, "presets": [p["id"] for p in r.presets],
                    "status": r.status, "usage": r.usage_file_id is not None}


def choose(page, kind: str, preset_id: str, summary: str) -> str:
    """Choose a preset in its chooser and wait until the page says what it changed."""
    head = f"preset-changed-{'gpu' if kind == 'price' else kind}"
    page.select_option(f"#preset-{kind}", preset_id)
    page.wait_for_function("([id, text]) => (document.getElementById(id) || {}).textContent"
                           "?.includes(text)", arg=[head, summary])
    return page.inner_text(f"#{head}")


def numbers(ws, rows, column: int):
    """The number cells (values and formulas) of ``column`` in ``rows``."""
    for r in rows:
        cell = ws.cell(r, column)
        if cell.data_type in ("n", "f") and cell.value is not None:
            yield cell


def summary_decimals(ws) -> list[str]:
    """Number cells of the Summary sheet with decimals that are neither a share (percent) nor
    a dollar price (the on-demand price at which buying ties, "[USD]", in cents)."""
    return [f"{c.coordinate} {ws.cell(c.row, 1).value}: {c.number_format}"
            for row in ws.iter_rows() for c in row
            if c.data_type in ("n", "f") and c.value is not None
            and DECIMALS.search(c.number_format) and "%" not in c.number_format
            and "[USD]" not in str(ws.cell(c.row, 1).value)]


def strategy_money(ws) -> dict[str, set[str]]:
    """The number formats of a strategy sheet's money, by label: the monthly cost lines and
    totals (their groups' columns, the total row too), the same lines by year, the figures
    at the top that are costs, and the cohort tables' prices, bases and upfront amounts (the
    contracts' rates per GPU-hour are in dollars, the cloud's currency: cents, left out)."""
    out: dict[str, set[str]] = {}
    column_a = [c.value for c in ws["A"]]
    head = column_a.index("월") + 1
    total = column_a.index("합계", head) + 1
    group, lines = None, set()
    for c in range(2, ws.max_column + 1):
        group = ws.cell(head - 1, c).value or group
        label = ws.cell(head, c).value
        if group in ("비용 항목(수식)", "합계(수식)") and label:
            lines.add(label)
            out.setdefault(label, set()).update(
                x.number_format for x in numbers(ws, range(head + 1, total + 1), c))
    yearly = column_a.index(next(v for v in column_a if str(v).startswith("연도별 합계"))) + 1
    for r in range(yearly + 1, head - 1):
        if ws.cell(r, 1).value in lines:
            out.setdefault(f"{ws.cell(r, 1).value} (연도별)", set()).update(
                x.number_format for c in range(2, 9) for x in numbers(ws, [r], c))
    for r in range(3, 11):      # the figures: a label, its value the next number at its right
        for c in (1, 4):
            label = str(ws.cell(r, c).value or "")
            if "비용" in label or "금액" in label or label.startswith("정상 운영 현재가치"):
                value = next(x for k in range(c + 1, c + 9) for x in numbers(ws, [r], k))
                out.setdefault(label, set()).add(value.number_format)
    for top in (r for r, v in enumerate(column_a, 1) if v == "코호트"):
        end = next((r for r in range(top + 1, ws.max_row + 2) if not ws.cell(r, 1).value))
        for c in range(3, 20):
            label = str(ws.cell(top, c).value or "")
            if re.search("가격|비용|기준액|선불액|원금|상환액", label) and "비율" not in label:
                out.setdefault(label, set()).update(
                    x.number_format for x in numbers(ws, range(top + 1, end), c))
    return out


def test_korean_team_flow(instance_server, korean_browser, tmp_path):
    (base, app), problems, found = instance_server, [], {}
    page = korean_page(korean_browser, problems)
    log_in(page, base, "ana", found, "flow-01-login")
    check(page, "flow-02-scenarios", found)

    # 1. a new scenario: the Korea context, then the AWS Seoul price on it, in the page
    page.click("text=새 시나리오")
    page.wait_for_selector("#preset-form[data-ready=true]", state="attached")
    context = choose(page, "context", KOREA, "변경: 값 13개")
    price = choose(page, "price", SEOUL, "변경: 값 2개")
    assert re.search("[가-힣]", context) and re.search("[가-힣]", price), (context, price)
    listed = page.locator("#preset-summary li").all_inner_texts()
    assert len(listed) == 15 and all(re.search("[가-힣]", item) for item in listed), listed
    assert page.input_value("[id='on_demand.price_per_gpu_hour']") == "9.4944"
    assert page.input_value("[id='owned.server_price']") == "426,648,000"
    page.fill("[id=name]", NAME)
    check(page, "flow-03-presets", found, SOURCES | CATALOG)
    page.click("#save")
    page.wait_for_selector("text=시나리오를 저장했습니다.")
    check(page, "flow-04-saved", found, SOURCES | CATALOG)
    saved = revision(app, 1)
    s = saved["assumptions"]
    assert saved["presets"] == [KOREA, SEOUL]
    assert (s["finance"]["currency"], s["cloud_terms"]["currency"]) == ("KRW", "USD")
    assert s["on_demand"]["price_per_gpu_hour"] == 9.4944 and s["fx"]["rate"] == 1422.16
    assert s["owned"]["server_price"] == 426_648_000 and s["finance"]["tax_rate"] == 0.209
    presets = page.locator("p.preset").all_inner_texts()
    assert presets[0].startswith("리비전 1은 프리셋 한국 2025") and "커밋 00148f2" in presets[1], \
        presets

    # 2. a broken usage file, refused in Korean with its row and column
    page.click("text=사용량 업로드 >> nth=0")
    page.wait_for_selector("#usage")
    check(page, "flow-05-upload", found)
    error = refused_upload(page, tmp_path, BROKEN)
    assert "2행, 'gpu_hours' 열" in error and "0 이상의 숫자여야 하는데 'x'입니다" in error
    # the refusal is the upload's 422 answer, which the console notes: expected here
    problems[:] = [p for p in problems if "status of 422" not in p]
    check(page, "flow-06-refused", found, {"broken", "gpu", "hours", "x"})

    # the company's contracts in dollars: the H100 one checked, the L4 ones saying why not
    assert preview_contracts(page, CONTRACTS) == CONTRACT_BOXES
    contracts = page.inner_text("#contracts")
    assert "L4 GPU 약정: 이 시나리오는 H100 계획입니다" in contracts, contracts
    check(page, "flow-07-contracts", found, CONTRACT_WORDS)
    page.click("#attach-commitments-button")
    page.wait_for_url(f"{base}/scenarios/1")
    check(page, "flow-08-attached", found, FILE_WORDS)
    held = revision(app, 2)["assumptions"]["position"]["commitments"]
    # in dollars, the cloud's currency (no currency of its own): converted at the rate
    assert [(c["id"], c.get("currency")) for c in held] == [("CC-GCP-A3-1Y", None)], held

    # the sample usage: previewed, then attached as revision 3
    page.click("text=사용량 업로드 >> nth=0")
    page.set_input_files("#usage", str(SAMPLE_USAGE))
    page.click("#preview")
    page.wait_for_selector("#attach")
    assert_charts_rendered(page, ["chart-usage"])
    check(page, "flow-09-preview", found)
    page.click("#attach")
    page.wait_for_url("**/revisions/3**")

    # 3. the plan in won, no decimals on a won amount, cards in 억 and 만
    open_plan(page, page.url.split("#")[0])
    assert_charts_rendered(page, CHARTS)
    main = page.inner_text("main")
    assert "₩" in main and not WON_WITH_DECIMALS.findall(main), WON_WITH_DECIMALS.findall(main)
    cards = page.inner_text("#summary")
    assert re.search(r"₩[\d.,]+[억만]", cards), cards
    check(page, "flow-10-plan", found, HELD)
    plan_url = page.url          # before the download: a pending workbook page follows to it
    with page.expect_download() as download:
        page.click("#download-xlsx")
    workbook = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    assert workbook.sheetnames[0] == "요약", workbook.sheetnames
    # every amount whole: won have no minor unit (service/xlsx/cells.py: money "#,##0;-#,##0;-",
    # a price per GPU-hour in won "#,##0"); a share keeps its percent, a dollar price cents
    summary = workbook["요약"]
    table = next(c.row for c in summary["A"] if c.value == "전략")    # the strategies' table
    heads = {summary.cell(table, c).value: summary.cell(table + 1, c).number_format
             for c in range(1, 14)}
    assert (heads["현재가치 비용 [KRW]"], heads["총비용 [KRW]"],
            heads["유효 GPU 시간당 비용, 균등화 [KRW]"]) == ("#,##0;-#,##0;-",) * 2 + ("#,##0",), \
        heads
    assert summary_decimals(summary) == []
    sheets = [ws for ws in workbook.worksheets if str(ws["A1"].value).startswith("전략 ")]
    assert len(sheets) >= 4 and all(str(ws["A1"].value).endswith("[KRW]") for ws in sheets)
    labels = set()
    for ws in sheets:
        money = strategy_money(ws)
        labels |= set(money)
        assert {"총비용", "온디맨드", "유효 GPU 시간당 비용"} <= set(money), (ws.title, money)
        decimals = {label: f for label, f in money.items()
                    if not f or any(DECIMALS.search(x) or x == "General" for x in f)}
        assert decimals == {}, (ws.title, decimals)
    assert {"서버당 가격", "GPU당 선불액", "설비 투자(구매 + 설치) (연도별)"} <= labels, labels
    page.context.close()

    # 4. the reviewer approves that revision, with a reason
    page = korean_page(korean_browser, problems)
    log_in(page, base, "rita", found, "flow-11-login")
    assert f"{NAME} r3" in page.inner_text("#awaiting-review")
    check(page, "flow-12-awaiting", found)
    page.goto(plan_url)
    assert_charts_rendered(page, CHARTS)
    page.fill("#review-comment", "원화 견적과 달러 약정을 확인했습니다.")
    page.click("#approve")
    page.wait_for_selector("text=리비전 3을 승인했습니다.")
    assert "리비전 3" in page.inner_text("#approval")
    assert "원화 견적과 달러 약정을 확인했습니다." in page.inner_text("main")
    check(page, "flow-13-approved", found, HELD)
    page.context.close()
    assert revision(app, 3)["status"] == "approved"
    assert found == {}, f"English words on Korean pages: {found}"
    assert problems == []
