"""The steps of plan against actual that the Plan vs actual workbook and chart tests take
(tests/web/test_variance_sheet_web.py, tests/system/test_variance_charts_browser.py): approve
revision 1 naming a strategy, upload bills, the sample bills. The steps
themselves are tests/support/actual_steps.py's."""
from __future__ import annotations

import json
import re

from tests.support.actual_steps import BILLS, R1, approve, sample_files, upload  # noqa: F401
from tests.support.paths import SAMPLE_SCENARIO

# the sample bills' file names and the words of the demo scenario's name: data, shown as typed
# on a Korean page
SAMPLE_WORDS = {"focus"} | set(re.findall(r"[A-Za-z][A-Za-z0-9]+",
                                          json.loads(SAMPLE_SCENARIO.read_text())["name"]))
