"""buyrent batch (issue 28): a sweep fanned out to real worker processes on the SQLite queue,
one summary table; each row is the plan the engine computes in-process for that scenario."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import openpyxl

from tests.support.plans import compute_plan
from models.scenario import Scenario
from service.ingest import read_usage
from tests.support.paths import ROOT, SAMPLES

DAILY = SAMPLES / "usage_daily.csv"


def batch_env(tmp_path) -> dict:
    """buyrent batch's environment: its own instance folder, the suite's month, the embedded
    database and queue."""
    env = {**os.environ, "BUYRENT_INSTANCE": str(tmp_path / "inst"),
           "BUYRENT_CURRENT_MONTH": "2026-12"}
    env.pop("DATABASE_URL", None)
    env.pop("BUYRENT_QUEUE_URL", None)
    return env


def test_a_sweep_is_planned_by_the_workers_into_one_summary(tmp_path):
    sweep = {"scenario": {"finance": {"horizon_months": 12}, "uncertainty": {"draws": 0}},
             "usage": str(DAILY), "sweep": {"owned.server_price": [250000, 400000]}}
    (tmp_path / "sweep.json").write_text(json.dumps(sweep))
    env = batch_env(tmp_path)
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


def test_a_batch_killed_with_minus_9_leaves_no_worker_computing(tmp_path):
    """docs/README-jobs.md promises nothing keeps computing once its process is gone; buyrent
    batch's workers outlived a batch killed with -9 (issue 40). They die with it (PDEATHSIG), and
    their job children with them."""
    import signal

    from tests.support.jobs import alive, descendants, wait_until
    sweep = {"scenario": {"uncertainty": {"draws": 2000}}, "usage": str(SAMPLES /
                                                                    "usage_hourly.csv"),
             "sweep": {"owned.server_price": [250000, 300000, 350000, 400000]}}
    (tmp_path / "sweep.json").write_text(json.dumps(sweep))
    env = batch_env(tmp_path)
    batch = subprocess.Popen([sys.executable, "-m", "service.cli.main", "batch",
                              str(tmp_path / "sweep.json"), "--jobs", "2", "--out",
                              str(tmp_path / "summary")], cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # two workers and at least one job child (a worker's forkserver's child) computing
        wait_until(lambda: batch.poll() is not None or
                   sum(1 for d in descendants(batch.pid).values() if d >= 3) >= 1, 240,
                   "the batch's workers computing", step=0.2)
        assert batch.poll() is None, "the batch ended before its workers computed"
        under = descendants(batch.pid)
        os.kill(batch.pid, signal.SIGKILL)
        batch.wait(10)
        wait_until(lambda: not any(alive(pid) for pid in under), 60,
                   f"the batch's processes {under} ending")
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.wait()


def test_a_job_child_dies_with_its_worker_even_while_its_parent_lives(tmp_path):
    """A job's child is the forkserver's: PDEATHSIG ends it only after the forkserver's own
    teardown (a red team saw 22-24 s of computing after the worker was killed, issue 40). The
    child watches its worker itself. Here its parent (this test) stays alive, so only that
    watch can end it."""
    import multiprocessing
    import signal
    import time

    from service.plans.jobs.runner import die_with
    from tests.support.jobs import alive, wait_until
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

    def child(pid: int) -> None:
        die_with(pid)
        time.sleep(600)          # computing

    proc = multiprocessing.get_context("fork").Process(target=child, args=(worker.pid,))
    proc.start()
    try:
        time.sleep(0.5)
        assert proc.is_alive()
        worker.kill()
        worker.wait()
        wait_until(lambda: not alive(proc.pid) or proc.exitcode is not None, 60,
                   "the child ending with its worker")
        proc.join(10)
        assert proc.exitcode == -signal.SIGKILL
    finally:
        if proc.is_alive():
            proc.kill()
        if worker.poll() is None:
            worker.kill()
