"""JSON API (design 9.4): ``POST /api/v1/plans`` with ``Authorization: Bearer <token>``."""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Blueprint, Response, current_app, g, request
from pydantic import ValidationError

from models.scenario import Scenario
from service import idempotency
from service.auth import user_for_token
from service.export_xlsx import plan_xlsx_bytes, safe_download_name
from service.db import audit, get_session, sha256, write_session
from service.errors import ApiError
from service.ingest import make_bundle
from service.planning import PlanningError, plan_for

bp = Blueprint("api", __name__, url_prefix="/api/v1")
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_JSON_ROWS = 200_000


@bp.before_request
def bearer_auth() -> None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "Send 'Authorization: Bearer <token>' (create a token on your "
                            "profile page or with 'buyrent users token NAME').")
    user = user_for_token(get_session(), token.strip())
    if user is None:
        raise ApiError(401, "Unknown or revoked API token.")
    g.api_user = user


def parse_scenario(value: Any) -> Scenario:
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value or "{}")
        except json.JSONDecodeError as exc:
            raise ApiError(400, f"scenario: invalid JSON at line {exc.lineno}, column "
                                f"{exc.colno} ({exc.msg})") from None
    if value is None:
        value = {}
    try:
        return Scenario.model_validate(value)
    except ValidationError as exc:
        details = [{"field": ".".join(str(p) for p in e["loc"]) or "scenario",
                    "message": e["msg"]} for e in exc.errors()]
        raise ApiError(422, "The scenario is invalid.", details) from None


def rows_to_csv(rows: Any) -> bytes:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise ApiError(422, "usage must be a non-empty list of objects such as "
                            '{"timestamp": "2026-01-01T00:00", "gpu_hours": 12.5}.')
    if len(rows) > MAX_JSON_ROWS:
        raise ApiError(413, f"usage has {len(rows):,} rows; the limit is {MAX_JSON_ROWS:,}.")
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


@bp.post("/plans")
def create_plan():
    done = idempotency.replay()  # Idempotency-Key header: a retry gets the first answer
    if done is not None:
        return done
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("usage")
        if upload is None or not upload.filename:
            raise ApiError(400, "multipart requests need a 'usage' file part.")
        data, filename = upload.read(), upload.filename
        busy = request.files.get("busy")      # optional GPU busy time beside the usage file
        if busy is not None and busy.filename:
            filename, data = make_bundle(filename, data, busy.filename, busy.read())
        scenario = parse_scenario(request.form.get("scenario", "{}"))
    elif request.is_json:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise ApiError(400, "The body must be a JSON object with 'scenario' and 'usage'.")
        scenario = parse_scenario(body.get("scenario"))
        data, filename = rows_to_csv(body.get("usage")), "usage.csv"
    else:
        raise ApiError(415, "Send multipart/form-data (usage file + scenario field) or "
                            "application/json.")
    try:
        result = plan_for(scenario, data, filename)
    except PlanningError as exc:
        raise ApiError(422, str(exc), exc.problems) from None
    wants_xlsx = request.accept_mimetypes.best_match(["application/json", XLSX]) == XLSX and \
        request.accept_mimetypes[XLSX] > request.accept_mimetypes["application/json"]
    body = None if wants_xlsx else current_app.json.dumps(result.document)
    with write_session() as s:
        audit(s, g.api_user, "api.plan", details=f"{filename[:100]} sha256={sha256(data)}")
        if body is not None:
            idempotency.remember(s, body=body, status=200)
    if wants_xlsx:
        return Response(plan_xlsx_bytes(result.plan), mimetype=XLSX, headers={
            "Content-Disposition":
                f'attachment; filename="{safe_download_name(scenario.name)}"'})
    return Response(body, mimetype="application/json")


from service import api_revisions  # noqa: E402,F401  (more routes on this blueprint)
