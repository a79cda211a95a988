"""Fixtures of the web tests (the app, its users and the test client come from
tests/conftest.py)."""
from __future__ import annotations

import pytest

from service.web.db import write_session
from service.web.tables import User
from service.web.users import create_token


@pytest.fixture
def api(app):
    """POST /api/v1/plans as ana with a bearer token; extra headers are added to it."""
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "test")
    client = app.test_client()

    def post(**kw):
        headers = {"Authorization": f"Bearer {token}", **kw.pop("headers", {})}
        return client.post("/api/v1/plans", headers=headers, **kw)
    return post
