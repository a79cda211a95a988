"""buyrent batch (issue 28): a sweep fanned out to real worker processes on the SQLite queue,
one summary table; each row is the plan the engine computes in-process for that scenario."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import openpyxl

from models.plan import compute_plan
from models.scenario import Scenario
from service.ingest import read_usage
from tests.support.paths import ROOT, SAMPLES

DAILY = SAMPLES / "usage_daily.csv"


def test_a_sweep_is_planned_by_the_workers_into_one_summary(tmp_path):
    sweep = {"scenario": {"finance": {"horizon_months": 12}, "uncertainty": {"draws": 0}},
             "usage": str(DAILY), "sweep": {"owned.server_price": [250000, 400000]}}
    (tmp_path / "sweep.json").write_text(json.dumps(sweep))
    env = {**os.environ, "BUYRENT_INSTANCE": str(tmp_path / "inst"),
           "BUYRENT_CURRENT_MONTH": "2026-12"}
    env.pop("DATABASE_URL", None)
    env.pop("BUYRENT_QUEUE_URL", None)
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "batch",
                           str(tmp_path / "sweep.json"), "--jobs", "2", "--out",
                           str(tmp_path / "summary")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "2 of 2 scenarios planned" in done.stdout
    with open(tmp_path / "summary.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["owned.server_price"] for r in rows] == ["250000", "400000"]
    profile = read_usage(DAILY.read_bytes(), DAILY.name).profile
    for row in rows:
        model = Scenario.model_validate({**sweep["scenario"],
                                         "owned": {"server_price": float(row["owned.server_price"])},
                                         "name": row["scenario"]})
        plan = compute_plan(model, profile, current_month="2026-12")
        assert row["state"] == "done" and row["recommendation"] == plan.recommendation
        for name, strategy in plan.document["strategies"].items():
            assert float(row[f"pv_{name}"]) == strategy["pv_cost"]   # repr round-trips
    # a dearer server never lowers the best plan's PV
    assert float(rows[1]["pv_optimal"]) >= float(rows[0]["pv_optimal"])
    book = openpyxl.load_workbook(tmp_path / "summary.xlsx")
    sheet = book.active
    assert [c.value for c in sheet[1]][:3] == ["scenario", "owned.server_price", "state"]
    assert sheet.max_row == 3
    book.close()
