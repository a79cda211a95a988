"""Plan jobs on several machines (issue 28): two ``buyrent worker`` processes, each with its
own instance folder, share one PostgreSQL database and one Redis queue (a real redis-server
and a real PostgreSQL server on loopback, nothing mocked). Six plans of two users are queued:
each is computed once, by one of the workers, and both workers take jobs; the user with four
plans has one waiting until one of hers ends (JOBS_PER_OWNER), and a worker promotes it.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from models.scenario import Scenario
from service.app import create_app
from service.plans.jobs import records
from service.plans.revisions import create_scenario, store_usage
from service.plans.stored import ensure_plan
from service.web.db import write_session
from service.web.tables import PlanJob, PlanRecord
from service.web.users import create_user
from tests.support.client import PASSWORD
from tests.support.jobs import descendants, start_worker, stop_process, wait_until
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE
from tests.support.redis_server import redis_server

pytestmark = pytest.mark.postgres
CONFIG = {"PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000", "SECRET_KEY": "redis-pg"}
PLANS = {"ana": 4, "otto": 2}
DRAWS = 300      # a Monte Carlo too, kept short: six plans on a 2-core machine


def forkserver_up(worker) -> bool:
    """The worker has started its forkserver: it takes jobs from now on
    (service.plans.jobs.worker.consumer_for)."""
    for pid in descendants(worker.pid):
        try:
            if b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_two_workers_on_redis_and_postgresql_do_each_plan_once(tmp_path, pg_server_url):
    started = time.monotonic()
    with redis_server(password="queue-secret-of-the-test") as queue_url:   # as deployed
        database_url = pg_server_url     # this module's own server (tests/system/conftest.py)
        env = {"DATABASE_URL": database_url, "BUYRENT_QUEUE_URL": queue_url}
        app = create_app({**CONFIG, "INSTANCE_PATH": str(tmp_path / "web"),
                          "DATABASE_URL": database_url, "QUEUE_URL": queue_url})
        workers = [start_worker(tmp_path / f"machine{i}", f"worker{i}", **env)
                   for i in (1, 2)]
        try:
            for i, worker in enumerate(workers, 1):
                wait_until(lambda: worker.poll() is not None or forkserver_up(worker), 120,
                           "a worker starting", step=0.2)
                assert worker.poll() is None, (tmp_path / f"machine{i}" /
                                               f"worker{i}.log").read_text()
            ready = time.monotonic()
            base = Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))
            jobs = []
            with app.app_context():
                for name, count in PLANS.items():
                    with write_session() as s:
                        user = create_user(s, name, PASSWORD, "analyst")
                        usage = store_usage(s, user, SAMPLE_USAGE.read_bytes(),
                                            SAMPLE_USAGE.name)
                        revisions = [create_scenario(s, user, base.with_changes(
                            on_demand={"price_per_gpu_hour": 9 + i},
                            uncertainty={"draws": DRAWS}).model_copy(
                                update={"name": f"{name} {i}"}), usage) for i in range(count)]
                        for revision in revisions:
                            _ = revision.usage_file
                    jobs += [ensure_plan(r, owner=f"user:{user.id}") for r in revisions]
            assert [j.state for j in jobs] == ["queued"] * 3 + ["waiting"] + ["queued"] * 2

            def all_over():
                with app.app_context():
                    rows = [records.fresh(j.id) for j in jobs]
                return all(r.state in ("done", "failed") for r in rows) and rows
            rows = wait_until(all_over, 300, "six plans done by two workers", step=0.5)
            took = time.monotonic() - ready
            assert [(r.state, r.error) for r in rows] == [("done", None)] * 6
            assert [r.attempts for r in rows] == [1] * 6
            pids = {int(r.claim.split(":")[1]) for r in rows}
            assert pids == {w.pid for w in workers}, "both workers took jobs"
            with app.app_context():
                with write_session() as s:
                    for job in jobs:
                        assert s.scalar(select(func.count()).select_from(PlanRecord).where(
                            PlanRecord.revision_id == job.revision_id)) == 1
                        record = s.get(PlanRecord, job.revision_id)
                        assert record.document == records.fresh(job.id).document
                    assert s.scalar(select(func.count()).select_from(PlanJob)) == 6
            print(f"redis+postgresql workers: 6 plans in {took:.1f} s on 2 workers; "
                  f"workers up in {ready - started:.1f} s")
        finally:
            for worker in workers:
                stop_process(worker)
            app.extensions["buyrent_engine"].dispose()
