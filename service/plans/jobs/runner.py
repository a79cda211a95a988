"""The job task: claim a job, compute it in a child process under its budget, store the result.

The child (service.plans.jobs.compute, forked from a forkserver that has the engine imported) has no
database and writes nothing to stdout; this thread keeps the job's heartbeat fresh every
BEAT_SECONDS, writes each stage the child sends, and stops the child when the job runs out of
its wall-clock budget, is cancelled (a newer preview) or stops being this worker's (reaped as
stale). A PDF is printed here instead: its page is rendered by the app's templates, and
Chromium is a process of its own.
"""
from __future__ import annotations

import ctypes
import json
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from typing import Any, Optional

from flask import Flask, current_app, has_app_context
from sqlalchemy.orm import Session

from service.web.db import get_engine
from service.web.tables import PlanJob, PlanRecord, Revision, UsageFile
from service.i18n import N_
from service.plans.jobs import compute, queue, records
from service.plans.jobs.memory import DEFAULT_MB, cap_memory, over_cap
from service.plans.pdf import PdfUnavailable, plan_pdf_bytes
from service.plans.jobs.versions import ENGINE_VERSION

log = logging.getLogger("buyrent.jobs")
_app: Optional[Flask] = None
_context = None
_context_lock = threading.Lock()
PR_SET_PDEATHSIG = 1


def bind(app: Flask) -> None:
    """The app whose database a worker process's jobs use (``buyrent worker``)."""
    global _app
    _app = app


def process_context():
    """A forkserver that imported the engine once: each job's child starts in milliseconds,
    and never inherits a web or worker thread's locks (as fork from a threaded process
    would). The server itself starts with the first child, or with :func:`start_forkserver`."""
    global _context
    with _context_lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["service.plans.jobs.compute"])
            _context = ctx
    return _context


def start_forkserver() -> None:
    """Start the forkserver now and wait until it serves: a worker does this before it takes
    a job. The server imports the engine before it forks its first child (seconds, 20-30 s on
    a busy machine); a first job waiting for that kept its claim without a heartbeat, and a
    reaper took the live job for a dead one (tests/system/test_worker_kill.py). A child that
    does nothing is started and waited for: it is forked once the server is ready."""
    ctx = process_context()
    warm = ctx.Process(target=time.sleep, args=(0,), daemon=True)
    warm.start()
    warm.join()


def start_child(child, job_id: int, token: str) -> None:
    """``child.start()``, the job's heartbeat kept fresh meanwhile: a forkserver started again
    (killed, say) imports the engine before it forks."""
    app = current_app._get_current_object()
    started = threading.Event()

    def beat() -> None:
        with app.app_context():
            while not started.wait(records.BEAT_SECONDS):
                records.beat(job_id, token)
    beating = threading.Thread(target=beat, daemon=True, name=f"job-{job_id}-start")
    beating.start()
    try:
        child.start()
    finally:
        started.set()
        beating.join()


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (a worker killed with -9 leaves no
    orphan computing); elsewhere a no-op."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def die_with(pid: int) -> None:
    """End this process (SIGKILL) as soon as process ``pid`` ends.

    A job's child is the forkserver's, so PDEATHSIG (:func:`die_with_parent`) ends it only once
    the forkserver has noticed its worker gone and torn down: a red team saw a child compute on
    for 22-24 s after its worker was killed (issue 40). The child watches the worker itself: a
    thread waits on the worker's pidfd (Linux 5.3+; elsewhere it polls every half second).
    """
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        os.kill(os.getpid(), signal.SIGKILL)
        return
    except (AttributeError, OSError):
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                time.sleep(0.5)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
        os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, daemon=True, name="die-with-worker").start()


# A job's child yields the CPU to the web server's request threads on the same machine: a
# page view is a few milliseconds a user waits for, a plan minutes nobody watches tick.
CHILD_NICENESS = 10


# C++'s std::bad_alloc uncaught (a solver past the memory cap) aborts the child: SIGABRT
ABORTED = -signal.SIGABRT


def child_main(kind: str, spec: dict, inputs: dict, conn, memory_mb: int,
               worker: int | None = None) -> None:
    die_with_parent()
    if worker is not None:
        die_with(worker)
    os.nice(CHILD_NICENESS)
    cap_memory(memory_mb)   # service.plans.jobs.memory
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)     # HiGHS and any C library print to fd 1: never a page's or CLI's
    try:
        compute.run(kind, spec, inputs, conn.send)
    except MemoryError:
        conn.send(("error", over_cap(memory_mb)))
    conn.close()


