"""Error handlers: JSON ``{"error": {code, message, details}}`` under /api, HTML pages elsewhere.

Unexpected errors get an id that is logged with the traceback and shown to the user; the
traceback itself is never sent.
"""
from __future__ import annotations

import secrets
from typing import Any, Optional

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from service.clip import MESSAGE, clip, clip_message

CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
         405: "method_not_allowed", 409: "conflict", 413: "too_large",
         415: "unsupported_media_type", 422: "invalid_input", 429: "too_many_requests",
         500: "internal_error", 501: "not_implemented", 503: "unavailable"}


class ApiError(Exception):
    """Raised by API views; becomes a JSON error response."""

    def __init__(self, status: int, message: str, details: Optional[list] = None,
                 code: Optional[str] = None):
        super().__init__(message)
        self.status, self.message = status, message
        self.details, self.code = details or [], code or CODES.get(status, "error")


def wants_json() -> bool:
    return request.path.startswith("/api/")


MAX_DETAILS = 50   # entries of "details"; ingest keeps 20 problems and a count anyway


def bounded(value: Any, depth: int = 0) -> Any:
    """A detail value with every text cut (service.clip) and no deep nesting: whatever an
    error quotes, its body stays a few hundred kilobytes at most."""
    if isinstance(value, str):
        return clip_message(value)
    if isinstance(value, dict) and depth < 3:
        return {clip(k): bounded(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, (list, tuple)) and depth < 3:
        return [bounded(v, depth + 1) for v in value[:MAX_DETAILS]]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return clip(value)


def json_error(status: int, message: str, details: Optional[list] = None,
               code: Optional[str] = None) -> Any:
    details = list(details or [])
    if len(details) > MAX_DETAILS:
        details = details[:MAX_DETAILS] + [{"message": f"... {len(details) - MAX_DETAILS} "
                                                       "more not shown"}]
    body = {"error": {"code": code or CODES.get(status, "error"),
                      "message": clip_message(str(message), 4 * MESSAGE),
                      "details": [bounded(d) for d in details]}}
    return jsonify(body), status


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError):
        response, status = json_error(exc.status, exc.message, exc.details, exc.code)
        if status == 401:
            response.headers["WWW-Authenticate"] = 'Bearer realm="buyrent"'
        return response, status

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        status = exc.code or 500
        if wants_json():
            response = json_error(status, exc.description or exc.name)
        else:
            response = (render_template("error.html", status=status, title=exc.name,
                                        message=clip_message(str(exc.description or ""),
                                                             4 * MESSAGE),
                                        error_id=None), status)
        return response

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        from service.unavailable import response as storage_failure
        unavailable = storage_failure(exc)  # disk full / read-only -> 503, nothing saved
        if unavailable is not None:
            app.logger.warning("storage failure on %s %s: %s", request.method, request.path, exc)
            return unavailable
        error_id = secrets.token_hex(6)
        app.logger.exception("error id %s on %s %s", error_id, request.method, request.path)
        if wants_json():
            return json_error(500, f"Internal error (error id {error_id}).",
                              [{"error_id": error_id}])
        return render_template("error.html", status=500, title="Something went wrong",
                               message="The error has been logged.", error_id=error_id), 500
