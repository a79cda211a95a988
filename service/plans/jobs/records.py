"""Job rows: the truth of whether a plan is done (the queue only carries ids).

States: ``waiting`` (its owner already has JOBS_PER_OWNER jobs in flight) -> ``queued`` (on the
queue) -> ``running`` (claimed by one worker, heartbeat fresh) -> ``done`` | ``failed``;
``cancelled`` when a newer live preview of the same form supersedes it. A running job whose
heartbeat is older than STALE_SECONDS lost its worker (killed, machine gone): the reaper queues
it again, up to MAX_ATTEMPTS claims. Every write of a running job names its claim token, so a
worker that lost its claim writes nothing; a plan and its ``plans`` row are written in one
transaction, so nothing is half-written and nothing done twice.
"""
from __future__ import annotations

import json
import os
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any, Optional

from flask import current_app, has_app_context
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from sqlalchemy.orm import Session

from service.web.db import get_engine, get_session, write_session
from service.web.tables import PlanJob, PlanRecord
from werkzeug.exceptions import TooManyRequests

from service.i18n import N_, _
from service.plans.jobs import queue

JOBS_PER_OWNER = 3          # in flight (queued or running) per user; more wait their turn
# Open (waiting, queued or running) per user: past it a new job is refused, 429 with
# Retry-After. 60 posts were accepted in 2.6 s and 200 heavy plans in 12 s (issue 40).
OPEN_PER_OWNER = 12
RETRY_AFTER_SECONDS = 30
STALE_SECONDS = 20.0        # a running job's heartbeat older than this lost its worker
BEAT_SECONDS = 2.0          # how often a worker says it still runs a job
LOST_SECONDS = 120.0        # a queued job not claimed for this long is put on the queue again
# Claims of one job before it fails ("its worker stopped N times"). A job's computation runs in
# a child under a memory cap and a budget, so a worker that dies is almost never its job's
# fault (a server restarted, a machine gone): five kills of a server left innocent revisions
# "given up" at 3 (issue 40). The limit only stops a job that somehow takes every worker down.
MAX_ATTEMPTS = 10
# Wall-clock budgets [s]: a job that runs out stops and stores why (config JOB_BUDGETS, env
# BUYRENT_JOB_BUDGETS, overrides them per kind: budget_for).
BUDGETS = {"plan": 900.0, "preview": 120.0, "workbook": 300.0, "pdf": 180.0,
           "compare": 900.0, "upload": 300.0, "variance": 120.0}
IN_FLIGHT = ("queued", "running")
# asked for again, these run again: a superseded preview; a file that failed for want of a
# part of the server (Chromium) may succeed once it is installed. A plan that failed is the
# engine's answer for those inputs and is kept.
RETRIED = ("cancelled",)
RETRIED_FILES = ("cancelled", "failed")
OPEN = ("waiting", "queued", "running")
# Why a job failed (the ``cause`` of its stored error). The engine's refusal of its inputs and
# a defect are the answer for those inputs; these are not, and run again: "budget" when the
# budget has been raised since (or on request), "memory" when the cap has, "worker" and
# "crashed" on request ("Plan again", service.plans.views.plan_again).
TRANSIENT = ("budget", "memory", "worker", "crashed")


def budget_for(kind: str) -> float:
    """The configured wall-clock budget of a job kind [s]."""
    configured = current_app.config.get("JOB_BUDGETS") or {} if has_app_context() else {}
    return float(configured.get(kind, BUDGETS[kind]))


def check_budgets(budgets: dict) -> None:
    """Refuse at start a JOB_BUDGETS naming an unknown kind or an odd number of seconds: a
    typo stops the start, not a job hours later."""
    for kind, seconds in budgets.items():
        if kind not in BUDGETS:
            raise ValueError(f"JOB_BUDGETS: unknown job kind {kind!r} (one of "
                             f"{', '.join(sorted(BUDGETS))})")
        if not 1.0 <= float(seconds) <= 86400.0:
            raise ValueError(f"JOB_BUDGETS: the {kind} budget {seconds!r} s is outside "
                             "1..86400 s")


def now() -> float:
    return time.time()


