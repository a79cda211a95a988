"""Print setup of the plan workbook: the whole workbook prints as a report (issue 25).

Every sheet prints landscape on A4 with a footer naming the scenario, the revision and its hash
(so a printout can be matched to the exact revision that was approved). Each sheet's print
area is what a reader needs on paper: the Summary on two pages, a strategy sheet's yearly
roll-up on one, the key assumptions on one; the monthly columns, the hour-by-hour usage and the
long tables stay on screen, outside the print areas. A print area is fitted to its pages only
while the text stays readable: the workbook's 11 pt text printed at 75 % or more is 8.25 pt
or more (:func:`fit`); a larger area prints at 75 % over more pages.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Optional

from service.i18n import _

MARGINS = {"left": 0.4, "right": 0.4, "top": 0.5, "bottom": 0.6}  # inches
NAME_CHARS = 60  # Excel allows 255 characters per footer, codes included
# A4 landscape less the margins, in points (72 per inch): 841.9 x 595.3 pt
PAGE_WIDTH = 841.9 - 72 * (MARGINS["left"] + MARGINS["right"])
PAGE_HEIGHT = 595.3 - 72 * (MARGINS["top"] + MARGINS["bottom"]) - 14   # the footer's line
FONT_SIZE = 11.0     # the workbook's text (XlsxWriter's default format), and the footer's
MIN_SCALE = 75       # percent: 11 pt x 0.75 = 8.25 pt, at least 8 pt on paper
ROW_HEIGHT = 15.0    # points: the default row of 11 pt text
# Widths are Excel's (Calibri 11); LibreOffice lays them out alike with Carlito, Calibri's
# metric twin (scripts/system-packages). Text is given 10 % more room than Calibri needs.
WIDE_FONT = 1.1


@dataclass(frozen=True)
class PrintLabel:
    """Which plan a printout is: scenario name, revision number and content hash."""

    scenario: str
    revision: Optional[int] = None
    content_hash: Optional[str] = None

    def revision_text(self) -> str:
        if self.revision is None:
            return _("not a saved revision")
        text = _("revision %(n)s", n=self.revision)
        return text + (" · " + _("hash %(hash)s", hash=self.content_hash[:16])
                       if self.content_hash else "")


def footer_text(label: PrintLabel) -> str:
    """Left: scenario name; centre: revision and hash; right: sheet and page (&-codes of the
    header/footer language; a literal & is written &&)."""
    name = label.scenario[:NAME_CHARS].replace("&", "&&")
    # "&11 " sets the font size (LibreOffice scales the footer with the sheet: 11 pt at
    # 75 % is 8.25 pt); the space keeps a name starting with a digit out of it
    page = _("&A, page &P of &N").replace("&", "&&").replace("&&A", "&A").replace(
        "&&P", "&P").replace("&&N", "&N")   # the codes stay codes; a translated & is literal
    size = f"&{FONT_SIZE:.0f} "
    return (f"&L{size}{name}&C{size}{label.revision_text().replace('&', '&&')}"
            f"&R{size}{page}")


def column_points(width: float) -> float:
    """A column ``width`` characters wide, in points (XlsxWriter: 7 pixels a character plus
    5 of padding; 0.75 point a pixel)."""
    return (int(width * 7 + 0.5) + 5) * 0.75


def area_points(widths: list[float], heights: list[float]) -> tuple[float, float]:
    """Width and height in points of a print area: its columns' widths in characters and its
    rows' heights in points."""
    return WIDE_FONT * sum(column_points(w) for w in widths), sum(heights)


def text_width(text: str) -> float:
    """``text``'s width in column characters: a Latin letter of Calibri 11 averages about
    0.8 of the digit a column character measures, a Hangul or other wide letter two."""
    return sum(2.0 if unicodedata.east_asian_width(ch) in "WF" else 0.8 for ch in text)


def text_lines(text: str, width_chars: float) -> int:
    """The lines ``text`` wraps to in a (merged) cell ``width_chars`` characters wide (a
    tenth kept free: words wrap whole)."""
    per_line = max(10.0, width_chars * 0.9)
    return max(1, sum(-(-int(text_width(part) + 0.999) // int(per_line))
                      for part in str(text).split("\n")))


def fit(width: float, height: float, pages_tall: int = 1) -> Optional[int]:
    """The print scale for an area ``width`` x ``height`` points: None (fit it to one page
    wide and ``pages_tall`` tall) when fitting keeps the scale at MIN_SCALE or above, else
    MIN_SCALE (the area then spans more pages, each readable)."""
    need = min(PAGE_WIDTH / max(width, 1.0), pages_tall * PAGE_HEIGHT / max(height, 1.0))
    return None if need * 100 >= MIN_SCALE else MIN_SCALE


def print_setup(ws, label: PrintLabel, repeat: Optional[tuple[int, int]] = None,
                pages_tall: int = 0, scale: Optional[int] = None) -> None:
    """Landscape A4, ``repeat`` rows (first, last) on every page, the footer; one page wide
    and ``pages_tall`` tall (0: as many as it takes), or ``scale`` percent when given."""
    ws.set_landscape()
    ws.set_paper(9)  # A4; Letter printers scale it (fit to width keeps every column)
    if scale is None:
        ws.fit_to_pages(1, pages_tall)
    else:
        ws.set_print_scale(scale)
    if repeat is not None:
        ws.repeat_rows(*repeat)
    ws.set_margins(**MARGINS)
    ws.set_footer(footer_text(label))


def print_nothing(ws) -> None:
    """A sheet that stays on screen: its print area is one empty cell, the one right of
    everything written so far (call it last), and LibreOffice and Excel print no empty
    page."""
    empty = (ws.dim_colmax or 0) + 1
    ws.print_area(0, empty, 0, empty)


CHART_FONT = {"size": FONT_SIZE}           # axis numbers, axis titles, legend
CHART_TITLE_FONT = {"size": 12, "bold": True}


def chart_text(chart, title: str, x_axis: Optional[dict] = None,
               y_axis: Optional[dict] = None, legend: Optional[dict] = None) -> None:
    """Title, axes and legend of a chart in the workbook's text size, so that they print at
    8 pt or more at the sheet's scale (LibreOffice would draw them at 10 pt, 7.5 pt at 75 %)."""
    chart.set_title({"name": title, "name_font": CHART_TITLE_FONT})
    for setter, axis in ((chart.set_x_axis, x_axis), (chart.set_y_axis, y_axis)):
        axis = dict(axis or {})
        axis.setdefault("num_font", CHART_FONT)
        if "name" in axis:
            axis.setdefault("name_font", CHART_FONT)
        setter(axis)
    legend = dict(legend if legend is not None else {"position": "bottom"})
    legend.setdefault("font", CHART_FONT)
    chart.set_legend(legend)
