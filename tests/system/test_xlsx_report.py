"""The whole workbook printed by LibreOffice headless as a report (issue 25): at most 12 A4
landscape pages for the sample and the growth sample, no text under 8 pt, the Summary on two
pages in words, each strategy sheet's yearly roll-up on one page, the Schedule on none when
the Summary says it in sentences, and the roll-up's formulas
equal to the engine after LibreOffice recalculates them. Screenshots of the first pages go
to test-artifacts/."""
from __future__ import annotations

import io
import re

import numpy as np
import openpyxl
import pytest

from models.lines import COST_LINES, CREDIT_LINES
from service.i18n.labels import LINE_TITLES
from service.xlsx.libreoffice import export_pdf, recalculate
from service.xlsx.schedule_sheet import summary_schedule
from service.xlsx.strategy_sheet import ROLLUP, ROLLUP_FIRST, ROLLUP_TITLE_ROW
from service.xlsx.summary import TABLE_ROW
from tests.support.pdf_text import (page_texts, screenshots, sheet_pages, text_sizes,
                                    word_heights)
from tests.support.xlsx_cases import ROOT, case_plan, plan_workbook

pytestmark = pytest.mark.libreoffice
MAX_PAGES, MIN_PT = 12, 8.0
ARTIFACTS = ROOT / "test-artifacts"
RAW_ID = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")   # on_demand, utilization_all_in, ...
A4_LANDSCAPE = (841.89, 595.30)


@pytest.fixture(scope="module")
def printed(sample_plan, tmp_path_factory):
    """name -> (plan, workbook bytes, PDF path, page texts) for the sample (English and
    Korean) and the growth sample."""
    growth = case_plan("growth")
    out = {}
    for name, plan, lang in (("sample", sample_plan[1].plan, "en"), ("growth", growth, "en"),
                             ("sample-ko", sample_plan[1].plan, "ko")):
        data = plan_workbook(plan, lang=lang)
        pdf = export_pdf(data, tmp_path_factory.mktemp(name))
        out[name] = (plan, data, pdf, page_texts(pdf))
        screenshots(pdf, ARTIFACTS, f"workbook-report-{name}", last=3)
    return out


@pytest.mark.parametrize("name", ["sample", "growth", "sample-ko"])
def test_the_whole_workbook_prints_in_at_most_twelve_a4_landscape_pages(printed, name):
    _plan, _data, pdf, texts = printed[name]
    assert 8 <= len(texts) <= MAX_PAGES, len(texts)
    from pypdf import PdfReader
    for page in PdfReader(str(pdf)).pages:
        box = page.mediabox
        assert (float(box.width), float(box.height)) == pytest.approx(A4_LANDSCAPE, abs=1)


@pytest.mark.parametrize("name", ["sample", "growth", "sample-ko"])
def test_no_printed_text_is_smaller_than_8_pt(printed, name):
    _plan, _data, pdf, texts = printed[name]
    runs = text_sizes(pdf)
    assert {r.page for r in runs} == set(range(1, len(texts) + 1))   # text on every page
    small = [r for r in runs if r.size < MIN_PT]
    assert not small, small[:10]
    # poppler's word boxes (ascent + descent, more than the em) agree
    heights = word_heights(pdf)
    assert min(h for _p, h, _w in heights) >= MIN_PT, sorted(heights, key=lambda x: x[1])[:5]


@pytest.mark.parametrize("name", ["sample", "growth"])
def test_summary_on_two_pages_each_strategy_on_one_profile_on_none(printed, name):
    plan, _data, _pdf, texts = printed[name]
    assert len(sheet_pages(texts, "Summary")) == 2
    assert sheet_pages(texts, "Summary") == [1, 2]
    for strategy in plan.strategies:
        assert len(sheet_pages(texts, strategy)) == 1, strategy
    assert len(sheet_pages(texts, "Assumptions")) == 1
    assert sheet_pages(texts, "Profile") == []           # the hourly usage never prints
    for sheet in ("Breakeven", "Sensitivity"):
        assert len(sheet_pages(texts, sheet)) == 1, sheet
    # the Summary prints the staged plan's decisions in sentences: the Schedule sheet's grid,
    # mostly zeros, stays on screen (issue 39, item 3)
    assert summary_schedule(plan.document) == "staged"
    assert "Schedule: Staged plan" in texts[0]
    assert sheet_pages(texts, "Schedule") == []
    # the roll-up prints, the monthly table does not
    strategy_page = texts[sheet_pages(texts, "optimal")[0] - 1]
    assert "Yearly roll-up" in strategy_page and "Discount factor" not in strategy_page
    assert plan.document["months"][0] not in strategy_page   # no month row


