"""Steps of the plan-against-actual tests through the test client (issue 43): approve the
demo scenario's revision 1 naming a strategy, upload bills, the six sample bills; and the
English words left on a Korean page read as HTML (the alert pages' check)."""
from __future__ import annotations

import io
import re
from html.parser import HTMLParser

from tests.support.client import revision_hash
from tests.support.paths import ROOT, SAMPLES

R1 = "/scenarios/1/revisions/1"
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
# The six FOCUS bills the sample held before it moved to the `proposed` strategy (made by
# samples/actuals/generate.py against the demo plan's cloud_only strategy, at 8b4b6b2): the
# alert tests' figures were read from them, and the demo's cloud_only plan has not changed.
CLOUD_ONLY_BILLS = sorted((ROOT / "tests" / "data" / "actuals_cloud_only").glob("*.csv"))
# units, formats and names a Korean reader meets as they are on these pages
KOREAN_ALLOWED = {"GPU", "GPUs", "USD", "FOCUS", "CSV", "XLSX", "AWS", "Azure", "Google",
                  "Cloud", "CUR", "UTC", "SHA", "buyrent", "H100", "SXM", "p5", "xlarge",
                  "us", "east", "ana", "rita", "rex", "otto", "root", "Rex", "own", "vs",
                  "servers", "usage_hourly", "csv"}


def approve(client, app, strategy=None, comment="Numbers checked."):
    data = {"decision": "approve", "comment": comment, "revision_hash": revision_hash(app)}
    if strategy is not None:
        data["strategy"] = strategy
    return client.post(R1 + "/reviews", data)


def upload(client, files, scenario_id=1, **fields):
    data = {"bills": [(io.BytesIO(body), name) for name, body in files], **fields}
    return client.post(f"/scenarios/{scenario_id}/actuals", data,
                       content_type="multipart/form-data")


def sample_files(paths=BILLS):
    return [(p.name, p.read_bytes()) for p in paths]


class _Text(HTMLParser):
    """A page's visible text without scripts, styles and <code> (hashes, commands)."""
    SKIP = {"script", "style", "code"}

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


def english_words(html: str, allowed=frozenset()) -> list[str]:
    """Each English word of a page's visible text (hex digests and r1-style references
    left out) with a little text around it."""
    reader = _Text()
    reader.feed(html)
    text = re.sub(r"\b(?=[0-9a-f]*[0-9])[0-9a-f]{7,}\b", " ", " ".join(reader.parts))
    out = {}
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9_]*", text):
        w = m.group(0)
        if w not in KOREAN_ALLOWED | set(allowed) and not re.fullmatch(r"r\d+|\d+x", w) \
                and len(w) > 1 and w not in out:
            out[w] = f"{w}: ...{' '.join(text[max(0, m.start() - 30):m.end() + 30].split())}..."
    return sorted(out.values())
