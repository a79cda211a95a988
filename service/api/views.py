"""JSON API (design 9.4): ``POST /api/v1/plans`` with ``Authorization: Bearer <token>``.

Bodies are validated with the models of service.api.openapi, which also generate the OpenAPI
document at ``/api/v1/openapi.json`` (the one route here that needs no token).
"""
from __future__ import annotations

import csv
import io
import json
import time
from typing import Any, Optional

from flask import Response, current_app, g, request, url_for
from pydantic import ValidationError
from sqlalchemy import select

from models.refusals import Refusal
from models.scenario import Scenario, scenario_from_json
from service.api import bp, sync_waits
from service.web import idempotency
from service.web.users import user_for_token
from service.clip import clip
from service.web.tables import AuditEvent, PlanJob, User, audit, canonical_json, sha256
from service.web.db import get_session, write_session
from service.web.errors import ApiError
from service.xlsx.export import safe_download_name
from service.i18n import N_, _, current_locale
from service.i18n.ingest_refusals import refusal
from service.ingest import make_bundle, read_usage, rows_before_reading
from service.api.openapi import (JOB_CANCEL_RESPONSES, JOB_PLAN_RESPONSES, JOB_RESPONSES,
                                 JOB_XLSX_RESPONSES,
                                 MAX_JSON_ROWS, PLAN_RESPONSES,
                                 SPEC, XLSX, PlanForm, PlanRequest, UsageRow, openapi_document)
from service.plans.revisions import preflight, store_usage
from service.plans.stored import job_status, owner_key, reason, request_plan
from service.plans.jobs import records
from service.plans.jobs.versions import ENGINE_VERSION, EXPORT_VERSION, LAYOUT
from service import clock
from service.api.bodies import field_errors, json_body, strict_body

PUBLIC = {"api.openapi"}   # the contract itself is no secret


@bp.before_request
def bearer_auth() -> None:
    if request.endpoint in PUBLIC:
        return
    header = request.headers.get("Authorization", "")
    scheme, _sep, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, _("Send 'Authorization: Bearer <token>' (create a token on your "
                              "profile page or with 'buyrent users token NAME')."))
    user = user_for_token(get_session(), token.strip())
    if user is None:
        raise ApiError(401, _("Unknown or revoked API token."))
    g.api_user = user


@bp.get("/openapi.json")
def openapi():
    return current_app.json.response(openapi_document())


def parse_scenario(text: Optional[str]) -> Scenario:
    """A scenario sent as JSON text (multipart field); empty means every default."""
    try:
        value = current_app.json.loads(text or "{}")
    except ValueError as exc:
        raise ApiError(400, _("scenario: invalid JSON (%(reason)s)",
                              reason=clip(exc, 200))) from None
    try:
        return scenario_from_json(text or "{}") if value is not None else Scenario()
    except ValidationError as exc:
        raise ApiError(422, _("The scenario is invalid."),
                       field_errors(exc, root="scenario")) from None


