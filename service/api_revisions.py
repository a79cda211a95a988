"""API: save a new revision of a scenario (``POST /api/v1/scenarios/<id>/revisions``).

Body ``{"scenario": {...}, "note": "..."}``; the revision keeps the latest revision's usage file.
Answers 201 ``{"scenario_id", "number", "content_hash", "usage_sha256"}``. Honours the
``Idempotency-Key`` header: a retry answers the same JSON and saves nothing again.
"""
from __future__ import annotations

from flask import current_app, g, request
from sqlalchemy import select

from service import idempotency
from service.access import can_edit, can_view
from service.api import bp, parse_scenario
from service.db import Revision, ScenarioRecord, UsageFile, User, get_session, write_session
from service.errors import ApiError
from service.i18n import _
from service.planning import PlanningError
from service.revisions import add_revision, check_plan


def revision_json(revision: Revision) -> dict:
    return {"scenario_id": revision.scenario_id, "number": revision.number,
            "content_hash": revision.content_hash, "usage_sha256": revision.usage_sha256}


@bp.post("/scenarios/<int:scenario_id>/revisions")
def create_revision(scenario_id: int):
    user = g.api_user
    scenario = get_session().get(ScenarioRecord, scenario_id)
    if scenario is None or not can_view(user, scenario):
        raise ApiError(404, _("No scenario %(id)s.", id=scenario_id))
    if not can_edit(user, scenario):
        raise ApiError(403, _("Only the scenario's owner can add revisions."))
    done = idempotency.replay()
    if done is not None:
        return done
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError(400, _("The body must be a JSON object with 'scenario' (and 'note')."))
    model = parse_scenario(body.get("scenario"))
    note = str(body.get("note") or "saved through the API")[:500]
    latest = scenario.latest
    try:
        result = check_plan(model, latest.usage_file if latest else None)
    except PlanningError as exc:
        raise ApiError(422, str(exc), exc.problems) from None
    with write_session() as s:
        idempotency.claim(s)
        usage = s.get(UsageFile, latest.usage_file_id) if latest and latest.usage_file_id \
            else None
        revision = add_revision(s, s.get(ScenarioRecord, scenario_id), s.get(User, user.id),
                                model, usage, note=note, result=result)
        text = current_app.json.dumps(revision_json(revision))
        idempotency.remember(s, body=text, status=201)
    return current_app.response_class(text, status=201, mimetype="application/json")


@bp.get("/scenarios/<int:scenario_id>/revisions")
def list_revisions(scenario_id: int):
    scenario = get_session().get(ScenarioRecord, scenario_id)
    if scenario is None or not can_view(g.api_user, scenario):
        raise ApiError(404, _("No scenario %(id)s.", id=scenario_id))
    rows = get_session().scalars(select(Revision).where(Revision.scenario_id == scenario_id)
                                 .order_by(Revision.number)).all()
    return {"revisions": [revision_json(r) for r in rows]}
