"""``buyrent worker``: Huey's consumer threads computing plan jobs, and the reaper.

Each consumer thread runs one job at a time (service.plans.jobs.runner: a child process per job);
the reaper queues again the jobs whose worker stopped (stale heartbeat) and promotes waiting
ones. Any number of workers, on any machines, share one database and one queue (Redis).
"""
from __future__ import annotations

import logging
import signal
import threading

from flask import Flask

from service.plans.jobs import queue, records, runner

log = logging.getLogger("buyrent.jobs")
REAP_SECONDS = 5.0


def reaper(app: Flask, stop: threading.Event) -> None:
    while not stop.wait(REAP_SECONDS):
        try:
            with app.app_context():
                records.reap()
        except Exception:   # the database away for a moment: try again next round
            log.exception("reaping plan jobs failed")


def consumer_for(app: Flask, jobs: int, warm_meanwhile: bool = False):
    """The app's consumer with ``jobs`` threads, the reaper started beside it. The forkserver
    serves before it returns (runner.start_forkserver), or with ``warm_meanwhile`` starts in a
    thread of its own (a job's child waits for it, its heartbeat kept: runner.start_child)."""
    runner.bind(app)
    if warm_meanwhile:
        threading.Thread(target=runner.start_forkserver, daemon=True,
                         name="forkserver-start").start()
    else:
        runner.start_forkserver()
    stop = threading.Event()
    threading.Thread(target=reaper, args=(app, stop), daemon=True, name="reaper").start()
    with app.app_context():
        records.reap()          # jobs of a worker that stopped before this one started
    consumer = queue.app_huey(app).create_consumer(
        workers=max(1, jobs), worker_type="thread", periodic=False, initial_delay=0.05,
        backoff=1.5, max_delay=0.5, check_worker_health=True)
    return consumer, stop


def run_worker(app: Flask, jobs: int = 2) -> None:
    """Consume the app's queue with ``jobs`` threads until SIGINT/SIGTERM."""
    consumer, stop = consumer_for(app, jobs)
    try:
        consumer.run()
    finally:
        stop.set()


def start_worker_threads(app: Flask, jobs: int = 2) -> None:
    """Consume in threads of this process, returning at once (a test's served app: its
    process ends with SIGTERM; its forkserver starts meanwhile)."""
    consumer, _stop = consumer_for(app, jobs, warm_meanwhile=True)
    consumer.start()
    # Consumer.start set handlers that only consumer.run's loop acts on: without that loop
    # SIGTERM did nothing, and every stop of a served test app waited 10 s for its SIGKILL
    for signum, handler in ((signal.SIGTERM, signal.SIG_DFL),
                            (signal.SIGINT, signal.default_int_handler),
                            (signal.SIGHUP, signal.SIG_DFL)):
        signal.signal(signum, handler)
