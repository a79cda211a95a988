"""JSON API (design 9.4): ``POST /api/v1/plans`` with ``Authorization: Bearer <token>``.

Bodies are validated with the models of service.api.openapi, which also generate the OpenAPI
document at ``/api/v1/openapi.json`` (the one route here that needs no token).
"""
from __future__ import annotations

import csv
import io
from typing import Any, Optional

from flask import Response, current_app, g, request
from pydantic import ValidationError

from models.scenario import Scenario, scenario_from_json
from service.api import bp
from service.web import idempotency
from service.web.users import user_for_token
from service.clip import clip
from service.web.tables import audit, sha256
from service.web.db import get_session
from service.web.errors import ApiError
from service.xlsx.export import plan_xlsx_bytes, safe_download_name
from service.i18n import N_, _, current_locale
from service.ingest import make_bundle
from service.api.openapi import (MAX_JSON_ROWS, PLAN_RESPONSES, SPEC, XLSX, PlanForm, PlanRequest,
                             UsageRow, openapi_document)
from service.plans.cache import PlanningError, plan_for
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
    """Usage rows as the CSV the ingest reads (columns by the names the client used)."""
    dumped = [row.model_dump(exclude_unset=True) for row in rows]
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
    Send an Idempotency-Key header to have a retry answered without planning twice.
    """
    scenario, data, filename = read_plan_request()
    try:
        result = plan_for(scenario, data, filename)
    except PlanningError as exc:
        raise ApiError(422, str(exc), exc.problems) from None
    wants_xlsx = request.accept_mimetypes.best_match(["application/json", XLSX]) == XLSX and \
        request.accept_mimetypes[XLSX] > request.accept_mimetypes["application/json"]
    body: Any = None if wants_xlsx else current_app.json.dumps(result.document)
    with idempotency.transaction() as s:
        audit(s, g.api_user, "api.plan", details=f"{clip(filename)} sha256={sha256(data)}")
        if body is not None:
            idempotency.remember(s, body=body, status=200)
    if wants_xlsx:
        return Response(plan_xlsx_bytes(result.document, result.plan.ledger,
                                        lang=current_locale()), mimetype=XLSX, headers={
            "Content-Disposition":
                f'attachment; filename="{safe_download_name(scenario.name)}"'})
    return Response(body, mimetype="application/json")
