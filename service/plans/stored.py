"""Plans as pages read them: stored by plan jobs, never computed in a request.

A revision's plan is its ``plans`` row once complete; until then the page shows its plan job
(service.plans.jobs): its state, its progress and the stages stored so far (the static strategies
first, then the staged schedule, then the Monte Carlo). One plan is one job however many people
open it: the job's key is the revision's content hash, its planning month and the engine.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Optional

from flask import current_app, g
from sqlalchemy.exc import IntegrityError

from models.plan_options import PlanOptions
from models.scenario import Scenario
from service import clock
from service.i18n import _, current_locale, normalize
from service.i18n.ingest_refusals import refusal
from service.plans.jobs import records
from service.plans.jobs.versions import ENGINE_VERSION, EXPORT_VERSION, LAYOUT
from service.web.db import get_session, write_session
from service.web.tables import PlanJob, PlanRecord, Revision, UsageFile, revision_hash


@dataclass
class RevisionPlan:
    """What a page can show of a revision's plan: its stored document and charts (or a job's
    partial ones), whether it is complete, its job and why it failed."""
    document: Optional[dict]
    charts: Optional[dict]
    complete: bool
    job: Optional[PlanJob] = None
    error: Optional[str] = None      # why it could not be planned, in the reader's language


def owner_key() -> str:
    """Whose in-flight limit a job counts in: the signed-in user, or the API token's."""
    user = g.get("api_user") or g.user
    return f"user:{user.id}"


def reason(job: PlanJob) -> Optional[str]:
    """A failed job's stored reason in the reader's language (service.plans.jobs.records.error_json)."""
    if not job.error:
        return None
    data = json.loads(job.error)
    # the engine's refusal is stored in English; its known sentences are said in the reader's
    args = {k: refusal(v) if k == "reason" else v for k, v in data.get("args", {}).items()}
    return _(data["text"], **args)


def plan_options() -> PlanOptions:
    """The options this service plans with (its configuration: service.plan_options)."""
    return PlanOptions.from_dict(current_app.config["PLAN_OPTIONS"])


def plan_key(content_hash: str, month: str) -> str:
    """A stored plan's key: its content, planning month, engine and options (two services
    with other options never share a plan)."""
    return f"{content_hash}:{month}:{ENGINE_VERSION}{plan_options().key()}"


def plan_spec(assumptions: str, usage: UsageFile, month: str) -> dict[str, Any]:
    """What a plan job's child needs besides the usage's bytes; the worker plans with these
    options, not with its own environment's."""
    return {"scenario": assumptions, "filename": usage.filename, "month": month,
            "options": plan_options().to_dict()}


def request_plan(assumptions: str, usage: UsageFile, month: str,
                 revision_id: Optional[int] = None, owner: Optional[str] = None,
                 again: bool = False) -> PlanJob:
    """The plan job of ``assumptions`` on ``usage`` as of ``month``, queued when new
    (``owner``: whose job it is outside a request, e.g. the demo's seed)."""
    return records.request("plan", plan_key(revision_hash(assumptions, usage.sha256), month),
                           plan_spec(assumptions, usage, month), owner or owner_key(),
                           ENGINE_VERSION, revision_id=revision_id, usage_file_id=usage.id,
                           again=again)


def ensure_plan(revision: Revision, owner: Optional[str] = None,
                again: bool = False) -> Optional[PlanJob]:
    """The job of a revision's plan (queued if none), or None without a usage file;
    ``again``: a person's "Plan again" of a plan that failed for a transient cause."""
    if revision.usage_file is None:
        return None
    return request_plan(revision.assumptions, revision.usage_file,
                        clock.planning_month(revision.created_at), revision.id, owner, again)


def stage_plan(s, revision: Revision, usage: UsageFile, owner: str) -> None:
    """Write a new revision's plan job in the revision's own transaction ``s`` (waiting: the
    :func:`ensure_plan` after the commit queues it, or the reaper when the process died
    between the two). A concurrent insert of the same job only rolls back its savepoint."""
    spec = plan_spec(revision.assumptions, usage, clock.planning_month(revision.created_at))
    try:
        with s.begin_nested():
            records.stage(s, "plan", plan_key(revision.content_hash, spec["month"]), spec, owner,
                          ENGINE_VERSION, revision_id=revision.id, usage_file_id=usage.id,
                          deferred=True)
    except IntegrityError:
        pass          # the same content's job, written by a concurrent transaction


def record_if_done(revision: Revision, job: PlanJob) -> Optional[PlanRecord]:
    """The ``plans`` row of a revision whose plan a job finished for the same content (an
    upload's plan, computed before the revision existed)."""
    if job.state != "done" or job.kind != "plan":
        return None
    try:
        with write_session() as s:
            if s.get(PlanRecord, revision.id) is None:
                s.add(PlanRecord(revision_id=revision.id, document=job.document,
                                 charts=job.charts, ledger=job.ledger, engine=job.engine))
    except IntegrityError:
        pass          # written by a concurrent request: the same job's values
    return get_session().get(PlanRecord, revision.id)


