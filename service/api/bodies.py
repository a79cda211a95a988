"""Request bodies of the JSON API: the JSON object itself, and pydantic errors turned into the
API's 4xx answer ``{"error": {code, message, details}}`` with one detail per field."""
from __future__ import annotations

from typing import TypeVar

from flask import current_app, request
from pydantic import BaseModel, ValidationError

from models.json_numbers import whole_numbers
from service.clip import clip
from service.i18n import _
from service.i18n.validation import error_message
from service.web.errors import ApiError

Body = TypeVar("Body", bound=BaseModel)


def json_body() -> dict:
    """The request's JSON object: 415 for another media type, 400 for broken JSON, JSON
    nested thousands of levels deep (app.BoundedJSONProvider) or anything but an object."""
    if not request.is_json:
        raise ApiError(415, _("Send the body as application/json."))
    try:
        body = current_app.json.loads(request.get_data(cache=True) or b"null")
    except ValueError as exc:   # JSONDecodeError, TooDeep, UnicodeDecodeError
        raise ApiError(400, _("The body is not valid JSON (%(reason)s).",
                              reason=clip(exc, 200))) from None
    if not isinstance(body, dict):
        raise ApiError(400, _("The body must be a JSON object."))
    return body


def strict_body(model: type[Body], what: str) -> Body:
    """The request's JSON object, once :func:`json_body` has taken it, as ``model``, its types
    checked as JSON has them: ``"8"`` or ``true`` for a number of servers is a 422 naming the
    field, not a number (service.api.openapi states the same types)."""
    try:
        # 8.0 is the integer 8, as JSON Schema (the OpenAPI document) has it
        return model.model_validate_json(whole_numbers(request.get_data(cache=True)),
                                         strict=True)
    except ValidationError as exc:
        raise invalid(exc, what) from None


def field_errors(exc: ValidationError, strip: str = "", root: str = "body") -> list[dict]:
    """pydantic errors as ``{"field", "message"}``; ``strip`` drops a leading location part
    (scenario errors name the scenario's own fields, as in the form and the CLI); an error of
    the whole value is named ``root``."""
    out = []
    for e in exc.errors()[:50]:
        loc = [str(p) for p in e["loc"]]
        if strip and loc[:1] == [strip] and len(loc) > 1:
            loc = loc[1:]
        out.append({"field": clip(".".join(loc) or root), "message": error_message(e)})
    return out


def invalid(exc: ValidationError, what: str) -> ApiError:
    only_scenario = all(e["loc"][:1] == ("scenario",) for e in exc.errors())
    if only_scenario:
        return ApiError(422, _("The scenario is invalid."),
                        field_errors(exc, "scenario", "scenario"))
    return ApiError(422, _("The %(what)s is invalid.", what=_(what)), field_errors(exc))
