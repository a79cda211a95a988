"""The login and logout pages and the profile page with its API tokens (accounts themselves:
service.web.users)."""
from __future__ import annotations

from typing import Optional
from urllib.parse import urlsplit

from flask import abort, flash, g, redirect, render_template, request, session, url_for
from sqlalchemy import select
from werkzeug.security import check_password_hash

from service.auth import bp
from service.i18n import _
from service.web import idempotency, sessions, throttle
from service.web.db import get_session, write_session
from service.web.tables import ApiToken, User, audit
from service.web.users import create_token, dummy_hash, login_required


def safe_next(target: Optional[str]) -> str:
    """``target`` when it is a path on this site, else the scenarios list.

    Browsers drop tabs, newlines and other control characters from a URL and read a backslash
    as a slash, so ``/%09/evil.example`` or ``/\\evil.example`` would travel to another host as
    ``//evil.example``; a CR or LF would split the Location header. Any such character, or
    anything that is not a single leading slash followed by a path, is ignored.
    """
    fallback = url_for("scenarios.index")
    if not target or len(target) > 2000:
        return fallback
    if any(ch.isspace() or not ch.isprintable() or ch == "\\" for ch in target):
        return fallback
    parts = urlsplit(target)
    if not target.startswith("/") or target.startswith("//") or parts.scheme or parts.netloc:
        return fallback
    return target


@bp.route("/login", methods=("GET", "POST"))
def login():
    error = None
    if request.method == "POST":
        username = request.form.get("username", "").strip()
        password = request.form.get("password", "")
        wait = throttle.blocked(username)
        if wait is not None:
            return render_template("auth/login.html", error=throttle.message(wait)), 429, \
                {"Retry-After": str(wait)}
        user = get_session().scalar(select(User).where(User.username == username))
        valid = check_password_hash(user.password_hash if user else dummy_hash(), password)
        if user and valid:
            lang = session.get("lang")  # the language chosen on the login page stays
            session.clear()
            if lang:
                session["lang"] = lang
            with write_session() as s:
                sessions.start(s, user.id)
                audit(s, user, "login")
            session["user_id"] = user.id
            return redirect(safe_next(request.args.get("next")))
        throttle.record_failure(username)
        error = _("Unknown user name or wrong password.")
    return render_template("auth/login.html", error=error), 401 if error else 200


@bp.post("/logout")
def logout():
    if g.user is not None:
        with write_session() as s:
            audit(s, s.get(User, g.user.id), "logout")
    sessions.revoke()
    session.clear()
    return redirect(url_for("auth.login"))


@bp.get("/profile")
@login_required
def profile():
    tokens = get_session().scalars(select(ApiToken).where(ApiToken.user_id == g.user.id)
                                   .order_by(ApiToken.id)).all()
    return render_template("auth/profile.html", tokens=tokens, new_token=None)


@bp.post("/profile/tokens")
@login_required
@idempotency.idempotent  # a token is shown once: a resent form creates no second one
def new_token():
    with idempotency.transaction() as s:
        token = create_token(s, s.get(User, g.user.id), request.form.get("label", ""))
        idempotency.remember(s, location=url_for("auth.profile"))
    tokens = get_session().scalars(select(ApiToken).where(ApiToken.user_id == g.user.id)
                                   .order_by(ApiToken.id)).all()
    return render_template("auth/profile.html", tokens=tokens, new_token=token)


@bp.post("/profile/tokens/<int:token_id>/revoke")
@login_required
def revoke_token(token_id: int):
    with write_session() as s:
        row = s.get(ApiToken, token_id)
        if row is None or row.user_id != g.user.id:
            abort(404)
        s.delete(row)
        audit(s, s.get(User, g.user.id), "token.revoke", details=row.label)
    flash(_("Token revoked."))
    return redirect(url_for("auth.profile"))
