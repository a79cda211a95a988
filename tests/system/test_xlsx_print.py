"""Workbooks printed to PDF by LibreOffice headless: the growth plan's Summary and Breakeven
fit on three pages, the Korean workbook draws Hangul in a CJK font (poppler's pdftotext and
pdffonts read the PDF)."""
from __future__ import annotations

import subprocess

import pytest
from pypdf import PdfReader

from service.xlsx.libreoffice import export_pdf, to_pdf
from tests.support.xlsx_cases import growth_workbook, korean_workbook as write_korean_workbook


@pytest.fixture(scope="module")
def growth():
    return growth_workbook()


@pytest.fixture(scope="module")
def korean_workbook(tmp_path_factory, sample_plan):
    return write_korean_workbook(tmp_path_factory.mktemp("ko") / "plan-ko.xlsx",
                                 sample_plan[1].plan)


@pytest.mark.libreoffice
def test_summary_and_breakeven_of_the_growth_plan_print_in_at_most_three_pages(growth,
                                                                               tmp_path):
    _, data, _ = growth
    pdf = export_pdf(data, tmp_path, {"Summary", "Breakeven"})
    pages = PdfReader(str(pdf)).pages
    assert len(pages) <= 3, len(pages)
    text = " ".join(p.extract_text() for p in pages)
    assert "staged" in text and "Schedule of the staged plan" not in text


@pytest.mark.libreoffice
def test_korean_workbook_pdf_has_hangul_in_a_cjk_font(korean_workbook, tmp_path):
    pdf = to_pdf([korean_workbook], tmp_path)[0]
    text = subprocess.run(["pdftotext", "-l", "3", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "구매 대 임차 계획" in text and "현재가치 비용" in text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout
    assert "CJK" in fonts, fonts                    # Hangul drawn with a CJK font: no tofu
