"""Printing (issue 16): the plan page on A4 and Letter in at most 4 pages (Chromium's PDF),
the workbook's print setup, and LibreOffice's PDF of Summary plus Breakeven in at most 3."""
from __future__ import annotations

import io

import openpyxl
import pytest

from service.xlsx.libreoffice import export_pdf
from tests.support.chromium import (login, new_page, pdf_pages, server_fixture,
                                    shot)

R1 = "/scenarios/1/revisions/1"


def _workbook(login_fn) -> tuple[bytes, str]:
    client = login_fn("ana")
    html = client.get(R1).get_data(as_text=True)
    digest = html.split('id="revision-hash">')[1].split("<")[0]
    return client.get(R1 + "/plan.xlsx").data, digest


def test_summary_and_breakeven_have_print_setup_and_the_profile_hours_do_not_print(login):
    data, digest = _workbook(login)
    book = openpyxl.load_workbook(io.BytesIO(data))
    for name in ("Summary", "Breakeven"):
        ws = book[name]
        assert ws.page_setup.orientation == "landscape", name
        if name == "Summary":    # one scale for its two pages, the second after a break
            assert int(ws.page_setup.scale) >= 75 and len(ws.row_breaks.brk) == 1
        else:                    # fitToWidth is omitted when it is 1 (the OOXML default)
            assert ws.sheet_properties.pageSetUpPr.fitToPage
            assert ws.page_setup.fitToWidth in (None, 1)
            assert ws.page_setup.fitToHeight == 0
        assert ws.print_title_rows == "$1:$2", name
        footer = ws.oddFooter
        assert "8x H100 SXM servers vs AWS" in footer.left.text
        assert f"revision 1 · hash {digest[:16]}" in footer.center.text
        assert "&P" in footer.right.text and "&N" in footer.right.text
    months = book["Profile"].max_row  # the hour rows make the sheet long
    assert months > 8000
    assert book["Profile"].print_area == "'Profile'!$G$1"    # one empty cell: nothing prints
    assert book["Breakeven"].print_area.startswith("'Breakeven'!$A$1:$N$")


@pytest.mark.libreoffice
def test_libreoffice_prints_summary_and_breakeven_in_at_most_three_pages(login, tmp_path):
    data, digest = _workbook(login)
    pdf = export_pdf(data, tmp_path, {"Summary", "Breakeven"})
    from pypdf import PdfReader
    reader = PdfReader(str(pdf))
    assert len(reader.pages) <= 3, len(reader.pages)
    text = [page.extract_text() for page in reader.pages]
    assert all(f"revision 1 · hash {digest[:16]}" in t for t in text)
    assert any("Summary, page 1 of" in t for t in text)
    assert any("Breakeven, page" in t for t in text)        # pages count across the PDF
    assert all("8x H100 SXM servers vs AWS" in t for t in text)
    assert not any("Usage profile" in t for t in text)          # nothing else printed
    (tmp_path / "workbook.pdf").replace(_artifact("workbook-summary-breakeven.pdf"))


def _artifact(name: str):
    from tests.support.chromium import ARTIFACTS
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


@pytest.fixture
def server(tmp_path):
    yield from server_fixture(tmp_path)



@pytest.mark.browser
def test_plan_page_prints_on_a4_and_letter_in_at_most_four_pages(server, browser):
    problems: list[str] = []
    page = new_page(browser, problems)
    login(page, server, "rita")
    page.goto(server + R1)
    for chart in ("chart-cumulative", "chart-by-source", "chart-load-duration",
                  "chart-screening"):
        page.wait_for_selector(f"#{chart} g.trace", state="attached")
    from pypdf import PdfReader
    for paper in ("A4", "Letter"):
        data = page.pdf(format=paper, print_background=True)
        _artifact(f"plan-{paper}.pdf").write_bytes(data)
        pages = pdf_pages(data)
        assert pages <= 4, (paper, pages)
        text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
        assert "Audit log" not in text and "Log out" not in text        # no navigation
        assert "Monthly cash flows" not in text and "Downloads" not in text
        for expected in ("Optimal mix", "PV cost", "Cumulative cost by strategy",
                         "Screening curves", "Load-duration curve", "Monthly cost by source",
                         "Not approved", "Schedule", "Purchase orders", "Compare schedules"):
            assert expected in text, (paper, expected)
    page.emulate_media(media="print")
    shot(page, "review-10-plan-print-media")
    page.context.close()
    assert problems == []