def run_job(job_id: int) -> None:
    """The Huey task (service.plans.jobs.queue): runs with the app of the enqueuing request in
    immediate mode, else the worker's bound app."""
    app = current_app._get_current_object() if has_app_context() else _app
    with app.app_context():
        token = records.claim_token()
        # a worker takes the fairest queued job (records.fair_order); immediate mode runs the
        # job its request just asked for
        job = (records.claim(job_id, token) if queue.app_huey(app).immediate else
               records.claim_next(job_id, token))
        if job is None:
            return              # nothing queued: done, cancelled, or taken by another worker
        job_id = job.id
        try:
            if job.kind == "pdf":
                print_pdf(app, job, token)
            else:
                supervise(job, token)
        except Exception as exc:  # a defect: stored, so the page says it, and logged
            log.exception("job %s failed", job_id)
            records.fail(job_id, token, records.error_json(
                N_("The computation failed: %(reason)s"),
                reason=f"{type(exc).__name__}: {exc}"))
        finally:
            records.promote()


def load_inputs(job: PlanJob) -> dict[str, Any]:
    """What the child needs from the database: usage bytes, a stored document and ledger."""
    spec = json.loads(job.spec)
    out: dict[str, Any] = {}
    with Session(get_engine()) as s:
        if job.usage_file_id is not None:
            out["usage"] = s.get(UsageFile, job.usage_file_id).data
        # a revision's stored plan (the Plan vs actual workbook's too), or an API plan job's
        if job.kind in ("workbook", "variance"):
            record = s.get(PlanJob, spec["plan_job"]) if "plan_job" in spec else \
                s.get(PlanRecord, job.revision_id)
            out["document"], out["ledger"] = record.document, record.ledger
        if job.kind == "compare":
            for side in ("a", "b"):
                usage = s.get(UsageFile, spec[f"usage_{side}"])
                out[f"usage_{side}"] = (usage.data, usage.filename, usage.sha256)
    return out


def supervise(job: PlanJob, token: str) -> None:
    spec = json.loads(job.spec)
    inputs = load_inputs(job)
    ctx = process_context()
    receive, send = ctx.Pipe(duplex=False)
    memory_mb = int(current_app.config.get("JOB_MEMORY_MB") or 0) or DEFAULT_MB
    child = ctx.Process(target=child_main, args=(job.kind, spec, inputs, send, memory_mb,
                                                 os.getpid()), daemon=True)
    start_child(child, job.id, token)
    send.close()
    started = time.monotonic()
    next_beat = started      # the first beat at once: the claim's heartbeat, the child's pid
    try:
        while True:
            if receive.poll(0.25):
                try:
                    message = receive.recv()
                except EOFError:
                    message = None
                if message is None:
                    child.join(5)
                    records.fail(job.id, token, over_cap(memory_mb)
                                 if child.exitcode == ABORTED else records.error_json(
                                     N_("The computation stopped unexpectedly (exit code "
                                        "%(code)s)."), cause="crashed", code=child.exitcode))
                    return
                if not handle(job, token, message):
                    return
                continue
            now = time.monotonic()
            if now - started > job.budget_seconds:
                records.fail(job.id, token, records.error_json(
                    N_("This took longer than its budget of %(seconds)s s and was stopped."),
                    cause="budget", seconds=f"{job.budget_seconds:g}"))
                return
            if now >= next_beat:
                next_beat = now + records.BEAT_SECONDS
                if not records.beat(job.id, token, {"pid": child.pid,
                                                    "seconds": round(now - started, 1)}):
                    return       # cancelled, or no longer ours: stop computing
    finally:
        if child.is_alive():
            child.kill()
        child.join(5)
        receive.close()


def handle(job: PlanJob, token: str, message: tuple) -> bool:
    """Store one message of the child; False when the job is over (or no longer ours)."""
    kind = message[0]
    if kind == "stage":
        return records.write_stage(job.id, token, message[1], message[2], message[3])
    if kind == "error":
        records.fail(job.id, token, message[1])
        return False
    payload = message[1]
    records.finish(job.id, token, ENGINE_VERSION, **payload)
    return False


def print_pdf(app: Flask, job: PlanJob, token: str) -> None:
    """The plan page's print view as PDF, in the reader's language (service.plans.pdf)."""
    spec = json.loads(job.spec)
    outcome: dict[str, Any] = {}

    def render() -> None:
        with app.test_request_context(headers={"Accept-Language": spec["lang"]}):
            with Session(get_engine()) as s:
                revision = s.get(Revision, job.revision_id)
                record = s.get(PlanRecord, job.revision_id)
                try:
                    outcome["data"] = plan_pdf_bytes(revision, json.loads(record.document),
                                                     json.loads(record.charts))
                except PdfUnavailable as exc:
                    outcome["error"] = records.error_json("%(reason)s", reason=exc)

    thread = threading.Thread(target=render, daemon=True)
    started = time.monotonic()
    thread.start()
    while thread.is_alive():
        thread.join(records.BEAT_SECONDS)
        if thread.is_alive() and (not records.beat(job.id, token)
                                  or time.monotonic() - started > job.budget_seconds):
            return   # Chromium's own timeout (service.plans.pdf) ends the thread
    if "data" in outcome:
        records.finish(job.id, token, ENGINE_VERSION, result=outcome["data"])
    else:
        records.fail(job.id, token, outcome.get("error") or records.error_json(
            N_("The PDF could not be printed.")))