def claim_token() -> str:
    """host:pid:nonce: unique per claim, and says which process holds a job."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(6)}"


def error_json(text: str, cause: Optional[str] = None, **args: Any) -> str:
    """A reason stored in English with its arguments; pages translate ``text`` (a catalog
    msgid) in the reader's language. ``cause``: why, when the failure is not the engine's answer
    for the inputs (:data:`TRANSIENT`)."""
    out: dict[str, Any] = {"text": text, "args": {k: str(v) for k, v in args.items()}}
    if cause is not None:
        out["cause"] = cause
    return json.dumps(out)


def cause_of(job: PlanJob) -> Optional[str]:
    """The cause of a failed job's error (None: the engine's answer, or a defect)."""
    if job.state != "failed" or not job.error:
        return None
    try:
        return json.loads(job.error).get("cause")
    except ValueError:
        return None


def retryable(job: PlanJob) -> bool:
    """Whether a failed job's cause is transient (:data:`TRANSIENT`): it may run again."""
    return cause_of(job) in TRANSIENT


def retry_due(job: PlanJob, again: bool = False) -> bool:
    """Whether a failed job runs again when asked for: its cause is transient and either the
    person asks again (``again``) or what stopped it was raised since (the budget, the memory
    cap)."""
    cause = cause_of(job)
    if cause not in TRANSIENT:
        return False
    if again:
        return True
    if cause == "budget":
        return budget_for(job.kind) > job.budget_seconds
    if cause == "memory" and has_app_context():
        stored = json.loads(job.error)["args"].get("cap_mb")
        return stored is not None and int(current_app.config["JOB_MEMORY_MB"]) > int(stored)
    return False


@dataclass
class Admission:
    job: PlanJob
    enqueue: bool          # put on the queue now (after the transaction)
    priority: int = 0


def request(kind: str, key: str, spec: dict, owner_key: str, engine: str, *,
            revision_id: Optional[int] = None, usage_file_id: Optional[int] = None,
            scope: Optional[str] = None, budget: Optional[float] = None,
            limit: int = JOBS_PER_OWNER, again: bool = False) -> PlanJob:
    """The job computing ``(kind, key)``: the existing one (whatever its state but cancelled,
    which is queued again, and failed for a transient cause: :func:`retry_due`, ``again`` a
    person's "Plan again"), else a new one, admitted under its owner's limit (``limit`` jobs
    in flight: a batch fanned out to several workers asks for more)."""
    for attempt in range(3):
        try:
            with write_session() as s:
                admission = stage(s, kind, key, spec, owner_key, engine,
                                  revision_id=revision_id, usage_file_id=usage_file_id,
                                  scope=scope, budget=budget, limit=limit, again=again)
            break
        except IntegrityError:
            if attempt == 2:    # three inserts lost to others, yet no row: not a race
                raise
            continue          # another request inserted the same job: read it
    if admission.enqueue:
        queue.enqueue(admission.job.id, admission.priority)
    return fresh(admission.job.id)


def stage(s, kind: str, key: str, spec: dict, owner_key: str, engine: str, *,
          revision_id: Optional[int] = None, usage_file_id: Optional[int] = None,
          scope: Optional[str] = None, budget: Optional[float] = None,
          limit: int = JOBS_PER_OWNER, deferred: bool = False,
          again: bool = False) -> Admission:
    """:func:`request`'s row in the caller's transaction ``s``. A job asked for while it
    waits is admitted again (its owner may have room now). ``deferred``: a new job is written
    waiting, not admitted: a revision's plan job, written with the revision so that a crash
    between the two cannot leave a revision without its plan; the ``request`` after the
    commit admits it, or the reaper's :func:`promote` does when the process died first."""
    job = s.scalar(select(PlanJob).where(PlanJob.kind == kind, PlanJob.key == key))
    if job is None and not deferred and not owner_key.startswith("batch:"):
        # a new job of a person (not a batch run by an administrator; a revision's plan job
        # is written deferred with the revision): bounded
        opened = s.scalar(select(func.count()).select_from(PlanJob).where(
            PlanJob.owner_key == owner_key, PlanJob.state.in_(OPEN))) or 0
        if opened >= OPEN_PER_OWNER:
            raise TooManyJobs(opened)
    retried = RETRIED_FILES if kind in ("pdf", "workbook", "variance") else RETRIED
    if job is not None and job.state not in retried and not retry_due(job, again):
        if job.state == "waiting" and not deferred:
            return admit(s, job, limit)
        return Admission(job, False)
    if job is None:
        job = PlanJob(kind=kind, key=key, engine=engine, spec=json.dumps(spec),
                      owner_key=owner_key, scope=scope, revision_id=revision_id,
                      usage_file_id=usage_file_id, created_at=now(),
                      budget_seconds=budget or budget_for(kind), attempts=0, state="waiting")
        s.add(job)
    else:   # a superseded preview, a failed file, a transient failure asked for again
        job.owner_key, job.scope, job.attempts = owner_key, scope, 0
        job.claim = job.error = job.stage = job.progress = job.finished_at = None
        job.budget_seconds = budget or budget_for(kind)
    if deferred:
        job.state = "waiting"
        admission = Admission(job, False)
    else:
        admission = admit(s, job, limit)
    s.flush()
    return admission


