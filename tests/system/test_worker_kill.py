"""Kill -9 a real ``buyrent worker`` while it computes a plan (issue 28): the job is not lost,
not done twice, nothing is half-written, and the killed worker leaves no process computing.

Huey does not redeliver a task whose worker was killed; the job's row is the truth: its
heartbeat goes stale, a second worker's reaper queues it again, and only the second claim's
writes count. The plan is the growth sample with its Monte Carlo (seconds of work), on the
embedded default (SQLite database and SQLite queue in one instance folder).
"""
from __future__ import annotations

import json
import os
import signal
import time
from itertools import groupby
from pathlib import Path

from sqlalchemy import func, select, update

from models.scenario import Scenario
from service.app import create_app
from service.plans.jobs import records
from tests.support.service_plans import plan_for
from service.plans.revisions import create_scenario, store_usage
from service.plans.stored import ensure_plan
from service.web.db import write_session
from service.web.tables import PlanJob, PlanRecord
from service.web.users import create_user
from tests.support.client import PASSWORD
from tests.support.jobs import (alive, descendants, differences, install_job_log, job_log,
                                start_worker, stop_process, wait_until)
from tests.support.paths import SAMPLE_USAGE, SAMPLES

GROWTH = SAMPLES / "scenario_growth.json"
CONFIG = {"PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000", "SECRET_KEY": "worker-kill"}


def seed(instance: Path):
    """A migrated instance with an analyst and the growth sample's revision, no plan yet; its
    plan job queued (SQLite queue in the instance folder). Returns the app, the job id, the
    revision id and the model."""
    app = create_app({**CONFIG, "INSTANCE_PATH": str(instance)})
    install_job_log(app.extensions["buyrent_engine"])
    model = Scenario.model_validate(json.loads(GROWTH.read_text()))
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "ana", PASSWORD, "analyst")
            usage = store_usage(s, ana, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            revision = create_scenario(s, ana, model, usage)
            _ = revision.usage_file
        job = ensure_plan(revision, owner=f"user:{ana.id}")
    assert job.state == "queued"
    return app, job.id, revision.id, model


def row(app, job_id: int) -> PlanJob:
    with app.app_context():
        return records.fresh(job_id)


def test_a_killed_workers_plan_is_done_once_by_the_next_worker(tmp_path):
    started = time.monotonic()
    instance = tmp_path / "instance"
    app, job_id, revision_id, model = seed(instance)
    engine = app.extensions["buyrent_engine"]
    first = start_worker(instance, "first")
    second = None
    try:
        wait_until(lambda: row(app, job_id).state == "running", 120,
                   "the first worker claiming the job", step=0.1)
        # the next worker starts meanwhile (its imports take seconds on a busy machine): it
        # finds nothing queued, and its reaper looks at the running job every REAP_SECONDS
        second = start_worker(instance, "second")
        # past its first heartbeat (its child's pid is in the progress)
        progress = wait_until(lambda: row(app, job_id).progress, 90,
                              "the first worker's first heartbeat", step=0.1)
        claimed_seconds = time.monotonic() - started
        child = json.loads(progress)["pid"]
        running = row(app, job_id)
        assert running.state == "running" and running.attempts == 1
        assert running.claim.split(":")[1] == str(first.pid)
        under_first = descendants(first.pid)
        assert under_first.get(child) == 2          # the forkserver's child
        os.kill(first.pid, signal.SIGKILL)          # no cleanup, no flush: a real crash
        first.wait(timeout=10)
        killed_at = time.monotonic()
        # the forkserver sees its parent gone and exits, and the child dies with it
        # (PDEATHSIG, service.plans.jobs.runner.die_with_parent) if its next write to the dead
        # worker's pipe has not ended it first
        # (seconds on a 2-core machine under a load of 10: the forkserver's teardown)
        wait_until(lambda: not any(alive(pid) for pid in under_first), 30,
                   f"the killed worker's processes {under_first} ending")
        gone_seconds = time.monotonic() - killed_at
        orphan = row(app, job_id)
        assert (orphan.state, orphan.claim) == ("running", running.claim)
        assert orphan.document is None or orphan.stage in ("static", "staged")
        with app.app_context():
            with write_session() as s:
                assert s.scalar(select(func.count()).select_from(PlanRecord).where(
                    PlanRecord.revision_id == revision_id)) == 0
        # the killed worker's last heartbeat, STALE_SECONDS ago: the time it takes the reaper
        # to see a dead worker, passed at once
        with app.app_context():
            with write_session() as s:
                s.execute(update(PlanJob).where(PlanJob.id == job_id).values(
                    heartbeat_at=time.time() - records.STALE_SECONDS - 1))
        # meanwhile, the same inputs planned in this process
        spec = json.loads(orphan.spec)
        expected = plan_for(model, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name,
                            current_month=spec["month"])
        done = wait_until(lambda: (r := row(app, job_id)).state in ("done", "failed") and r,
                          180, "the second worker finishing the plan", step=0.2)
        reaped_done = time.monotonic() - killed_at
        assert done.state == "done", done.error
        assert done.attempts == 2 and done.claim.split(":")[1] == str(second.pid)
        with app.app_context():
            with write_session() as s:
                records_ = s.scalars(select(PlanRecord).where(
                    PlanRecord.revision_id == revision_id)).all()
        assert len(records_) == 1
        # the same plan; its floats to 1e-12 (the worker's child and this process have summed
        # one screening-curve point 1 ulp apart: 16789.10302173188 against ...884)
        assert differences(json.loads(records_[0].document),
                           json.loads(json.dumps(expected.document)), rel=1e-12) == []
        assert records_[0].document == done.document and records_[0].ledger == done.ledger
        # claimed twice, reaped once, done once, and only under the second claim
        log = job_log(engine, job_id)
        states = [key for key, _ in groupby((state, claim) for state, _, claim, _, _ in log)]
        assert states == [("running", running.claim), ("queued", None),
                          ("running", done.claim), ("done", done.claim)], log
        after_reap = log[[entry[0] for entry in log].index("queued"):]
        assert all(claim != running.claim for _, _, claim, _, _ in after_reap)
        assert [stage for _, stage, claim, _, _ in log if claim == done.claim][-1] == "complete"
        print(f"worker kill figures: first heartbeat {claimed_seconds:.1f} s after the start; "
              f"killed worker's processes gone {gone_seconds:.1f} s after the kill; plan done "
              f"by the second worker {reaped_done:.1f} s after the kill; whole test "
              f"{time.monotonic() - started:.1f} s")
    finally:
        stop_process(first)
        if second is not None:
            stop_process(second)
        engine.dispose()
