"""API: create a scenario from a scenario JSON (``POST /api/v1/scenarios``).

The body is the scenario document itself, the JSON ``buyrent plan --scenario FILE`` reads, and
it is read by the same loader (``models.scenario.scenario_from_json``), so a file the command
line plans is a body this accepts. It is saved as revision 1 of a new scenario of the token's
user, as the scenarios page's "New scenario" saves it. Answers 201 with ``Location`` (the
scenario's page) and ``{"scenario_id", "number", "content_hash", "usage_sha256", "url",
"revisions"}``. Honours the ``Idempotency-Key`` header: a retry answers the same and saves
nothing again.
"""
from __future__ import annotations

from flask import current_app, g, request, url_for
from pydantic import ValidationError
from spectree import Response

from models.scenario import Scenario, scenario_from_json
from service.api import bp
from service.api.bodies import field_errors, json_body
from service.api.openapi import SPEC, ScenarioCreated, errors
from service.api.revisions import revision_json
from service.i18n import _
from service.plans.revisions import create_scenario
from service.web import idempotency
from service.web.errors import ApiError
from service.web.tables import Revision, User

NOTE = "created through the API"   # the revision's note (service.i18n.labels.NOTES)


def created_json(revision: Revision) -> dict:
    return {**revision_json(revision),
            "url": url_for("scenarios.show", scenario_id=revision.scenario_id),
            "revisions": url_for("api.list_revisions", scenario_id=revision.scenario_id)}


@bp.post("/scenarios")
@SPEC.validate(json=Scenario, skip_validation=True, tags=["scenarios"],
               operation_id="createScenario",
               resp=Response(HTTP_201=ScenarioCreated, **errors(400, 401, 409, 413, 415, 422)))
@idempotency.idempotent
def create_scenario_from_json():
    """Create a scenario from a scenario JSON

    The body is a scenario (every field has a default: ``{}`` is the default scenario), as
    ``buyrent plan --scenario`` and the scenarios page's "New scenario from a file" read it:
    a value of the wrong JSON type (``"8"`` for a number) or a broken bound is a 422 naming
    each field. It is saved as revision 1 of a new scenario of yours, with no usage file yet:
    its plan is computed once a usage file is attached (the scenario's page), or ask
    POST /api/v1/plans for a plan of it without saving one.
    """
    json_body()      # 415 / 400 first, then the scenario's fields
    try:
        model = scenario_from_json(request.get_data(cache=True))
    except ValidationError as exc:
        raise ApiError(422, _("The scenario is invalid."),
                       field_errors(exc, root="scenario")) from None
    with idempotency.transaction() as s:
        revision = create_scenario(s, s.get(User, g.api_user.id), model, note=NOTE)
        body = created_json(revision)
        text = current_app.json.dumps(body)
        idempotency.remember(s, location=body["url"], body=text, status=201)
    return current_app.response_class(text, status=201, mimetype="application/json",
                                      headers={"Location": body["url"]})