class TooManyJobs(TooManyRequests):
    """A person's new job past OPEN_PER_OWNER open ones: 429 with Retry-After, said as a page
    or a JSON error by the app's error handlers."""

    def __init__(self, opened: int):
        super().__init__(_("You have %(count)s computations waiting or running, the most one "
                           "person may have; wait for some to finish or cancel some, then try "
                           "again.", count=opened), retry_after=RETRY_AFTER_SECONDS)


def cancel(job_id: int) -> bool:
    """Cancel an open job (a person's own, asked from the page or the API); False when it had
    ended. A running job's worker sees it at its next heartbeat and stops the child."""
    with write_session() as s:
        result = s.execute(update(PlanJob).where(PlanJob.id == job_id,
                                                 PlanJob.state.in_(OPEN))
                           .values(state="cancelled", finished_at=now(), claim=None))
        return result.rowcount == 1


def fresh(job_id: int) -> PlanJob:
    """The job as the database has it now (a new read, detached)."""
    with Session(get_engine()) as s:
        return s.get(PlanJob, job_id)


def in_flight(s, owner_key: str) -> int:
    return s.scalar(select(func.count()).select_from(PlanJob).where(
        PlanJob.owner_key == owner_key, PlanJob.state.in_(IN_FLIGHT))) or 0


def admit(s, job: PlanJob, limit: int = JOBS_PER_OWNER) -> Admission:
    """Queue ``job`` unless its owner has JOBS_PER_OWNER jobs in flight (then it waits): one
    user's jobs cannot take every worker. Fewer jobs in flight is a higher priority."""
    busy = in_flight(s, job.owner_key)
    if busy >= limit:
        job.state = "waiting"
        return Admission(job, False)
    job.state, job.queued_at = "queued", now()
    return Admission(job, True, priority=max(JOBS_PER_OWNER - busy, 0))


def promote() -> int:
    """Queue waiting jobs whose owners are under their limit again; returns how many."""
    ready = []
    with write_session() as s:
        owners = s.scalars(select(PlanJob.owner_key).where(PlanJob.state == "waiting")
                           .distinct()).all()
        for owner in owners:
            room = JOBS_PER_OWNER - in_flight(s, owner)
            waiting = s.scalars(select(PlanJob).where(PlanJob.owner_key == owner,
                                                      PlanJob.state == "waiting")
                                .order_by(PlanJob.id).limit(max(room, 0))).all()
            for job in waiting:
                job.state, job.queued_at = "queued", now()
                ready.append((job.id, room))
    for job_id, room in ready:
        queue.enqueue(job_id, room)
    return len(ready)


def cancel_others(scope: str, keep_id: int) -> int:
    """Cancel the open jobs of ``scope`` but ``keep_id`` (a newer keystroke's preview)."""
    with write_session() as s:
        result = s.execute(update(PlanJob).where(
            PlanJob.scope == scope, PlanJob.id != keep_id, PlanJob.state.in_(OPEN))
            .values(state="cancelled", finished_at=now(), claim=None))
        return result.rowcount


def claim(job_id: int, token: str) -> Optional[PlanJob]:
    """Take a queued job for this worker; None when it is not queued (done, taken, cancelled):
    a job id the queue delivered twice runs once."""
    t = now()
    with write_session() as s:
        result = s.execute(update(PlanJob).where(PlanJob.id == job_id,
                                                 PlanJob.state == "queued")
                           .values(state="running", claim=token, heartbeat_at=t, started_at=t,
                                   attempts=PlanJob.attempts + 1, progress=None))
        if result.rowcount != 1:
            return None
        return s.get(PlanJob, job_id)


def fair_order(delivered: Optional[int] = None):
    """The queued jobs in the order a free worker should take them: the owner with the fewest
    running jobs first, then (``delivered``) the job the queue handed the worker, then the job
    queued longest ago.

    Priorities given at enqueue time go stale (a job queued while its owner had nothing
    running keeps its rank after two of the owner's jobs have started), so the order is read
    when a worker is free: of one user's 12 plans and another's one, the other's is taken as
    soon as the first user holds a worker more than they do (issue 40, item 4). Between owners
    equally served the queue's own order (priority, then first in) stands."""
    running = (select(PlanJob.owner_key, func.count().label("running"))
               .where(PlanJob.state == "running").group_by(PlanJob.owner_key).subquery())
    return (select(PlanJob.id)
            .outerjoin(running, running.c.owner_key == PlanJob.owner_key)
            .where(PlanJob.state == "queued")
            .order_by(func.coalesce(running.c.running, 0), PlanJob.id != (delivered or 0),
                      PlanJob.queued_at, PlanJob.id))


