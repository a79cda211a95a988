"""The plan as PDF: the plan page's print view rendered by Chromium headless.

The print view (templates/plans/print.html) is the plan page's own partials with the page's
stylesheet (its print rules: at most 4 pages) and chart scripts inlined, the plotly bundle the
app serves included, so Chromium renders one local file and fetches nothing; the network is
off besides (no proxy, every host name unresolvable). Chromium is a runtime need of this
download only: without it :func:`plan_pdf_bytes` raises :class:`PdfUnavailable` with a message
for the user, and the page answers 503 with it.

:func:`plan_pdf_bytes` is a plain function of a revision and its stored plan, callable from a
background worker inside an app and request context (``app.test_request_context()``: the
templates use ``url_for`` and the reader's language).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Optional

from flask import render_template
from markupsafe import Markup

from service.web.tables import Revision
from service.i18n import _
from service.paths import STATIC
from service.plans.page import plan_page_values

CHROMIUM_ENV = "BUYRENT_CHROMIUM"          # a path or command name; default: chromium
TIMEOUT = 120                              # s for one PDF (the sample takes about 3)
WINDOW = "1320,900"                        # the page's screen width: the print CSS scales
                                           # charts drawn at it to the paper
# flags as in tests/support/chromium.py, plus no network at all and a fresh profile per run
FLAGS = ["--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--no-proxy-server", "--host-resolver-rules=MAP * ~NOTFOUND",
         f"--window-size={WINDOW}", "--no-pdf-header-footer", "--virtual-time-budget=15000"]
# What the printed page may load: its own inline scripts and styles and data: images, nothing
# else: no frame, no file, no fetch. Chromium opens the page from a file:// URL, whose origin
# may read other local files; an outside red team had it render a file:// iframe of a local
# page into the PDF (issue 40). The policy is the page's first element, so it governs all of
# it, whatever the HTML holds.
PRINT_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
             "img-src data: blob:; font-src data:; frame-src 'none'; child-src 'none'; "
             "object-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")
_HEAD = re.compile(r"<head[^>]*>", re.IGNORECASE)
# each Chromium takes a few hundred MB: at most two at once per process
_renders = threading.BoundedSemaphore(2)


class PdfUnavailable(RuntimeError):
    """The PDF cannot be made here (Chromium missing or failing); the message is for users."""


def chromium() -> str:
    """The Chromium executable, or PdfUnavailable saying how to get one."""
    name = os.environ.get(CHROMIUM_ENV) or "chromium"
    found = shutil.which(name) or (shutil.which("chromium-browser") if name == "chromium"
                                   else None)
    if not found:
        raise PdfUnavailable(_("The PDF is made by Chromium, which is not installed on this "
                               "server: ask its administrator to install the chromium package "
                               "(scripts/system-packages). Printing the plan page from the "
                               "browser gives the same pages."))
    return found


def plan_pdf_bytes(revision: Revision, doc: dict, charts: dict, paper: str = "A4") -> bytes:
    """The print view of ``revision``'s plan (``doc`` and ``charts`` as stored) as PDF bytes,
    on ``paper`` (a CSS page size: "A4", "letter")."""
    html = print_html(revision, doc, charts, paper)
    return html_to_pdf(html)


def print_html(revision: Revision, doc: dict, charts: dict, paper: str = "A4") -> str:
    """The self-contained print view: stylesheet and scripts inline, nothing to fetch."""
    return render_template("plans/print.html", **plan_page_values(revision, doc, charts),
                           print_view=True, paper=paper, stylesheet=_inline(_stylesheet()),
                           scripts=[_inline(s) for s in _scripts()])


def with_policy(html: str) -> str:
    """``html`` with :data:`PRINT_CSP` as a meta element before anything else it holds."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{PRINT_CSP}">'
    found = _HEAD.search(html)
    if found is None:
        return f"<!doctype html><html><head>{meta}</head><body>{html}</body></html>"
    return html[:found.end()] + meta + html[found.end():]


def html_to_pdf(html: str, chromium_path: Optional[str] = None) -> bytes:
    """``html`` printed to PDF by Chromium headless with a fresh profile, under
    :data:`PRINT_CSP` (no frame, file or fetch)."""
    html = with_policy(html)
    exe = chromium_path or chromium()
    with _renders, tempfile.TemporaryDirectory(prefix="buyrent-pdf-") as tmp:
        folder = Path(tmp)
        page, out = folder / "plan.html", folder / "plan.pdf"
        page.write_text(html, encoding="utf-8")
        cmd = [exe, *FLAGS, *(["--no-sandbox"] if os.geteuid() == 0 else []),
               f"--user-data-dir={folder / 'profile'}", f"--print-to-pdf={out}", page.as_uri()]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise PdfUnavailable(_("Chromium took more than %(seconds)s s to print the plan; "
                                   "try again later.", seconds=TIMEOUT)) from None
        except OSError as exc:
            raise PdfUnavailable(_("Chromium could not be started to print the plan: "
                                   "%(reason)s", reason=exc.strerror or exc)) from None
        data = out.read_bytes() if out.exists() else b""
    if done.returncode != 0 or not data.startswith(b"%PDF"):
        tail = (done.stderr or "").strip().splitlines()[-1:] or [""]
        raise PdfUnavailable(_("Chromium failed to print the plan (exit %(code)s): %(detail)s",
                               code=done.returncode, detail=tail[0][:300]))
    return data


# what would end (or confuse) a <script>/<style> element early; these only occur in JS strings,
# where "<\/" and "<\!" mean the same
_EARLY_END = re.compile(r"<(/(?:script|style)|!--)", re.IGNORECASE)


def _inline(text: str) -> Markup:
    """Source for a <style> or <script> element, nothing in it ending the element early."""
    return Markup(_EARLY_END.sub(lambda m: "<\\" + m.group(1), text))


def _stylesheet() -> str:
    return (STATIC / "css" / "app.css").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _plotly() -> str:
    import plotly  # noqa: PLC0415 (heavy: as the app's own /vendor/plotly.min.js route)
    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(
        encoding="utf-8")


def _scripts() -> list[str]:
    """The plan page's chart scripts, in the page's order: plotly, then app.js."""
    return [_plotly(), (STATIC / "js" / "app.js").read_text(encoding="utf-8")]
