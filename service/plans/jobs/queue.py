"""The task queue: Huey, carrying only job ids (the job's row in the database is the truth).

``QUEUE_URL`` (env ``BUYRENT_QUEUE_URL``) picks the storage:
- unset: SQLite, ``<instance>/queue.sqlite3`` — the embedded default, no server to run;
  ``buyrent serve`` starts a consumer beside the web server;
- ``redis://host:port/db``: Redis, for web servers and ``buyrent worker`` processes on several
  machines (with the same PostgreSQL database);
- ``immediate``: Huey's immediate mode, the task runs when it is enqueued (the test client's
  tests, which have no worker process).

Huey does not redeliver a task whose worker was killed (its docs say so); the reaper
(service.plans.jobs.records.reap) enqueues a stale job again, and a job id delivered twice is
harmless: only one worker can claim it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from flask import Flask, current_app

from huey import MemoryHuey, PriorityRedisHuey, SqliteHuey
from huey.api import Huey

NAME = "buyrent"
TASK = "buyrent.run_job"


def make_huey(url: Optional[str], instance: Path) -> Huey:
    if url == "immediate":
        return MemoryHuey(NAME, immediate=True, results=False)
    if url and url.startswith(("redis://", "rediss://", "unix://")):
        return PriorityRedisHuey(NAME, url=url, results=False)
    instance.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(NAME, filename=str(url or instance / "queue.sqlite3"), results=False)


def init_app(app: Flask, run_job: Callable[[int], None]) -> Huey:
    """The app's Huey, with the job task registered under one name (web and worker alike)."""
    huey = make_huey(app.config.get("QUEUE_URL"), Path(app.instance_path))
    app.extensions["buyrent_queue"] = (huey, huey.task(name=TASK)(run_job))
    return huey


def app_huey(app: Flask) -> Huey:
    return app.extensions["buyrent_queue"][0]


def enqueue(job_id: int, priority: int = 0) -> None:
    """Put a job id on the current app's queue; higher priority first (a user with fewer jobs
    in flight)."""
    current_app.extensions["buyrent_queue"][1](job_id, priority=priority)
