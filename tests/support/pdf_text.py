"""Reading LibreOffice's PDF of a workbook: the size text is drawn at, words, pages by sheet.

The size of drawn text is measured twice, independently:

- :func:`text_sizes` (pypdf): for every text run, the font size of ``Tf`` times the vertical
  scale of the text matrix times the current transformation matrix, which is the em height the
  glyphs are painted at on the page, in points. A sheet printed at 75 % draws its 11 pt text
  at 8.25 pt; a chart's own text is scaled the same way. Font metrics play no part.
- :func:`word_heights` (poppler's ``pdftotext -bbox``): the height of each word's box, which
  poppler takes from the font's ascent and descent (about 1.2 em for Carlito, 1.16 em for
  Noto Sans CJK): a word drawn at 8 pt has a box at least 8 pt high.
"""
from __future__ import annotations

import math
import pathlib
import re
import subprocess
from dataclasses import dataclass

from pypdf import PdfReader

WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                  r'([^<]*)</word>')


@dataclass(frozen=True)
class Run:
    page: int       # 1-based
    size: float     # points, as drawn
    text: str


def text_sizes(pdf: pathlib.Path) -> list[Run]:
    """Every non-blank text run of the PDF with the size it is drawn at."""
    runs: list[Run] = []
    for number, page in enumerate(PdfReader(str(pdf)).pages, start=1):
        def visit(text, cm, tm, _font, size, number=number):
            if not text.strip():
                return
            # the text space's y axis on the page: (tm x cm) applied to (0, 1)
            c = tm[2] * cm[0] + tm[3] * cm[2]
            d = tm[2] * cm[1] + tm[3] * cm[3]
            runs.append(Run(number, float(size) * math.hypot(c, d), text.strip()))
        page.extract_text(visitor_text=visit)
    return runs


def word_heights(pdf: pathlib.Path) -> list[tuple[int, float, str]]:
    """(page, box height [points], word) of every word poppler finds. Vertical text (a chart's
    axis title) comes as one word a letter whose box lies on its side: for a one-letter word
    the longer side of the box counts."""
    xml = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True,
                         text=True, check=True).stdout
    out = []
    for number, page in enumerate(xml.split("<page ")[1:], start=1):
        for m in WORD.finditer(page):
            height = float(m.group(4)) - float(m.group(2))
            if len(m.group(5)) == 1:
                height = max(height, float(m.group(3)) - float(m.group(1)))
            out.append((number, height, m.group(5)))
    return out


def page_texts(pdf: pathlib.Path) -> list[str]:
    """The text of each page (pdftotext, layout kept)."""
    count = len(PdfReader(str(pdf)).pages)
    return [subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout
            for n in range(1, count + 1)]


def sheet_pages(texts: list[str], sheet: str) -> list[int]:
    """The 1-based pages whose footer names ``sheet`` ("Summary, page 2 of 12")."""
    return [n for n, text in enumerate(texts, start=1)
            if re.search(rf"\b{re.escape(sheet)}, page \d+ of \d+", text)]


def screenshots(pdf: pathlib.Path, outdir: pathlib.Path, prefix: str, last: int = 2,
                dpi: int = 80) -> list[pathlib.Path]:
    """PNG images of the first ``last`` pages (pdftoppm), ``prefix``-1.png ..."""
    outdir.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-png", "-r", str(dpi), "-f", "1", "-l", str(last), str(pdf),
                    str(outdir / prefix)], check=True)
    return sorted(outdir.glob(f"{prefix}-*.png"))
