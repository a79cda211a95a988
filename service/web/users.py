"""User accounts: password rules and hashes, creating users and API tokens, the logged-in
user of each request (``g.user``) and the login_required guard of every page."""
from __future__ import annotations

import functools
import hashlib
import re
import secrets
from typing import Optional

from flask import Flask, current_app, g, has_app_context, redirect, request, session, url_for
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import generate_password_hash
from zxcvbn import zxcvbn

from service.web import sessions
from service.web.tables import ROLES, ApiToken, User, audit
from service.web.db import get_session

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


def load_logged_in_user() -> None:
    user_id = session.get("user_id")
    if user_id is not None and not sessions.is_live(user_id):
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


def init_app(app: Flask) -> None:
    # before every view of every blueprint: g.user is who this request's session is
    app.before_request(load_logged_in_user)
