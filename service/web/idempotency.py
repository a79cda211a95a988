"""Idempotency keys: a retried state-changing request returns the original outcome once.

Forms carry a hidden ``idempotency_key`` (a fresh one per page render, from the
``idempotency_key()`` template function); API clients send an ``Idempotency-Key`` header.
A state-changing view takes part in three steps::

    @bp.post("/things")
    @login_required
    @idempotency.idempotent              # 1. a known key: the stored outcome, the view not run
    def create_thing():
        ...                              #    parse and check the input, compute
        with idempotency.transaction() as s:   # 2. write transaction, key claimed first thing
            ...                          #    the writes
            idempotency.remember(s, location=url_for(...))  # 3. the outcome, same transaction

so the key row and the write are committed together or not at all. Keys are unique per user
(database constraint); two concurrent requests with one key: the second one's transaction fails
on the constraint (or, on SQLite, finds the key under the write lock), rolls back, and it
answers with the first one's outcome (the ``Duplicate`` handler of :func:`init_app`).

A key names one request: its method, its path and its body. The row keeps the body's SHA-256
beside the method and path; a key sent again with another body is refused with 422, as the
IETF draft (draft-ietf-httpapi-idempotency-key-header, "Error Scenarios") says, instead of
answering the first outcome and dropping the new body. A form's body is its fields without
the ones that change on every render or submit (CSRF token, the key, the progress id), and its
files' names and bytes; any other body is hashed as sent.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import secrets
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

from flask import Flask, Response, abort, flash, g, redirect, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.exceptions import Conflict, HTTPException

from service.i18n import N_, _
from service.web.db import get_session, write_session
from service.web.tables import IdempotencyKey

HEADER = "Idempotency-Key"
FIELD = "idempotency_key"
VALID = re.compile(r"^[A-Za-z0-9._:\-]{8,100}$")
REPLAYED = N_("This was already saved (the request was sent twice); nothing was saved again.")
FINGERPRINT = " sha256:"    # between the request line and the body's hash in the key's row
VOLATILE = {"csrf_token", FIELD, "progress_id"}   # form fields that differ on every submit


class Duplicate(Exception):
    """Another request with the same key committed first."""


def request_key() -> Optional[str]:
    key = request.headers.get(HEADER) or request.form.get(FIELD) or ""
    if not key:
        return None
    if not VALID.match(key):
        abort(400, _("%(header)s must have 8 to 100 characters out of letters, digits and "
                   ". _ : -", header=HEADER))
    return key


def _user_id() -> Optional[int]:
    user = g.get("api_user") or g.get("user")
    return user.id if user is not None else None


def _request_line() -> str:
    return f"{request.method} {request.path}"[:300 - len(FINGERPRINT) - 64]


def _body_hash() -> str:
    """SHA-256 of this request's body as a key names it (see the module's docstring)."""
    cached = g.get("idempotency_body_hash")
    if cached is not None:
        return cached
    digest = hashlib.sha256()
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for name in sorted(set(request.form) - VOLATILE):
            digest.update(json.dumps([name, request.form.getlist(name)]).encode())
        for name in sorted(request.files):
            for upload in request.files.getlist(name):
                digest.update(json.dumps([name, upload.filename]).encode())
                upload.stream.seek(0)          # from the start, whether or not the view read it
                for chunk in iter(lambda: upload.stream.read(1 << 20), b""):
                    digest.update(chunk)
                upload.stream.seek(0)          # the view reads it after us
    else:
        digest.update(request.get_data(cache=True))
    g.idempotency_body_hash = digest.hexdigest()
    return g.idempotency_body_hash


def _this_request() -> str:
    return _request_line() + FINGERPRINT + _body_hash()


def _response(row: IdempotencyKey) -> Response:
    line, _sep, body_hash = row.request.partition(FINGERPRINT)
    if line != _request_line():
        abort(422, _("This %(header)s was used for another request (%(request)s).",
                     header=HEADER, request=line))
    if body_hash and body_hash != _body_hash():   # rows stored before issue 23 have none
        abort(422, _("This %(header)s was used for this request with another body: send a "
                     "new key for a new request, or the same body again to get its answer.",
                     header=HEADER))
    if row.body is not None:      # an API answer; a created thing's with its Location
        response = Response(row.body, status=row.status, mimetype="application/json")
        if row.location is not None:
            response.headers["Location"] = row.location
    elif row.location is not None:
        response = redirect(row.location, row.status)
        if not request.path.startswith("/api/"):
            flash(_(REPLAYED))
    else:
        response = Response("", status=row.status, mimetype="application/json")
    response.headers["Idempotent-Replayed"] = "true"
    return response


def replay() -> Optional[Response]:
    """The stored outcome when this request's key was seen before, else None."""
    key, user_id = request_key(), _user_id()
    if key is None or user_id is None:
        return None
    row = get_session().scalar(select(IdempotencyKey).where(
        IdempotencyKey.user_id == user_id, IdempotencyKey.key == key))
    return _response(row) if row is not None else None