def rows_to_csv(rows: list[UsageRow]) -> bytes:
    """Usage rows as the CSV the ingest reads (columns by the names the client used); a
    null is no value, as the document's optional fields have it: ``"gpus": null`` beside
    ``gpu_hours`` is no second measure (it answered 422 "give either gpu_hours or gpus")."""
    dumped = [row.model_dump(exclude_unset=True, exclude_none=True) for row in rows]
    columns = list(dict.fromkeys(key for row in dumped for key in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(dumped)
    return out.getvalue().encode()


def read_plan_request() -> tuple[Scenario, bytes, str]:
    """(scenario, usage bytes, file name) of a multipart or JSON plan request."""
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("usage")
        if upload is None or not upload.filename:
            raise ApiError(400, _("multipart requests need a 'usage' file part."))
        form = PlanForm.model_validate({"usage": upload, "scenario": request.form.get("scenario"),
                                        "busy": request.files.get("busy")})
        data, filename = upload.read(), upload.filename
        busy = form.busy      # optional GPU busy time beside the usage file
        if busy is not None and busy.filename:
            filename, data = make_bundle(filename, data, busy.filename, busy.read())
        return parse_scenario(form.scenario), data, filename
    if not request.is_json:
        raise ApiError(415, _("Send multipart/form-data (usage file + scenario field) or "
                              "application/json."))
    body = json_body()
    usage = body.get("usage")
    if isinstance(usage, list) and len(usage) > MAX_JSON_ROWS:
        count, limit = format(len(usage), ","), format(MAX_JSON_ROWS, ",")
        raise ApiError(413, _("usage has %(rows)s rows; the limit is %(limit)s.",
                              rows=count, limit=limit))
    plan = strict_body(PlanRequest, N_("request body"))
    return plan.scenario or Scenario(), rows_to_csv(plan.usage), "usage.csv"


@bp.post("/plans")
@SPEC.validate(json=PlanRequest, form=PlanForm, resp=PLAN_RESPONSES, skip_validation=True,
               tags=["plans"], operation_id="createPlan")
@idempotency.idempotent  # Idempotency-Key header: a retry gets the first answer
def create_plan():
    """Plan usage under a scenario

    JSON (scenario + usage rows) or multipart (a usage file + the scenario as JSON text).
    The plan is a job computed by a worker: with ``Prefer: respond-async`` the answer is 202
    at once, with the job (``Location``: GET it for its state and result links); without it the
    request waits up to SYNC_SECONDS (30 s) for the plan and answers 200 with it (or the
    workbook, with ``Accept`` of the xlsx type), else 202 with the job. A user waits for one
    plan at a time and the server for two (SYNC_WAITS_PER_USER, SYNC_WAITS): past that the
    answer is 202 at once, as with ``respond-async``. The same scenario and
    usage in the same month are one job. Send an Idempotency-Key header to have a retry
    answered without planning twice.
    """
    scenario, data, filename = read_plan_request()
    try:
        # a file past UPLOAD_JOB_ROWS is read by the plan job only (issue 40, item 7: a
        # request thread never parses a large file); the job refuses it, by row and column,
        # as its failure's reason, and checks the problem's size before its first stage
        if rows_before_reading(data, filename) <= current_app.config["UPLOAD_JOB_ROWS"]:
            preflight(scenario, profile=read_usage(data, filename).profile)
    except Refusal as exc:
        problems = getattr(exc, "problems", [])
        raise ApiError(422, refusal(str(exc), problems), problems) from None
    with write_session() as s:
        usage = store_usage(s, s.get(User, g.api_user.id), data, filename)
    job = request_plan(canonical_json(scenario.model_dump(mode="json")), usage,
                       clock.current_month())
    wants_xlsx = request.accept_mimetypes.best_match(["application/json", XLSX]) == XLSX and \
        request.accept_mimetypes[XLSX] > request.accept_mimetypes["application/json"]
    if "respond-async" not in request.headers.get("Prefer", "").lower():
        with sync_waits.slot(g.api_user.id, current_app.config["SYNC_WAITS_PER_USER"],
                             current_app.config["SYNC_WAITS"]) as may_wait:
            # past the bound the answer is 202 at once: other users' pages keep their threads
            if may_wait:
                job = wait_for(job, current_app.config["SYNC_SECONDS"])
                if job.state == "done" and wants_xlsx:
                    job = wait_for(api_workbook_job(job), current_app.config["SYNC_SECONDS"])
    if job.state == "failed":
        raise ApiError(422, reason(job) or "")
    if job.state != "done":
        body = current_app.json.dumps(job_json(job))
        with idempotency.transaction() as s:
            audit(s, g.api_user, "api.plan", details=asked(filename, data, job))
            idempotency.remember(s, body=body, status=202)
        return Response(body, status=202, mimetype="application/json", headers={
            "Location": url_for("api.job", job_id=job.id), "Retry-After": "2",
            "Preference-Applied": "respond-async"})
    with idempotency.transaction() as s:
        audit(s, g.api_user, "api.plan", details=asked(filename, data, job))
        if not wants_xlsx:
            idempotency.remember(s, body=job.document, status=200)
    if wants_xlsx:
        return xlsx_response(job, scenario.name)
    return Response(job.document, mimetype="application/json")


def wait_for(job: PlanJob, seconds: float) -> PlanJob:
    """The job once done or failed, or as it is after ``seconds``: this request waits (polling
    the database with back-off); a worker computes."""
    deadline, pause = time.monotonic() + seconds, 0.05
    while True:
        job = records.fresh(job.id)
        if job.state in ("done", "failed", "cancelled") or time.monotonic() >= deadline:
            return job
        time.sleep(pause)
        pause = min(pause * 1.5, 1.0)


def api_workbook_job(plan_job: PlanJob) -> PlanJob:
    """The workbook job of an API plan job (keyed by the plan job and the language)."""
    lang = current_locale()
    spec = {"label": [json.loads(plan_job.document)["scenario"]["name"], None, None],
            "lang": lang, **json.loads(plan_job.spec)}
    return records.request("workbook", f"job{plan_job.id}:{lang}:{EXPORT_VERSION}:{LAYOUT}",
                           {**spec, "plan_job": plan_job.id}, owner_key(), ENGINE_VERSION,
                           usage_file_id=plan_job.usage_file_id)


def xlsx_response(workbook: PlanJob, name: str) -> Response:
    return Response(workbook.result, mimetype=XLSX, headers={
        "Content-Disposition": f'attachment; filename="{safe_download_name(name)}"'})


def job_json(job: PlanJob) -> dict[str, Any]:
    plan_job = job.kind == "plan"
    links = {"status": url_for("api.job", job_id=job.id)}
    if plan_job:
        links.update(plan=url_for("api.job_plan", job_id=job.id),
                     xlsx=url_for("api.job_xlsx", job_id=job.id))
    return {**job_status(job), "links": links}


def asked(filename: str, data: bytes, job: PlanJob) -> str:
    """The audit details of an API plan request: the file, its SHA-256 and the job it got,
    which may be another person's computation of the same content (:func:`own_job`)."""
    return f"{clip(filename)} sha256={sha256(data)} job={job.id}"


def own_job(job_id: int) -> PlanJob:
    """A job this token's user may read: theirs, or one they asked for through the API whose
    computation another person's identical request had started (a job is one per content:
    share the computation, never the identity; issue 40: the second user's job link was 404).
    The audit log records who asked for which job."""
    job = get_session().get(PlanJob, job_id)
    if job is not None and job.owner_key != owner_key() and get_session().scalar(
            select(AuditEvent.id).where(AuditEvent.actor_id == g.api_user.id,
                                        AuditEvent.action == "api.plan",
                                        AuditEvent.details.like(f"% job={job.id}"))) is None:
        job = None
    if job is None:
        raise ApiError(404, _("No such job."))
    return job


@bp.get("/jobs/<int:job_id>")
@SPEC.validate(resp=JOB_RESPONSES, tags=["plans"], operation_id="getJob")
def job(job_id: int):
    """A plan job's state, progress and result links"""
    return current_app.json.response(job_json(own_job(job_id)))


@bp.delete("/jobs/<int:job_id>")
@SPEC.validate(resp=JOB_CANCEL_RESPONSES, tags=["plans"], operation_id="cancelJob")
def cancel_job(job_id: int):
    """Cancel one of your jobs while it waits or runs (409 once it has ended)"""
    job = own_job(job_id)
    if job.owner_key != owner_key():
        raise ApiError(409, _("Another person's identical request started this computation: it "
                              "goes on for them, and you may leave it."))
    if not records.cancel(job.id):
        raise ApiError(409, _("This job has already ended (%(state)s): nothing to cancel.",
                              state=job.state))
    with write_session() as s:
        audit(s, s.get(User, g.api_user.id), "api.cancel", details=f"job {job.id}")
    return current_app.json.response(job_json(records.fresh(job.id)))


@bp.get("/jobs/<int:job_id>/plan")
@SPEC.validate(resp=JOB_PLAN_RESPONSES, tags=["plans"], operation_id="getJobPlan")
def job_plan(job_id: int):
    """The plan document of a done plan job (202 with the job while it computes)"""
    job = own_job(job_id)
    if job.kind != "plan":
        raise ApiError(404, _("No such job."))
    if job.state == "failed":
        raise ApiError(409, reason(job) or "")
    if job.state != "done":
        return Response(current_app.json.dumps(job_json(job)), status=202,
                        mimetype="application/json", headers={"Retry-After": "2"})
    return Response(job.document, mimetype="application/json")


@bp.get("/jobs/<int:job_id>/plan.xlsx")
@SPEC.validate(resp=JOB_XLSX_RESPONSES, tags=["plans"], operation_id="getJobWorkbook")
def job_xlsx(job_id: int):
    """The workbook of a done plan job, in the Accept-Language (202 while it is written)"""
    job = own_job(job_id)
    if job.kind != "plan" or job.state == "failed":
        raise ApiError(404 if job.kind != "plan" else 409, reason(job) or _("No such job."))
    if job.state == "done":
        workbook = wait_for(api_workbook_job(job), 0)
        if workbook.state == "done":
            return xlsx_response(workbook, json.loads(job.document)["scenario"]["name"])
        job = workbook
    return Response(current_app.json.dumps(job_json(job)), status=202,
                    mimetype="application/json", headers={"Retry-After": "2"})

