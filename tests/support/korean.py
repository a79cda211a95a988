"""Korean pages in Chromium: the English words a Korean reader may meet (proper names, units,
codes), a reader of every other English word on a page, Chromium in Korean with a CJK font,
and the screenshot-and-collect step of each page (tests/system/test_browser_korean.py,
tests/system/test_presets_browser.py, tests/system/test_korean_team_flow.py)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterator

from tests.support.chromium import ARGS, ARTIFACTS, CHROMIUM, new_page
from tests.support.client import PASSWORD

# Proper names, units, formats and codes a Korean reader meets as they are.
ALLOWED = {
    "buyrent", "AWS", "H100", "GPU", "PV", "CSV", "XLSX", "xlsx", "json", "kW", "kWh", "UTC",
    "P10", "P50", "P90", "US", "USD", "KRW", "PUE", "TB", "GB", "FTE", "ISO", "VAT", "Excel",
    "API", "SHA", "ID", "APR", "MACRS", "YYYY", "MM", "PDF", "A4",
    # risk measures of the robust plan (issue 27), named as finance texts name them
    "CVaR", "EVPI", "VSS",
    # file formats the upload page names (products and dataset names)
    "FOCUS", "CUR", "Azure", "Google", "Cloud", "Slurm", "Contract", "Commitment", "DCGM",
    "exporter", "Prometheus",
}
# The form's "Source:" notes cite publications, vendors and instance types by their names.
SOURCES = {
    "Epoch", "AI", "CBRE", "Uptime", "Institute", "Lambda", "Nebius", "SkyPilot", "Llama",
    "EIA", "HPC", "DGX", "HGX", "SXM", "NAS", "IP", "EC2", "GCP", "S3", "Standard", "Spot",
    "Advisor", "p5", "P5", "xlarge", "us", "east", "east4", "f2", "ln",
}
REVISION = re.compile(r"r\d+")   # r1, r2: revision references
# What the test itself typed or uploaded: user names, team names, the usage file's name.
USER_DATA = {"ana", "rita", "serving", "research", "usage", "hourly", "csv"}
# Visible text of a page, text node by text node (so that table cells stay apart), with
# every <details> opened (chart data tables, advanced form sections): without <code> (hashes,
# keys, commands) and without what is marked lang="en" (the language switch's own name,
# sentences a reader wrote that the catalog does not know), plus every chart's SVG text.
VISIBLE_TEXT = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const skip = 'code, script, style, [lang=en], .chart, select option:not(:checked)';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement.closest(skip)) { parts.push(n.textContent); }
  }
  const charts = [...document.querySelectorAll('.chart svg text')].map(t => t.textContent);
  return [parts.join(' '), charts.join(' ')].join(' ');
}"""


def english_words(page, allowed: frozenset = frozenset()) -> list[str]:
    """Each English word of the page with a little of the text around it."""
    text = page.evaluate(VISIBLE_TEXT)
    out = {}
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9]+", text):
        w = m.group(0)
        if (w not in ALLOWED | USER_DATA | allowed and not REVISION.fullmatch(w)
                and w not in out):
            out[w] = f"{w}: ...{text[max(0, m.start() - 25):m.end() + 25]}..."
    return sorted(out.values())


def korean_page(browser, problems: list[str]):
    return new_page(browser, problems, accept_downloads=True, locale="ko-KR",
                    extra_http_headers={"Accept-Language": "ko-KR,ko;q=0.9"})


def korean_chromium() -> Iterator:
    """Body of the ``korean_browser`` fixtures: Chromium in Korean, failing the test when the
    browser or a CJK font for Hangul is missing (scripts/system-packages)."""
    import pytest
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/system-packages")
    family = subprocess.run(["fc-match", "-f", "%{family}", ":lang=ko"], capture_output=True,
                            text=True).stdout
    if "CJK" not in family:
        pytest.fail(f"no CJK font for Hangul (fc-match gives {family!r}): install "
                    "fonts-noto-cjk (scripts/system-packages)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + ["--lang=ko-KR"])
        yield chromium
        chromium.close()


def check(page, name: str, found: dict[str, list[str]], allowed=frozenset()) -> None:
    """Screenshot the page (test-artifacts/ko-NAME.png) and collect its English words
    (asserted at the end of the test)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"ko-{name}.png"), full_page=True)
    words = english_words(page, frozenset(allowed))
    if words:
        found[name] = words


def log_in(page, base: str, name: str, found, shot: str = "01-login") -> None:
    """Log in through the Korean login page (checked as ``shot``)."""
    page.goto(f"{base}/login")
    assert page.locator("html").get_attribute("lang") == "ko"
    check(page, shot, found)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.narrow button[type=submit]")
    page.wait_for_url(f"{base}/scenarios/")


# the FOCUS 1.3 contract sample's four contracts as the upload's preview offers them: the H100
# contract checked, the L4 ones open, the 3-year H100 one refused (an offer term it lacks)
CONTRACT_BOXES = {"CC-GCP-A3-1Y": (True, False), "cud-l4-1y": (False, False),
                  "CC-GCP-H100-3Y": (False, True), "CC-GCP-G2-1Y": (False, False)}


def preview_contracts(page, contracts: Path) -> dict:
    """Upload a contract file to the scenario page's preview and read its four checkboxes:
    contract id -> (checked, disabled)."""
    page.set_input_files("#usage", str(contracts))
    page.click("#preview")
    page.wait_for_selector("#attach-commitments")
    return {page.get_attribute(f"#attach-{i}", "value").split('"id": "')[1].split('"')[0]:
            (page.is_checked(f"#attach-{i}"), page.is_disabled(f"#attach-{i}"))
            for i in range(1, 5)}


def refused_upload(page, tmp_path: Path, content: bytes) -> str:
    """Upload a broken usage file to the scenario page's preview; the refusal's text."""
    broken = tmp_path / "broken.csv"
    broken.write_bytes(content)
    page.set_input_files("#usage", str(broken))
    page.click("#preview")
    page.wait_for_selector("#upload-error")
    return page.inner_text("#upload-error")