@pytest.mark.parametrize("name", ["sample", "growth"])
def test_english_summary_shows_words_not_ids(printed, name):
    plan, data, _pdf, texts = printed[name]
    ws = openpyxl.load_workbook(io.BytesIO(data))["Summary"]
    cells = {c.coordinate: c.value for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and not c.value.startswith("=")
             and c.coordinate != "B2"}                       # B2: the scenario's own name
    ids = {k: RAW_ID.findall(v) for k, v in cells.items() if RAW_ID.search(v)}
    assert ids == {}
    assert "utilization breakeven, all-in · on demand" in cells.values()
    printed_summary = "\n".join(texts[p - 1] for p in sheet_pages(texts, "Summary"))
    assert RAW_ID.findall(printed_summary) == []
    assert "All on demand" in printed_summary and "Buy for peak" in printed_summary


@pytest.mark.parametrize("name", ["sample", "growth"])
def test_summary_labels_and_recommendation_print_whole(printed, name):
    plan, data, _pdf, texts = printed[name]
    doc = plan.document
    page_one = " ".join(texts[0].split())
    # the explanation wraps over as many lines as it needs: its last words are on page 1
    words = doc["explanation"].split()
    assert " ".join(words[-6:]) in page_one
    assert " ".join(words[:6]) in page_one
    ws = openpyxl.load_workbook(io.BytesIO(data))["Summary"]
    explanation = next(c for row in ws.iter_rows() for c in row
                       if c.value == doc["explanation"])
    assert explanation.alignment.wrap_text
    assert ws.row_dimensions[explanation.row].height >= 15 * 2    # more than one line
    printed_words = set(texts[0].split())
    for c in range(1, 11):                       # every header of the strategies, whole
        head = ws.cell(TABLE_ROW + 1, c)
        assert head.alignment.wrap_text and set(head.value.split()) <= printed_words, head.value
    assert ws.row_dimensions[TABLE_ROW + 1].height == 60      # four lines of headers
    for label in ("All on demand", "Cloud only (best mix)", "Buy for peak", "Optimal mix"):
        assert label in texts[0]


def _engine_by_year(labels: list[str], horizon: int, values) -> dict[str, float]:
    """The engine's monthly figures added up by calendar year (months after the horizon in
    one column), as the roll-up is laid out."""
    out: dict[str, float] = {}
    for m, value in enumerate(values):
        key = labels[m][:4] if m < horizon else "after the horizon"
        out[key] = out.get(key, 0.0) + float(value)
    return out


def test_rollup_formulas_recalculated_by_libreoffice_equal_the_engine(printed, tmp_path):
    sources = []
    for name in ("sample", "growth"):
        path = tmp_path / f"{name}.xlsx"
        path.write_bytes(printed[name][1])
        sources.append(path)
    outputs = recalculate(sources, tmp_path / "out")
    checked = 0
    for name, out in zip(("sample", "growth"), outputs):
        plan = printed[name][0]
        ledger = plan.ledger
        wb = openpyxl.load_workbook(out, data_only=True)
        for strategy, r in plan.strategies.items():
            ws = wb[strategy]
            head = ROLLUP_TITLE_ROW + 1                     # 1-based header row: the years
            titles = {ws.cell(head, c).value: c for c in range(2, ws.max_column + 1)
                      if ws.cell(head, c).value}
            # the engine's ledger over the sheet's months (contracts running past the horizon
            # pay in the months after it)
            sl = ledger.strategies[strategy]
            labels = list(ledger.labels[:sl.rows])
            rows = {key: ROLLUP_FIRST + 1 + i for i, (key, _how, _t) in enumerate(ROLLUP)}
            for line in COST_LINES + CREDIT_LINES + ("total",):
                monthly = np.zeros(sl.rows)
                values = np.asarray(sl.total if line == "total" else sl.lines[line], float)
                monthly[:len(values)] = values[:sl.rows]
                expected = _engine_by_year(labels, ledger.horizon, monthly)
                assert set(expected) == set(titles) - {"Total"}, (strategy, titles)
                for year, value in expected.items():
                    got = ws.cell(rows[line], titles[year]).value
                    assert got == pytest.approx(value, rel=1e-9, abs=1e-7), (strategy, line,
                                                                            year)
                    checked += 1
                assert ws.cell(rows[line], titles["Total"]).value == pytest.approx(
                    float(np.sum(monthly)), rel=1e-9, abs=1e-7)
            assert ws.cell(rows["total"], titles["Total"]).value == pytest.approx(
                r.total_cost, rel=1e-9)
            assert ws.cell(rows["discounted"], titles["Total"]).value == pytest.approx(
                r.pv_cost, rel=1e-9)
            figures = ledger.strategies[strategy].figures
            assert ws.cell(rows["online"], titles["Total"]).value == pytest.approx(
                figures["servers_max"])                     # MAX over the years' MAX
            assert ws.cell(rows["capex"], 1).value == LINE_TITLES["capex"]
    assert checked > 1000
