"""API of plan against actual (issue 43): a scenario's actual bills and the variance.

- ``GET /api/v1/scenarios/<id>/actuals[?revision=N]``: the baseline (the newest approved
  revision, or revision N when it is approved), every upload, and the variance against the
  baseline with the forecast and the table by line.
- ``POST /api/v1/scenarios/<id>/actuals`` (multipart, one ``bills`` part per file): the bills
  read, checked against the newest approved revision's plan and stored, as the Actual bills
  page does: 201 with the upload, or 422 with the problems by row and column and nothing
  saved.
- ``GET /api/v1/scenarios/<id>/revisions/<n>/variance``: the variance document of an approved
  revision, the very document ``buyrent variance --plan PLAN.json BILLS... --json`` prints
  for its plan and the scenario's bills.
"""
from __future__ import annotations

from typing import Any, Optional

from flask import current_app, g, request, url_for
from spectree import Response
from sqlalchemy import select

from models.refusals import Refusal
from models.variance import VarianceError
from service.plans import alerts, alert_posts as alert_task
from service.api import bp
from service.api.openapi import (SPEC, ActualsForm, ActualsOut, ActualsQuery, ActualsUploaded,
                                 VarianceDocument, errors)
from service.api.revisions import visible_scenario
from service.i18n import _
from service.i18n.ingest_refusals import refusal
from service.plans import actuals as held
from service.plans.actuals_fx import stated_rate
from service.web.access import can_edit, id_or_404
from service.web import idempotency
from service.web.db import get_session
from service.web.errors import ApiError
from service.web.tables import ActualUpload, Revision, User


def upload_json(upload: ActualUpload) -> dict[str, Any]:
    return {"id": upload.id, "created_at": upload.created_at,
            "uploaded_by": upload.uploader.username, "revision": upload.revision.number,
            "currency": upload.currency, "months": upload.month_list,
            "files": [{"filename": f.filename, "sha256": f.sha256, "size": f.size}
                      for f in upload.files]}


def baseline_json(base: Optional[held.Baseline]) -> Optional[dict[str, Any]]:
    if base is None:
        return None
    return {"number": base.revision.number, "content_hash": base.revision.content_hash,
            "strategy": base.strategy, "recommended": base.recommended,
            "currency": base.currency}


def revision_of(scenario_id: int, number: Any) -> Revision:
    revision = get_session().scalar(select(Revision).where(
        Revision.scenario_id == scenario_id, Revision.number == number))
    if revision is None:
        raise ApiError(404, _("No revision %(number)s of scenario %(id)s.", number=number,
                              id=scenario_id))
    return revision


def approved_baseline(revision: Revision) -> held.Baseline:
    base = held.baseline(revision)
    if base is None:
        raise ApiError(409, _("Revision %(number)s is not approved: actuals are read against "
                              "an approved plan.", number=revision.number))
    return base


def actuals_json(scenario, base: Optional[held.Baseline]) -> dict[str, Any]:
    doc = held.plan_vs_actual(base) if base is not None else None
    if doc is not None:
        doc.pop("uploads")
    return {"scenario_id": scenario.id, "baseline": baseline_json(base),
            "uploads": [upload_json(u) for u in held.uploads(scenario.id)], "variance": doc,
            **alerts.alerts_json(scenario.id)}


@bp.get("/scenarios/<int:scenario_id>/actuals")
@SPEC.validate(query=ActualsQuery, skip_validation=True, tags=["actuals"],
               operation_id="listActuals",
               resp=Response(HTTP_200=ActualsOut, **errors(401, 404, 409)))
def list_actuals(scenario_id: int):
    """The actual bills of a scenario and the variance

    The baseline is the newest approved revision (``?revision=N``: revision N, which must be
    approved) and the strategy its approval approved. ``variance`` is the variance document
    (per month and year to date a ``total`` and its ``parts``, adding up to the cent) with
    ``forecast`` (actuals to date, then the plan for the months left) and ``lines`` (plan and
    actual per cost line), or null before any actuals within the plan's months.
    """
    scenario = visible_scenario(scenario_id)
    if request.args.get("revision"):
        number = id_or_404(request.args["revision"])
        base = approved_baseline(revision_of(scenario_id, number))
    else:
        base = held.latest_baseline(scenario)
    return actuals_json(scenario, base)