def idempotent(view: Callable) -> Callable:
    """Decorate a view that changes state: a POST (or any unsafe method) whose key this user
    already sent to this very method and path is answered with the stored outcome (the redirect,
    with a flash saying nothing was saved again, or the JSON body), and the view does not run;
    a new key, or none, runs the view. Safe methods (GET, HEAD) pass straight through, so one
    view can show its form and take its post. Put it under ``login_required``: the key belongs
    to the logged-in user (or the API token's). A stored outcome is answered before the view's
    own checks, since a key is only ever answered to the user who sent it, for the request it
    was sent with."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            done = replay()
            if done is not None:
                return done
        return view(*args, **kwargs)
    return wrapped


@contextmanager
def transaction() -> Iterator[Session]:
    """A write transaction (:func:`service.web.db.write_session`) with this request's key
    claimed first thing; end it with :func:`remember`."""
    with write_session() as s:
        claim(s)
        yield s


def claim(s: Session) -> None:
    """Take this request's key first thing in the write transaction ``s``.

    On PostgreSQL a second transaction inserting the same key waits for the first one and then
    fails on the unique constraint (-> :class:`Duplicate` -> the first one's outcome); on SQLite
    ``BEGIN IMMEDIATE`` already serialises writers, so the lookup below decides.
    """
    key, user_id = request_key(), _user_id()
    if key is None or user_id is None:
        return
    taken = s.scalar(select(IdempotencyKey.id).where(IdempotencyKey.user_id == user_id,
                                                     IdempotencyKey.key == key))
    if taken is not None:
        raise Duplicate()
    row = IdempotencyKey(user_id=user_id, key=key, request=_this_request(), status=0)
    s.add(row)
    try:
        s.flush()
    except IntegrityError:
        raise Duplicate() from None
    g.idempotency_row = row


def remember(s: Session, *, location: Optional[str] = None, body: Optional[str] = None,
             status: int = 302) -> None:
    """Store this request's outcome in the caller's write transaction ``s`` (claiming the key
    now unless :func:`claim` did at the start of the transaction)."""
    if g.get("idempotency_row") is None:
        claim(s)
    row = g.pop("idempotency_row", None)
    if row is None:
        return
    row.status, row.location, row.body = status, location, body
    s.flush()


def init_app(app: Flask) -> None:
    @app.errorhandler(Duplicate)
    def _duplicate(_exc: Duplicate):
        get_session().rollback()  # a fresh snapshot that sees the winner's commit
        try:
            done = replay()
        except HTTPException as refused:
            # the winner sent another body under this key: the 422 of _response, answered
            # here (an error handler's own abort would be a 500: issue 40)
            return app.handle_http_exception(refused)
        if done is not None:
            return done
        return app.handle_http_exception(
            Conflict("A request with this key is still being processed; try again."))

    @app.context_processor
    def _key():
        return {"idempotency_key": lambda: secrets.token_urlsafe(18)}
