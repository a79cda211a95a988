"""Every sample's workbook, planned as the product plans it (with the robust plan over its
growth range, models/plan_options.py) on the sample usage, printed by LibreOffice headless
(issue 39, item 3): at most 12 pages; the key assumptions print fractions as percents and
money units in the scenario's currency, whole; no heading is the last line of a page; the
robust plan prints its decisions that are not zero as one table, not its grids.

Before: 16-18 pages (the Scenarios sheet's grids on two or three pages, one page per demand
scenario's sheet), "0.1 fraction per year", "currency per server", "per kW-month of maximum p".
"""
from __future__ import annotations

import io
import json
import re

import openpyxl
import pytest

from models.scenario import Scenario
from service.xlsx.libreoffice import to_pdf
from tests.support.pdf_text import page_texts, sheet_pages
from tests.support.plans import PRODUCT, compute_plan
from tests.support.xlsx_cases import HOURLY, SAMPLES, hourly_profile, plan_workbook

pytestmark = pytest.mark.libreoffice
MAX_PAGES = 12
SAMPLE_NAMES = ("h100", "l40s", "growth", "generations", "robust", "seoul")
FOOTER = re.compile(r", page \d+ of \d+|\d+쪽 중 \d+쪽")


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """name -> (plan, workbook bytes, page texts) of each sample in English, and of the
    robust sample in Korean ("robust-ko"), printed by one LibreOffice run (a run's start-up
    with a fresh profile is seconds, once instead of seven times)."""
    assert HOURLY.exists()
    profile = hourly_profile()
    folder = tmp_path_factory.mktemp("printed")
    books = {}
    for name in SAMPLE_NAMES:
        s = Scenario.model_validate(json.loads(
            (SAMPLES / f"scenario_{name}.json").read_text(encoding="utf-8")))
        plan = compute_plan(s, profile, options=PRODUCT)
        for lang in ("en", "ko") if name == "robust" else ("en",):
            key = name if lang == "en" else f"{name}-ko"
            books[key] = (plan, plan_workbook(plan, lang=lang))
    files = []
    for key, (_plan, data) in books.items():
        files.append(folder / f"{key}.xlsx")
        files[-1].write_bytes(data)
    pdfs = to_pdf(files, folder / "pdf", timeout=1800)
    return {key: (plan, data, page_texts(pdf))
            for (key, (plan, data)), pdf in zip(books.items(), pdfs)}


def last_body_line(text: str) -> str:
    """The last line of a page above its footer, its runs of spaces made one."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    body = []
    for line in lines:
        if FOOTER.search(line):
            break
        if line:
            body.append(line)
    return body[-1] if body else ""


def headings(data: bytes) -> set[str]:
    """The workbook's headings: bold text alone in its row (a title, a table's or a block's
    heading), on every sheet."""
    wb = openpyxl.load_workbook(io.BytesIO(data))
    out = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            filled = [c for c in row if c.value is not None]
            if (len(filled) == 1 and isinstance(filled[0].value, str)
                    and not filled[0].value.startswith("=") and filled[0].font.b):
                out.add(" ".join(filled[0].value.split()))
    return out


@pytest.mark.parametrize("name", SAMPLE_NAMES + ("robust-ko",))
def test_every_sample_prints_in_at_most_twelve_pages(printed, name):
    plan, _data, texts = printed[name]
    assert plan.ledger.robust, name          # planned as the product plans: a robust plan
    assert len(texts) <= MAX_PAGES, (name, len(texts))


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_no_heading_is_the_last_line_of_a_page(printed, name):
    _plan, data, texts = printed[name]
    heads = headings(data)
    assert "Decisions that are not zero, by demand scenario (each number reads its "\
           "scenario's block below)" in heads
    ends = {n: last_body_line(text) for n, text in enumerate(texts, start=1)}
    assert not {n: line for n, line in ends.items() if line in heads}


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_key_assumptions_print_percents_and_whole_units_in_the_currency(printed, name):
    plan, _data, texts = printed[name]
    s = plan.scenario
    pages = sheet_pages(texts, "Assumptions")
    assert len(pages) == 1
    page = [" ".join(line.split()) for line in texts[pages[0] - 1].splitlines()]
    rate = f"{s.finance.discount_rate_annual:.0%}"                  # 10%, not 0.1
    assert any(line.startswith(f"Discount rate {rate} per year") for line in page), page
    discount = next(o.discount for o in s.commitments if o.discount is not None)
    assert any(f"{discount * 100:g}% of on-demand price" in line for line in page)   # 41%
    assert not any("fraction" in line or "currency per" in line for line in page)
    owned = s.market_currency("owned")
    assert any(line.endswith(f"{owned} per server") for line in page)
    assert any(line.endswith(f"{owned} per kW-month of maximum power") for line in page)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_robust_plan_prints_its_decisions_that_are_not_zero_on_one_page(printed, name):
    plan, data, texts = printed[name]
    assert len(sheet_pages(texts, "Scenarios")) == 1
    page = texts[sheet_pages(texts, "Scenarios")[0] - 1]
    assert "Decisions of scenario" not in page          # the grids stay on screen
    # each scenario's sheet stays on screen: its figures print in the Scenarios table
    own = [n for n in openpyxl.load_workbook(io.BytesIO(data)).sheetnames
           if n.startswith("robust ")]
    assert len(own) == len(plan.ledger.robust)
    assert all(sheet_pages(texts, sheet) == [] for sheet in own)
    # every month in which some scenario decides something prints, and no other
    decided = {d.month for q in plan.ledger.robust for d in q.strategy.schedule_rows
               if d.buy or d.sell or any(d.commit.values()) or any(d.buy_by_type.values())
               or any(d.sell_by_type.values())}
    printed_months = set(re.findall(r"^\s*(\d{4}-\d{2})\s", page, re.M))
    assert printed_months == decided