@bp.post("/scenarios/<int:scenario_id>/actuals")
@SPEC.validate(form=ActualsForm, skip_validation=True, tags=["actuals"],
               operation_id="uploadActuals",
               resp=Response(HTTP_201=ActualsUploaded, **errors(400, 401, 403, 404, 409, 413,
                                                                  415, 422)))
@idempotency.idempotent
def upload_actuals(scenario_id: int):
    """Upload actual bills of a scenario

    One or more bills (repeat the ``bills`` part), read together by the usage file's readers and
    checked against the newest approved revision's plan: its months and its currencies (a bill
    in the plan's foreign currency counts at the plan's rate of its month, the rest of what was
    paid is the ``fx`` part; ``fx_rate`` states the rate paid for bills with no amount in the
    reporting currency). The owned fleet's actuals (a CSV whose header has ``month`` and
    ``servers_online``: the template at ``/owned-actuals-template.csv``) and DCGM or
    nvidia-smi busy time go in the same part; a later upload of a month's owned actuals
    replaces them and leaves its bills, and the other way round. A refusal is a 422 naming each
    bad row and column, and nothing is saved. Stored byte for byte, append-only and audited; a
    later upload of a month replaces that month in the variance (the earlier one stays on
    record). Answers 201 with the upload, the baseline and ``Location`` (GET it for the
    variance). Honours the ``Idempotency-Key`` header: a retry answers the same and saves
    nothing again.
    """
    user = g.api_user
    scenario = visible_scenario(scenario_id)
    if not can_edit(user, scenario):
        raise ApiError(403, _("Only the scenario's owner can upload its actual bills."))
    base = held.latest_baseline(scenario)
    if base is None:
        raise ApiError(409, _("No revision of this scenario is approved: actuals are read "
                              "against an approved plan."))
    if request.mimetype != "multipart/form-data":
        raise ApiError(415, _("Send multipart/form-data with one 'bills' part per file."))
    files = [(f.filename, f.read()) for f in request.files.getlist("bills") if f.filename]
    if not files:
        raise ApiError(400, _("multipart requests need one or more 'bills' file parts."))
    if len(files) > held.MAX_FILES:
        raise ApiError(413, _("At most %(count)s bills in one upload.", count=held.MAX_FILES))
    try:
        rate = stated_rate(request.form.get("fx_rate"))
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None
    try:
        months = held.read_upload_files(base, files, rate)
    except VarianceError as exc:
        raise ApiError(422, _(exc.template, **exc.values)) from None
    except Refusal as exc:
        raise ApiError(422, refusal(str(exc), exc.problems), exc.problems) from None
    location = url_for("api.list_actuals", scenario_id=scenario_id)
    with idempotency.transaction() as s:
        writer = s.get(User, user.id)
        upload = held.store_upload(s, writer, base, files, months)
        breaches = alerts.record_breaches(s, writer, base, upload)   # issue 43: thresholds
        s.flush()
        s.refresh(upload)
        body = current_app.json.dumps({"upload": upload_json(upload),
                                       "baseline": baseline_json(base), "actuals": location})
        idempotency.remember(s, location=location, body=body, status=201)
    alert_task.enqueue_posts(scenario_id, breaches)
    return current_app.response_class(body, status=201, mimetype="application/json",
                                      headers={"Location": location})


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/variance")
@SPEC.validate(skip_validation=True, tags=["actuals"], operation_id="getVariance",
               resp=Response(HTTP_200=VarianceDocument, **errors(401, 404, 409)))
def get_variance(scenario_id: int, number: int):
    """The variance document of an approved revision

    The document ``buyrent variance --plan PLAN.json BILLS... --json`` prints for this
    revision's plan (its approved strategy) and the scenario's actual bills: ``strategy``,
    ``currency``, and per month and for the year to date ``plan``, ``actual``, ``total`` and
    its ``parts`` by name, as decimal text and in cents, adding up to the cent.
    """
    visible_scenario(scenario_id)
    base = approved_baseline(revision_of(scenario_id, number))
    doc = held.plan_vs_actual(base)
    if doc is None:
        raise ApiError(409, _("No actual bills within this plan's months yet."))
    return {k: doc[k] for k in ("strategy", "currency", "months", "ytd")}
