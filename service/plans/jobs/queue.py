"""The task queue: Huey, carrying only job ids (the job's row in the database is the truth).

``QUEUE_URL`` (env ``BUYRENT_QUEUE_URL``) picks the storage:
- unset: SQLite, ``<instance>/queue.sqlite3`` — the embedded default, no server to run;
  ``buyrent serve`` starts a consumer beside the web server;
- ``redis://host:port/db``: Redis, for web servers and ``buyrent worker`` processes on several
  machines (with the same PostgreSQL database);
- ``immediate``: Huey's immediate mode, the task runs when it is enqueued (the test client's
  tests, which have no worker process).

The queue carries JSON, never pickles (service.plans.jobs.wire), and a Redis beyond loopback
must ask for a password (:func:`check_url`): docs/README-deploy.md, "The queue's Redis".

Huey does not redeliver a task whose worker was killed (its docs say so); the reaper
(service.plans.jobs.records.reap) enqueues a stale job again, and a job id delivered twice is
harmless: only one worker can claim it.
"""
from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urlsplit

from flask import Flask, current_app

from huey import MemoryHuey, PriorityRedisHuey, SqliteHuey
from huey.api import Huey

from service.plans.jobs.wire import JsonSerializer

NAME = "buyrent"
TASK = "buyrent.run_job"


class QueueRefused(ValueError):
    """A queue URL this service will not use (said to the person starting it, one line)."""


def is_loopback(host: str) -> bool:
    """Whether a host name or address is this machine's loopback (nothing else can reach it)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> None:
    """Refuse a Redis URL that would put the queue where anyone on the network can write it.

    A Redis on another machine must ask for a password (``requirepass`` or an ACL user,
    ``redis://USER:PASSWORD@host:6379/0``); ``rediss://`` adds TLS. Without a password only a
    Redis on loopback (127.0.0.0/8, ::1, localhost) or a unix socket is used.

    Raises
    ------
    QueueRefused
        The URL names a Redis beyond loopback with no password.
    """
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return
    host = parts.hostname or "localhost"
    if not parts.password and not is_loopback(host):
        raise QueueRefused(
            f"BUYRENT_QUEUE_URL: the Redis at {host} is not on loopback and the URL gives no "
            "password; anyone who can write to it could queue work for every worker. Give "
            "Redis a password (requirepass or an ACL user) and put it in the URL "
            "(redis://:PASSWORD@host:6379/0, rediss:// for TLS): docs/README-deploy.md")


def shown_url(url: Optional[str]) -> str:
    """A queue URL as printed or logged: the password replaced by ``***``."""
    if not url:
        return "SQLite in the instance folder"
    parts = urlsplit(url)
    if not parts.password:
        return url
    user = parts.username or ""
    netloc = f"{user}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return parts._replace(netloc=netloc).geturl()


def make_huey(url: Optional[str], instance: Path) -> Huey:
    """The Huey of a queue URL (module notes), carrying JSON messages of one task."""
    wire = JsonSerializer()      # its task's name once registered (init_app)
    if url == "immediate":
        return MemoryHuey(NAME, immediate=True, results=False, serializer=wire)
    if url and url.startswith(("redis://", "rediss://", "unix://")):
        check_url(url)
        return PriorityRedisHuey(NAME, url=url, results=False, serializer=wire)
    instance.mkdir(parents=True, exist_ok=True)
    return SqliteHuey(NAME, filename=str(url or instance / "queue.sqlite3"), results=False,
                      serializer=wire)


def init_app(app: Flask, run_job: Callable[[int], None]) -> Huey:
    """The app's Huey, with the job task registered under one name (web and worker alike)."""
    huey = make_huey(app.config.get("QUEUE_URL"), Path(app.instance_path))
    task = huey.task(name=TASK)(run_job)
    huey.serializer.task = registered_name(task)
    app.extensions["buyrent_queue"] = (huey, task)
    return huey


def registered_name(task) -> str:
    """The name Huey's messages give a task: its module, then the name it was given."""
    return f"{task.task_class.__module__}.{task.task_class.__name__}"


def app_huey(app: Flask) -> Huey:
    return app.extensions["buyrent_queue"][0]


def enqueue(job_id: int, priority: int = 0) -> None:
    """Put a job id on the current app's queue; higher priority first (a user with fewer jobs
    in flight)."""
    current_app.extensions["buyrent_queue"][1](job_id, priority=priority)
