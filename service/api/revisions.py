"""API: save a new revision of a scenario (``POST /api/v1/scenarios/<id>/revisions``).

Body ``{"scenario": {...}, "note": "..."}`` (service.api.openapi.RevisionRequest); the revision
keeps the latest revision's usage file. Answers 201 ``{"scenario_id", "number", "content_hash",
"usage_sha256"}``. Honours the ``Idempotency-Key`` header: a retry answers the same JSON and
saves nothing again.
"""
from __future__ import annotations

from flask import current_app, g
from spectree import Response
from sqlalchemy import select

from models.refusals import Refusal
from service.web import idempotency
from service.web.access import can_edit, can_view
from service.api import bp
from service.api.bodies import json_body, strict_body
from service.web.tables import Revision, ScenarioRecord, UsageFile, User
from service.web.db import get_session
from service.web.errors import ApiError
from service.i18n import N_, _
from service.i18n.ingest_refusals import refusal
from service.api.openapi import SPEC, RevisionList, RevisionOut, RevisionRequest, errors
from service.plans.revisions import add_revision, preflight
from service.plans.stored import ensure_plan

NOT_FOUND = N_("No scenario %(id)s (or not yours to see).")


def revision_json(revision: Revision) -> dict:
    return {"scenario_id": revision.scenario_id, "number": revision.number,
            "content_hash": revision.content_hash, "usage_sha256": revision.usage_sha256}


def visible_scenario(scenario_id: int) -> ScenarioRecord:
    scenario = get_session().get(ScenarioRecord, scenario_id)
    if scenario is None or not can_view(g.api_user, scenario):
        raise ApiError(404, _(NOT_FOUND, id=scenario_id))
    return scenario


@bp.post("/scenarios/<int:scenario_id>/revisions")
@SPEC.validate(json=RevisionRequest, skip_validation=True, tags=["scenarios"],
               operation_id="createRevision",
               resp=Response(HTTP_201=RevisionOut, **errors(400, 401, 403, 404, 409, 413, 415,
                                                              422)))
@idempotency.idempotent
def create_revision(scenario_id: int):
    """Save a new revision of a scenario

    The new assumptions keep the latest revision's usage file; a scenario the engine cannot
    plan at all is refused (422), and its plan is computed by a plan job (GET the revision's
    plan through the web pages, or POST /api/v1/plans for a plan without a revision).
    """
    user = g.api_user
    scenario = visible_scenario(scenario_id)
    if not can_edit(user, scenario):
        raise ApiError(403, _("Only the scenario's owner can add revisions."))
    json_body()      # 415 / 400 first, then the body's fields
    body = strict_body(RevisionRequest, N_("request body"))
    latest = scenario.latest
    try:
        preflight(body.scenario, latest.usage_file if latest else None)
    except Refusal as exc:
        raise ApiError(422, refusal(str(exc), exc.problems), exc.problems) from None
    with idempotency.transaction() as s:
        usage = s.get(UsageFile, latest.usage_file_id) if latest and latest.usage_file_id \
            else None
        revision = add_revision(s, s.get(ScenarioRecord, scenario_id), s.get(User, user.id),
                                body.scenario, usage, note=body.note or "saved through the API")
        text = current_app.json.dumps(revision_json(revision))
        idempotency.remember(s, body=text, status=201)
    ensure_plan(get_session().get(Revision, revision.id))
    return current_app.response_class(text, status=201, mimetype="application/json")


@bp.get("/scenarios/<int:scenario_id>/revisions")
@SPEC.validate(skip_validation=True, tags=["scenarios"], operation_id="listRevisions",
               resp=Response(HTTP_200=RevisionList, **errors(401, 404)))
def list_revisions(scenario_id: int):
    """List the revisions of a scenario"""
    visible_scenario(scenario_id)
    rows = get_session().scalars(select(Revision).where(Revision.scenario_id == scenario_id)
                                 .order_by(Revision.number)).all()
    return {"revisions": [revision_json(r) for r in rows]}
