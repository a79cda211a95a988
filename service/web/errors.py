"""Error handlers: JSON ``{"error": {code, message, details}}`` under /api, from the browser's JSON
endpoints (marked with :func:`answers_json`) and to requests that prefer JSON; HTML pages elsewhere.

Unexpected errors get an id that is logged with the traceback and shown to the user; the
traceback itself is never sent.
"""
from __future__ import annotations

import secrets
from typing import Any, Optional

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from service.clip import MESSAGE, clip, clip_message
from service.i18n import DEFAULT, N_, _, current_locale
from service.i18n.ingest_refusals import problem_text, refusal
from service.web.unavailable import MESSAGE as STORAGE_MESSAGE, RETRY_AFTER, is_storage_failure

# Titles and generic descriptions of HTTP errors, for errors raised without a message of ours.
TITLES = {400: N_("Bad Request"), 401: N_("Unauthorized"), 403: N_("Forbidden"),
          404: N_("Not Found"), 405: N_("Method Not Allowed"), 409: N_("Conflict"),
          413: N_("Request Entity Too Large"), 415: N_("Unsupported Media Type"),
          422: N_("Unprocessable Entity"), 429: N_("Too Many Requests"),
          500: N_("Internal Server Error"), 503: N_("Service Unavailable")}
DESCRIPTIONS = {
    400: N_("The request could not be understood."),
    401: N_("Log in to see this page."),
    403: N_("You do not have permission to do this."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not accept this kind of request."),
    409: N_("The request conflicts with the current state."),
    413: N_("The upload is too large."),
    415: N_("This kind of content is not accepted here."),
    422: N_("The input could not be processed."),
    429: N_("Too many requests: wait a little and try again."),
    500: N_("The error has been logged."),
    503: N_("The service is unavailable right now. Try again later."),
}
# Flask-WTF's CSRF failures (CSRFError descriptions), translated as they are.
CSRF_TEXTS = {text: text for text in (
    N_("The CSRF token is missing."), N_("The CSRF session token is missing."),
    N_("The CSRF token has expired."), N_("The CSRF token is invalid."),
    N_("The CSRF tokens do not match."), N_("The referrer header is missing."),
    N_("The referrer does not match the host."))}


def describe(exc: HTTPException) -> tuple[str, str]:
    """(title, message) of an HTTP error in the reader's language. Messages given by our own
    views are already translated; werkzeug's and Flask-WTF's generic ones are replaced."""
    status = exc.code or 500
    title = _(TITLES[status]) if status in TITLES else exc.name
    description = exc.description or ""
    if description in CSRF_TEXTS:
        return title, _(CSRF_TEXTS[description])
    generic = not description or description == type(exc).description
    if generic and current_locale() != DEFAULT:  # English keeps werkzeug's own words
        description = _(DESCRIPTIONS[status]) if status in DESCRIPTIONS else exc.name
    return title, description

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


def answers_json(view):
    """Marks a browser view that answers JSON (the form's validation, the live plan, progress):
    its errors, an unexpected one too, are JSON, never an HTML page its script cannot read."""
    view.answers_json = True
    return view


def wants_json() -> bool:
    """Whether this request's errors are JSON: the API, a view marked :func:`answers_json`, or a
    request that asks for JSON first (the upload script's ``Accept``)."""
    if request.path.startswith("/api/"):
        return True
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    return (getattr(view, "answers_json", False)
            or request.accept_mimetypes.best == "application/json")


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
    # a usage file's problems (row, column, message) in the request's language
    problems = [d for d in details
                if isinstance(d, dict) and {"row", "column", "message"} <= d.keys()]
    if problems:
        message = refusal(str(message), problems)
        details = [dict(d, message=problem_text(d)) if d in problems else d for d in details]
    if len(details) > MAX_DETAILS:
        details = details[:MAX_DETAILS] + [{"message": f"... {len(details) - MAX_DETAILS} "
                                                       "more not shown"}]
    body = {"error": {"code": code or CODES.get(status, "error"),
                      "message": clip_message(str(message), 4 * MESSAGE),
                      "details": [bounded(d) for d in details]}}
    return jsonify(body), status


def storage_failure(exc: BaseException) -> Optional[Any]:
    """A 503 response for a storage failure, or None for any other error."""
    if not is_storage_failure(exc):
        return None
    if wants_json():
        body, status = json_error(503, _(STORAGE_MESSAGE), code="storage_unavailable")
    else:
        body, status = render_template("error.html", status=503,
                                       title=_("Cannot save right now"), message=_(STORAGE_MESSAGE),
                                       error_id=None), 503
    return body, status, {"Retry-After": RETRY_AFTER}


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
        title, message = describe(exc)
        if wants_json():
            body, status = json_error(status, message)
        else:
            body = render_template("error.html", status=status, title=title,
                                   message=clip_message(message, 4 * MESSAGE), error_id=None)
        # the exception's own headers (Allow of a 405, WWW-Authenticate...), not its body's type
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]
        return body, status, headers

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        unavailable = storage_failure(exc)  # disk full / read-only -> 503, nothing saved
        if unavailable is not None:
            app.logger.warning("storage failure on %s %s: %s", request.method, request.path, exc)
            return unavailable
        error_id = secrets.token_hex(6)
        app.logger.exception("error id %s on %s %s", error_id, request.method, request.path)
        if wants_json():
            return json_error(500, _("Internal error (error id %(id)s).", id=error_id),
                              [{"error_id": error_id}])
        return render_template("error.html", status=500, title=_("Something went wrong"),
                               message=_("The error has been logged."), error_id=error_id), 500
