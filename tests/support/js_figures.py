"""The figures static/js/app.js builds, as dicts: the page's chart builders run in Node on the
data a test gives (no browser), so a test reads the layout Plotly would get (panel domains,
axis ranges, automargin, annotations) exactly as the page computes it. Node is a test tool
here as Chromium is (scripts/system-packages): a missing one fails the test."""
from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from tests.support.paths import ROOT

APP_JS = ROOT / "static" / "js" / "app.js"
# app.js reads window and document when it loads; the builders themselves touch neither
RUN = """
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
global.window = {};
global.document = {addEventListener() {}, documentElement: {lang: input.lang}};
require("vm").runInThisContext(require("fs").readFileSync(input.script, "utf8"));
const figure = window.buyrentCharts.builders[input.builder](input.data);
process.stdout.write(JSON.stringify(figure));
"""


def build_figure(builder: str, data: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    """``{"data": [...], "layout": {...}}`` of app.js's builder ``builder`` on ``data``."""
    node = shutil.which("node")
    if node is None:
        raise AssertionError("Node is missing: run scripts/system-packages")
    done = subprocess.run([node, "-e", RUN], capture_output=True, text=True, check=False,
                          input=json.dumps({"script": str(APP_JS), "builder": builder,
                                            "data": data, "lang": lang}))
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return json.loads(done.stdout)
