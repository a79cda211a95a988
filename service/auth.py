"""Users, login, logout, profile page with API tokens; the login_required guard."""
from __future__ import annotations

import functools
import hashlib
import re
import secrets
from typing import Optional
from urllib.parse import urlsplit

from flask import (Blueprint, abort, current_app, flash, g, has_app_context, redirect,
                   render_template, request, session, url_for)
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash
from zxcvbn import zxcvbn

from service import idempotency, throttle, websessions
from service.db import ROLES, ApiToken, User, audit, get_session, write_session
from service.i18n import _

bp = Blueprint("auth", __name__)
TOKEN_PREFIX = "br_"


def password_hash(password: str) -> str:
    # Tests set a cheap method; production keeps werkzeug's default (scrypt).
    method = current_app.config.get("PASSWORD_HASH_METHOD") if has_app_context() else None
    return generate_password_hash(password, method) if method else \
        generate_password_hash(password)


def dummy_hash() -> str:
    """Compared against when the user does not exist, so both paths take the same time."""
    key = "buyrent_dummy_hash"
    if key not in current_app.extensions:
        current_app.extensions[key] = password_hash("not-a-password")
    return current_app.extensions[key]


class UserError(ValueError):
    """Bad user data (name taken, unknown role, empty password)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# Letters, digits and . _ - @ (e-mail addresses fit), starting with a letter or digit: no
# markup, quotes, spaces or control characters, and nothing a spreadsheet reads as a formula.
USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,79}")
MIN_PASSWORD, MAX_PASSWORD = 12, 1_000
MIN_SCORE = 3   # zxcvbn: "safely unguessable: moderate protection from an offline slow-hash"
ZXCVBN_CHARACTERS = 72   # zxcvbn refuses longer input; the characters after only add strength


def check_username(username: str) -> None:
    if not USERNAME.fullmatch(username):
        raise UserError("the user name must have 1 to 80 characters out of letters A-Z, digits "
                        "and . _ - @, starting with a letter or digit")


def check_password(username: str, password: str) -> None:
    """Length 12 or more and a zxcvbn strength estimate of 3 or more out of 4, with the user
    name and the product name counted as known words (a password 'ana-ana-ana' is weak)."""
    if len(password) < MIN_PASSWORD:
        raise UserError(f"the password must have at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise UserError(f"the password may have at most {MAX_PASSWORD:,} characters")
    if password.strip().lower() == username.lower():
        raise UserError("the password must not be the user name")
    words = [username, "buyrent", *re.split(r"[._@-]", username)]
    estimate = zxcvbn(password[:ZXCVBN_CHARACTERS], user_inputs=[w for w in words if w])
    if estimate["score"] < MIN_SCORE:
        hint = estimate["feedback"]["warning"] or "it is too easy to guess"
        tips = " ".join(estimate["feedback"]["suggestions"])
        raise UserError(f"the password is too weak: {hint.rstrip('.')}." + (f" {tips}" if tips
                                                                          else ""))


def create_user(s: Session, username: str, password: str, role: str) -> User:
    username = username.strip()
    check_username(username)
    if role not in ROLES:
        raise UserError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    check_password(username, password)
    if s.scalar(select(User).where(User.username == username)):
        raise UserError(f"user {username!r} exists already")
    user = User(username=username, password_hash=password_hash(password), role=role)
    s.add(user)
    s.flush()
    audit(s, None, "user.create", details=f"{username} ({role})")
    return user


def create_token(s: Session, user: User, label: str = "") -> str:
    """A new API token for ``user``; only its SHA-256 is stored, the token is shown once."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    s.add(ApiToken(user_id=user.id, token_hash=hash_token(token), label=label[:80]))
    audit(s, user, "token.create", details=label[:80])
    return token


def user_for_token(s: Session, token: str) -> Optional[User]:
    row = s.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(token)))
    return s.get(User, row.user_id) if row else None


@bp.before_app_request
def load_logged_in_user() -> None:
    user_id = session.get("user_id")
    if user_id is not None and not websessions.is_live(user_id):
        session.clear()  # logged out (or revoked) session: the cookie is worth nothing
        user_id = None
    g.user = get_session().get(User, user_id) if user_id is not None else None


def login_required(view):
    @functools.wraps(view)
    def wrapped(**kwargs):
        if g.user is None:
            return redirect(url_for("auth.login", next=request.path))
        return view(**kwargs)
    return wrapped


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
                websessions.start(s, user.id)
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
    websessions.revoke()
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
def new_token():
    done = idempotency.replay()  # a token is shown once: a resent form creates no second one
    if done is not None:
        return done
    with write_session() as s:
        idempotency.claim(s)
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
