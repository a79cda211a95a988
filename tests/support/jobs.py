"""Plan job tests' helpers: a log of every job's changes kept by the database itself, and the
processes under a process (a job's child is the forkserver's child: a grandchild of its
worker)."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Engine

from service.paths import ROOT

# every change of a job's state or stage, with the claim it was made under and what its
# document held: what happened, in order (SQLite only; the tests on PostgreSQL read rows)
JOB_LOG = ("""
CREATE TABLE job_log (n INTEGER PRIMARY KEY, job_id INTEGER, state TEXT, stage TEXT,
                      claim TEXT, has_staged INTEGER, has_uncertainty INTEGER)""", """
CREATE TRIGGER job_log_update AFTER UPDATE OF state, stage ON plan_jobs
WHEN OLD.state IS NOT NEW.state OR OLD.stage IS NOT NEW.stage
BEGIN
  INSERT INTO job_log (job_id, state, stage, claim, has_staged, has_uncertainty) VALUES
    (NEW.id, NEW.state, NEW.stage, NEW.claim,
     json_extract(NEW.document, '$.strategies.staged') IS NOT NULL,
     json_extract(NEW.document, '$.uncertainty') IS NOT NULL);
END""")


def install_job_log(engine: Engine) -> None:
    with engine.begin() as conn:
        for statement in JOB_LOG:
            conn.execute(text(statement))


def job_log(engine: Engine, job_id: int) -> list[tuple]:
    """The job's changes from its first claim on: (state, stage, claim, document has the
    staged strategy, document has the uncertainty section)."""
    with engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(text(
            "SELECT state, stage, claim, has_staged, has_uncertainty FROM job_log "
            "WHERE job_id = :j ORDER BY n"), {"j": job_id})]
    first = next(i for i, row in enumerate(rows) if row[0] == "running")
    return rows[first:]


def _state(pid: int) -> tuple[str, int]:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """Running (a zombie has stopped computing: only its exit status waits to be read)."""
    try:
        return _state(pid)[0] != "Z"
    except OSError:
        return False


def descendants(root: int) -> dict[int, int]:
    """pid -> depth of every living process under ``root`` (1: its children)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                state, parent = _state(int(entry))
            except (OSError, IndexError, ValueError):
                continue
            if state != "Z":
                parents[int(entry)] = parent
    out: dict[int, int] = {}
    frontier = {root: 0}
    while frontier:
        frontier = {pid: frontier[parent] + 1 for pid, parent in parents.items()
                    if parent in frontier and pid not in out}
        out.update(frontier)
    return out


def wait_until(predicate, seconds: float, what: str, step: float = 0.05):
    """``predicate()``'s first true value within ``seconds``; else fail saying ``what``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not within {seconds} s: {what}")


def start_worker(instance: Path, name: str, **env: str) -> subprocess.Popen:
    """``buyrent worker --jobs 1`` on the instance folder ``instance`` (its database and queue
    unless ``env`` names others: DATABASE_URL, BUYRENT_QUEUE_URL); output in ``name``.log."""
    environ = {**os.environ, "BUYRENT_INSTANCE": str(instance), "SECRET_KEY": "job-tests",
               "PYTHONPATH": str(ROOT)}
    environ.pop("DATABASE_URL", None)
    environ.pop("BUYRENT_QUEUE_URL", None)
    instance.mkdir(parents=True, exist_ok=True)
    with open(instance / f"{name}.log", "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "service.cli.main", "worker", "--jobs",
                                 "1"], cwd=ROOT, env={**environ, **env}, stdout=log,
                                stderr=log)


def stop_process(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s; waited for either way (a worker, a redis-server)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    proc.wait()


def differences(a, b, path: str = "", most: int = 12, rel: float = 0.0) -> list[str]:
    """Where two JSON values differ (``path: a != b``), the first ``most`` places; floats
    within ``rel`` of each other (relative) are equal."""
    out: list[str] = []
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{path}/{key}: only in {'b' if key not in a else 'a'}")
            else:
                out += differences(a[key], b[key], f"{path}/{key}", most - len(out), rel)
            if len(out) >= most:
                break
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]", most - len(out), rel)
            if len(out) >= most:
                break
    elif isinstance(a, float) and isinstance(b, float):
        if not math.isclose(a, b, rel_tol=rel, abs_tol=0.0):
            out.append(f"{path}: {a!r} != {b!r}")
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: {a!r:.80} != {b!r:.80}")
    return out[:most]
