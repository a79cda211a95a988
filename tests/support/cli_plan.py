"""The command line as the variance tests run it (tests/io/test_variance_sheet_cli.py,
tests/system/test_variance_sheet_recalc.py): ``buyrent`` in a subprocess and the demo plan's
document. No Flask app here: io tests may import it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT, SAMPLE_USAGE, SAMPLES


def buyrent(*args):
    return subprocess.run([sys.executable, "-m", "service.cli.main", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def demo_plan_document(directory: Path) -> Path:
    """The demo plan's document (``buyrent plan ... --json``), written to ``directory``."""
    out = buyrent("plan", str(SAMPLE_USAGE), "--scenario", str(SAMPLES / "scenario_h100.json"),
                  "--json")
    assert out.returncode == 0, out.stderr
    path = directory / "plan.json"
    path.write_text(out.stdout, encoding="utf-8")
    return path
