"""Configuration: defaults, then the instance folder, then the environment, then test values.

Environment variables: ``SECRET_KEY``, ``DATABASE_URL``, ``BUYRENT_INSTANCE`` (instance folder:
generated key, SQLite file), ``BUYRENT_MAX_UPLOAD_MB`` (request size limit),
``BUYRENT_PROXY_HOPS`` (reverse proxies whose X-Forwarded-* headers are trusted),
``BUYRENT_QUEUE_URL`` (the plan jobs' queue: service.plans.jobs.queue),
``BUYRENT_JOB_BUDGETS`` (``plan=600,preview=60``: a job kind's wall-clock budget [s]),
``BUYRENT_JOB_MEMORY_MB`` (a job child's address-space cap [MB]: service.plans.jobs.memory),
``BUYRENT_UPLOAD_JOB_ROWS`` (a usage upload of more rows is read by a job:
service.scenarios.upload_jobs),
``BUYRENT_ALERT_WEBHOOK_URL`` (the deployment's alert webhook, https: service.plans.alerts),
``BUYRENT_GROWTH_RANGE_SCENARIOS`` (``0``: no default robust plan: service.plan_options) and any
``FLASK_``-prefixed setting.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from models.plan_options import PlanOptions
from service import plan_options
from service.paths import DEFAULT_INSTANCE

DEFAULT_MAX_UPLOAD_MB = 20
DEFAULT_UPLOAD_JOB_ROWS = 20_000   # an hourly file of 2.3 years; the reader takes ~0.15 s
SECRET_FILE = "secret_key"


def instance_path() -> Path:
    return Path(os.environ.get("BUYRENT_INSTANCE") or DEFAULT_INSTANCE).resolve()


def defaults(instance: Path) -> dict:
    return {
        "SECRET_KEY": None,
        "DATABASE_URL": f"sqlite:///{instance / 'buyrent.sqlite3'}",
        "MAX_CONTENT_LENGTH": DEFAULT_MAX_UPLOAD_MB * 1024 * 1024,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": False,       # HTTPS requests get Secure anyway (app.py)
        "WTF_CSRF_TIME_LIMIT": None,          # token lives as long as the session
        "BUYRENT_DEMO": False,
        "LOGIN_MAX_FAILURES_PER_USER": 10,    # brute-force limit (service.web.throttle)
        "LOGIN_MAX_FAILURES_PER_IP": 50,
        "LOGIN_WINDOW_SECONDS": 15 * 60,
        "PROXY_HOPS": 0,                      # trusted reverse proxies in front (X-Forwarded-*)
        # plan jobs' queue (service.plans.jobs.queue): None = SQLite in the instance folder,
        # redis://... for workers on several machines, "immediate" = run when enqueued
        "QUEUE_URL": None,
        # settings that change a plan beyond its scenario (models/plan_options.py): part of
        # every plan job's spec and key
        "PLAN_OPTIONS": PlanOptions().to_dict(),
        # how long a request without Prefer: respond-async waits for a plan (API) [s]
        "SYNC_SECONDS": 30.0,
        "SYNC_WAITS": 2,            # API requests waiting for their plan at once (sync_waits)
        "SYNC_WAITS_PER_USER": 1,
        # wall-clock budget [s] per job kind, over service.plans.jobs.records.BUDGETS
        "JOB_BUDGETS": {},
        "JOB_MEMORY_MB": 4096,
        # a usage upload in text of more data rows than this is stored and read by an upload
        # job, not in its request (service.scenarios.upload_jobs; 60,000 rows had taken 106 s
        # in a request thread: issue 40)
        "UPLOAD_JOB_ROWS": DEFAULT_UPLOAD_JOB_ROWS,
        # alert thresholds (issue 43, service.plans.alerts): the deployment's webhook for every
        # scenario without its own (a secret), the first retry's delay [s], and, for tests
        # only, posts to loopback and private addresses (plain http to them too)
        "ALERT_WEBHOOK_URL": None,
        "ALERT_RETRY_DELAY": 30.0,
        "ALERT_WEBHOOK_ALLOW_LOCAL": False,
    }


def from_environment() -> dict:
    out: dict = {}
    for key in ("SECRET_KEY", "DATABASE_URL"):
        if os.environ.get(key):
            out[key] = os.environ[key]
    if os.environ.get("BUYRENT_MAX_UPLOAD_MB"):
        out["MAX_CONTENT_LENGTH"] = int(float(os.environ["BUYRENT_MAX_UPLOAD_MB"]) * 1024 * 1024)
    for key in ("LOGIN_MAX_FAILURES_PER_USER", "LOGIN_MAX_FAILURES_PER_IP",
                "LOGIN_WINDOW_SECONDS"):
        if os.environ.get("BUYRENT_" + key):
            out[key] = int(os.environ["BUYRENT_" + key])
    out["PLAN_OPTIONS"] = plan_options.from_environment().to_dict()
    if os.environ.get("BUYRENT_QUEUE_URL"):
        out["QUEUE_URL"] = os.environ["BUYRENT_QUEUE_URL"]
    if os.environ.get("BUYRENT_JOB_BUDGETS"):
        out["JOB_BUDGETS"] = job_budgets(os.environ["BUYRENT_JOB_BUDGETS"])
    if os.environ.get("BUYRENT_JOB_MEMORY_MB"):
        out["JOB_MEMORY_MB"] = os.environ["BUYRENT_JOB_MEMORY_MB"]   # checked at start
    if os.environ.get("BUYRENT_UPLOAD_JOB_ROWS"):
        out["UPLOAD_JOB_ROWS"] = int(os.environ["BUYRENT_UPLOAD_JOB_ROWS"])
    if os.environ.get("BUYRENT_ALERT_WEBHOOK_URL"):
        out["ALERT_WEBHOOK_URL"] = os.environ["BUYRENT_ALERT_WEBHOOK_URL"]
    if os.environ.get("BUYRENT_PROXY_HOPS"):
        out["PROXY_HOPS"] = int(os.environ["BUYRENT_PROXY_HOPS"])
    if os.environ.get("BUYRENT_DEMO", "").lower() in ("1", "true", "yes"):
        out["BUYRENT_DEMO"] = True
    return out


def job_budgets(text: str) -> dict[str, float]:
    """``plan=600,preview=60`` as {kind: seconds} (the kinds are checked when the app starts:
    service.plans.jobs.records.check_budgets)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, seconds = part.partition("=")
        out[kind.strip()] = float(seconds)
    return out


def make_private(instance: Path) -> None:
    """The instance folder 0700 and the files in it 0600 (database, queue, key): an outside
    red team read the SQLite database and queue of a demo server as another local user
    (issue 40). Files SQLite makes later (-wal, -shm) sit in the folder nobody else can enter.
    Only what this process's user owns is changed."""
    uid = os.getuid()
    if instance.stat().st_uid == uid:
        os.chmod(instance, 0o700)
    for path in instance.iterdir():
        st = path.lstat()
        if st.st_uid == uid and path.is_file() and not path.is_symlink():
            os.chmod(path, 0o600)


def ensure_secret_key(instance: Path) -> str:
    """The key kept in the instance folder, generated (0600) on first use."""
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / SECRET_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()