def read_plan(revision: Revision, start: bool = True) -> RevisionPlan:
    """The stored plan of ``revision``, or what its job has so far (queued when ``start`` and
    none exists)."""
    session = get_session()
    record = session.get(PlanRecord, revision.id)
    if record is None and revision.usage_file_id is not None:
        job = ensure_plan(revision) if start else records.job_of(
            "plan", plan_key(revision.content_hash, clock.planning_month(revision.created_at)))
        if job is None:
            return RevisionPlan(None, None, False)
        record = record_if_done(revision, job)
        if record is None:
            return RevisionPlan(json.loads(job.document) if job.document else None,
                            json.loads(job.charts) if job.charts else None, False, job,
                            reason(job) if job.state == "failed" else None)
    if record is None:
        return RevisionPlan(None, None, False)
    return RevisionPlan(json.loads(record.document), json.loads(record.charts), True)


def stored_record(revision: Revision) -> Optional[PlanRecord]:
    return get_session().get(PlanRecord, revision.id)


def workbook_job(revision: Revision, lang: Optional[str] = None) -> PlanJob:
    """The job writing a revision's workbook in ``lang`` (its plan must be stored)."""
    lang = normalize(lang or current_locale())
    month = clock.planning_month(revision.created_at)
    spec = {"label": [revision.scenario.name, revision.number, revision.content_hash],
            "lang": lang, **plan_spec(revision.assumptions, revision.usage_file, month)}
    # the revision in the key: the workbook's footer names it, so two revisions of the same
    # content (another analyst's, say) share the plan's computation, never its label (issue 40:
    # one analyst's revision 4 was labelled with another's "revision 2")
    return records.request("workbook", f"{revision.content_hash}:{month}:{lang}:"
                           f"{EXPORT_VERSION}:{LAYOUT}:{ENGINE_VERSION}:r{revision.id}", spec,
                           owner_key(),
                           ENGINE_VERSION, revision_id=revision.id,
                           usage_file_id=revision.usage_file_id)


def pdf_job(revision: Revision, lang: Optional[str] = None) -> PlanJob:
    """The job printing a revision's plan page to PDF in ``lang`` (its plan must be stored)."""
    lang = normalize(lang or current_locale())
    month = clock.planning_month(revision.created_at)
    return records.request("pdf", f"{revision.content_hash}:{month}:{lang}:{EXPORT_VERSION}:"
                           f"{ENGINE_VERSION}:r{revision.id}", {"lang": lang}, owner_key(),
                           ENGINE_VERSION, revision_id=revision.id)


def compare_job(rev_a: Revision, rev_b: Revision) -> PlanJob:
    """The job of the waterfall from A to B, planned as of B's month (service.plans.attribution)."""
    month = clock.planning_month(rev_b.created_at)
    spec = {"a": rev_a.assumptions_dict, "b": rev_b.assumptions_dict, "month": month,
            "usage_a": rev_a.usage_file_id, "usage_b": rev_b.usage_file_id}
    return records.request("compare", f"{rev_a.content_hash}:{rev_b.content_hash}:{month}:"
                           f"{ENGINE_VERSION}", spec, owner_key(), ENGINE_VERSION)


def preview_key(model: Scenario, usage: UsageFile, month: str, scope: str) -> str:
    """A preview job's key: the form's values and its scope (one user's form of one scenario).
    The scope is part of it because a newer keystroke cancels the scope's other previews: a
    job shared by two forms would be cancelled by the other user's typing."""
    text = json.dumps(model.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(f"{scope}|{text}|{usage.sha256}|{month}|{ENGINE_VERSION}".encode()
                          ).hexdigest()


def request_preview(model: Scenario, usage: UsageFile, scenario_id: int) -> PlanJob:
    """The preview job re-optimizing the staged schedule of unsaved form values; a newer one of
    the same user and scenario cancels the older (a keystroke supersedes the last)."""
    month = clock.current_month()
    scope = f"preview:{owner_key()}:s{scenario_id}"
    job = records.request("preview", preview_key(model, usage, month, scope),
                          plan_spec(model.model_dump_json(), usage, month), owner_key(),
                          ENGINE_VERSION, usage_file_id=usage.id, scope=scope)
    records.cancel_others(scope, job.id)
    return job


def job_status(job: PlanJob) -> dict[str, Any]:
    """A job as JSON for the page's poller and the API."""
    progress = json.loads(job.progress) if job.progress else {}
    return {"id": job.id, "kind": job.kind, "state": job.state, "stage": job.stage,
            "attempts": job.attempts, "seconds": progress.get("seconds"),
            "queued_at": job.queued_at, "started_at": job.started_at,
            "finished_at": job.finished_at,
            "error": reason(job) if job.state == "failed" else None,
            "cause": records.cause_of(job), "retryable": records.retryable(job)}