def claim_next(delivered: int, token: str) -> Optional[PlanJob]:
    """Take the fairest queued job (:func:`fair_order`) for a worker the queue handed
    ``delivered``; None when nothing is queued.

    The queue's message is a turn, not a name: each queued job has one message, so taking
    another job for it leaves the delivered one queued with that job's message still to come,
    and every queued job runs. A job already taken, cancelled or done hands its turn on."""
    for _ in range(5):      # another worker took the fairest between the read and the claim
        with write_session() as s:
            first = s.scalars(fair_order(delivered).limit(1)).first()
        if first is None:
            return None
        job = claim(first, token)
        if job is not None:
            return job
    return claim(delivered, token)


def _fenced(s, job_id: int, token: str, **values: Any) -> bool:
    result = s.execute(update(PlanJob).where(PlanJob.id == job_id, PlanJob.claim == token,
                                             PlanJob.state == "running").values(**values))
    return result.rowcount == 1


def beat(job_id: int, token: str, progress: Optional[dict] = None) -> bool:
    """Refresh the heartbeat; False when the job is no longer this worker's (cancelled, or
    reaped and claimed by another): the worker then stops it."""
    values: dict[str, Any] = {"heartbeat_at": now()}
    if progress is not None:
        values["progress"] = json.dumps(progress)
    with write_session() as s:
        return _fenced(s, job_id, token, **values)


def write_stage(job_id: int, token: str, stage: str, document: str, charts: str) -> bool:
    """A stage's partial plan (static strategies first), shown while the rest computes."""
    with write_session() as s:
        return _fenced(s, job_id, token, stage=stage, document=document, charts=charts,
                       heartbeat_at=now())


def finish(job_id: int, token: str, engine: str, *, document: Optional[str] = None,
           charts: Optional[str] = None, ledger: Optional[bytes] = None,
           result: Optional[bytes] = None) -> bool:
    """Store the result and mark the job done, with its revision's ``plans`` row when it is
    a revision's plan, in one transaction; False (nothing written) when the claim was lost."""
    with write_session() as s:
        if not _fenced(s, job_id, token, state="done", stage="complete", document=document,
                       charts=charts, ledger=ledger, result=result, finished_at=now(),
                       error=None):
            return False
        job = s.get(PlanJob, job_id)
        if job.kind == "plan" and job.revision_id is not None and \
                s.get(PlanRecord, job.revision_id) is None:
            s.add(PlanRecord(revision_id=job.revision_id, document=document, charts=charts,
                             ledger=ledger, engine=engine))
    return True


def fail(job_id: int, token: str, error: str) -> bool:
    with write_session() as s:
        return _fenced(s, job_id, token, state="failed", error=error, finished_at=now())


def reap() -> int:
    """Queue again the running jobs whose worker stopped (stale heartbeat) and the queued ones
    the queue lost; fail a job whose worker stopped MAX_ATTEMPTS times. Returns how many jobs
    were put on the queue."""
    t = now()
    again = []
    with write_session() as s:
        stale = s.scalars(select(PlanJob).where(PlanJob.state == "running",
                                                PlanJob.heartbeat_at < t - STALE_SECONDS)).all()
        for job in stale:
            if job.attempts >= MAX_ATTEMPTS:
                job.state, job.finished_at, job.claim = "failed", t, None
                job.error = error_json(N_("The worker computing this stopped %(count)s times; "
                                       "the job was given up."), cause="worker",
                                       count=job.attempts)
            else:
                job.state, job.claim, job.queued_at = "queued", None, t
                again.append(job.id)
        lost = s.scalars(select(PlanJob).where(PlanJob.state == "queued",
                                               PlanJob.queued_at < t - LOST_SECONDS)).all()
        for job in lost:
            job.queued_at = t
            again.append(job.id)
    for job_id in again:
        queue.enqueue(job_id, JOBS_PER_OWNER)
    promote()
    return len(again)


def job_of(kind: str, key: str) -> Optional[PlanJob]:
    """The job row of ``(kind, key)`` as this request sees it, or None."""
    return get_session().scalar(select(PlanJob).where(PlanJob.kind == kind,
                                                      PlanJob.key == key))
