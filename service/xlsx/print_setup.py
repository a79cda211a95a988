"""Print setup of the plan workbook: what a reviewer prints is the Summary and the Breakeven.

Both sheets print landscape, one page wide, with their header rows repeated on every page and
a footer naming the scenario, the revision and its hash (so a printout can be matched to the
exact revision that was approved). The Profile sheet prints its monthly demand only: the
hour-by-hour usage (tens of thousands of rows) stays outside its print area.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from service.i18n import _

MARGINS = {"left": 0.4, "right": 0.4, "top": 0.5, "bottom": 0.6}  # inches
NAME_CHARS = 60  # Excel allows 255 characters per footer, codes included


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
    # "&8 " sets the font size; the space keeps a name starting with a digit out of it
    page = _("&A, page &P of &N").replace("&", "&&").replace("&&A", "&A").replace(
        "&&P", "&P").replace("&&N", "&N")   # the codes stay codes; a translated & is literal
    return (f"&L&8 {name}&C&8 {label.revision_text().replace('&', '&&')}"
            f"&R&8 {page}")


def print_setup(ws, label: PrintLabel, repeat: tuple[int, int]) -> None:
    """Landscape, one page wide, ``repeat`` rows (first, last) on every page, the footer."""
    ws.set_landscape()
    ws.set_paper(9)  # A4; Letter printers scale it (fit to width keeps every column)
    ws.fit_to_pages(1, 0)
    ws.repeat_rows(*repeat)
    ws.set_margins(**MARGINS)
    ws.set_footer(footer_text(label))
