"""API of the re-plan from actuals (issue 43): ``POST /api/v1/scenarios/<id>/replan``.

The newest approved revision (``?revision=N``: approved revision N) is re-planned from the
scenario's actuals, as the Plan vs actual page's button does (service/plans/replan.py): a new
revision whose plan the job queue computes. Answers 202 with the new revision and
``Location`` (its plan page: the plan is a job, never computed in the request); a second
request for the same re-plan answers 200 with the revision that already is it (``plan``
says whether its plan is stored).
"""
from __future__ import annotations

from flask import current_app, g, request, url_for
from spectree import Response

from models.refusals import Refusal
from service.api import bp
from service.api.actuals import approved_baseline, revision_of
from service.api.openapi import SPEC, ActualsQuery, ReplanOut, errors
from service.api.revisions import revision_json, visible_scenario
from service.i18n import _
from service.i18n.ingest_refusals import refusal
from service.plans import actuals as held
from service.plans.replan import (ReplanError, build_replan, check_replan, make_replan,
                                  replanned_from, same_replan)
from service.plans.stored import ensure_plan, read_plan
from service.web import idempotency
from service.web.access import can_edit, id_or_404
from service.web.db import get_session
from service.web.errors import ApiError
from service.web.tables import Revision, User


def replan_json(revision: Revision, status: str) -> dict:
    made = replanned_from(revision)
    return {**revision_json(revision), "replanned_from": made[0], "last_actual": made[1],
            "start_month": revision.assumptions_dict["finance"]["start_month"],
            "plan": status,
            "url": url_for("plans.show", scenario_id=revision.scenario_id,
                           number=revision.number, _external=False),
            "compare": url_for("plans.compare", scenario_id=revision.scenario_id, a=made[0],
                               b=revision.number)}


@bp.post("/scenarios/<int:scenario_id>/replan")
@SPEC.validate(query=ActualsQuery, skip_validation=True, tags=["actuals"],
               operation_id="replanFromActuals",
               resp=Response(HTTP_200=ReplanOut, HTTP_202=ReplanOut,
                             **errors(401, 403, 404, 409, 422)))
@idempotency.idempotent
def replan_from_actuals(scenario_id: int):
    """Re-plan a scenario from its actuals

    A new revision of the scenario made from where the team stands after the last month with
    actuals: ``position`` the approved strategy's purchases, sales and signings up to then;
    usage the revision's with the GPU-hours used appended by month; start the month after.
    Its plan is computed by a plan job: 202 with the new revision; ``Location`` is its plan
    page and ``compare`` what changed against the approved revision. 409 without an
    approved revision or without actuals to re-plan from; 403 for someone who may read but
    not change the scenario. Honours ``Idempotency-Key``.
    """
    user = g.api_user
    scenario = visible_scenario(scenario_id)
    if not can_edit(user, scenario):
        raise ApiError(403, _("Only the scenario's owner can add revisions."))
    if request.args.get("revision"):
        base = approved_baseline(revision_of(scenario_id, id_or_404(request.args["revision"])))
    else:
        base = held.latest_baseline(scenario)
        if base is None:
            raise ApiError(409, _("No revision of this scenario is approved: actuals are read "
                                  "against an approved plan."))
    try:
        plan = build_replan(base)
    except ReplanError as exc:
        raise ApiError(409, _(exc.template, **exc.values)) from None
    existing = same_replan(base, plan)
    if existing is not None:
        body = replan_json(existing, "stored" if read_plan(existing, start=False).complete
                           else "computing")
        return current_app.response_class(current_app.json.dumps(body), status=200,
                                          mimetype="application/json",
                                          headers={"Location": body["url"]})
    try:
        check_replan(plan)
    except Refusal as exc:
        raise ApiError(422, refusal(str(exc), exc.problems), exc.problems) from None
    with idempotency.transaction() as s:
        made = make_replan(s, s.get(User, user.id), base, plan)
        s.flush()
        location = url_for("plans.show", scenario_id=scenario_id, number=made.number)
        body = current_app.json.dumps(replan_json(made, "computing"))
        idempotency.remember(s, location=location, body=body, status=202)
    ensure_plan(get_session().get(Revision, made.id))
    return current_app.response_class(body, status=202, mimetype="application/json",
                                      headers={"Location": location})
