"""The steps of plan against actual that the Plan vs actual workbook and chart tests take
(tests/web/test_variance_sheet_web.py, tests/system/test_variance_charts_browser.py): approve
revision 1 naming a strategy, upload bills, the sample bills. The same steps as
tests/web/test_actuals.py takes, kept here because a test file imports no other."""
from __future__ import annotations

import io
import json
import re

from tests.support.client import revision_hash
from tests.support.paths import SAMPLE_SCENARIO, SAMPLES

R1 = "/scenarios/1/revisions/1"
BILLS = sorted((SAMPLES / "actuals").glob("focus_1.3_2027-0*.csv"))
# the sample bills' file names and the words of the demo scenario's name: data, shown as typed
# on a Korean page
SAMPLE_WORDS = {"focus"} | set(re.findall(r"[A-Za-z][A-Za-z0-9]+",
                                          json.loads(SAMPLE_SCENARIO.read_text())["name"]))


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

