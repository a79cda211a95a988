"""Fixtures of the system tests: Chromium through Playwright, the app behind waitress in a
child process, and the app on SQLite or on a throwaway PostgreSQL server.

In this folder ``browser`` is Chromium (the web layer's ``browser`` is the Flask test client);
modules that need a seeded server define their own ``server`` with
tests.support.chromium.server_fixture.
"""
from __future__ import annotations

import itertools

import pytest
from sqlalchemy import create_engine, text

from service.app import create_app
from service.web.users import create_user
from service.web.db import write_session
from service.plans.revisions import create_scenario, store_usage
from tests.support.chromium import browser_fixture
from tests.support.client import PASSWORD, TEST_CONFIG, USERS, Browser
from tests.support.live_server import live_server
from tests.support.paths import SAMPLE_USAGE
from tests.support.pg_server import postgres_server

_numbers = itertools.count(1)


@pytest.fixture
def instance_server(tmp_path):
    """(base URL, app on the same instance: a reader of its database) of the app behind
    waitress in a child process (tests/support/live_server.py: terminated, never closed from
    another thread), with an analyst and a reviewer."""
    config = {"INSTANCE_PATH": str(tmp_path / "instance"),
              "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}
    app = create_app(config)
    with app.app_context():
        with write_session() as s:
            create_user(s, "ana", PASSWORD, "analyst")
            create_user(s, "rita", PASSWORD, "reviewer")
    app.extensions["buyrent_engine"].dispose()
    with live_server(config) as url:
        yield url, app
    app.extensions["buyrent_engine"].dispose()


@pytest.fixture
def server(instance_server):
    """The base URL of :func:`instance_server`."""
    return instance_server[0]


@pytest.fixture
def browser():
    """Chromium (a missing browser fails the test: run scripts/system-packages)."""
    yield from browser_fixture()


@pytest.fixture(scope="module")
def pg_server_url():
    """One PostgreSQL server on loopback per test module."""
    with postgres_server() as url:
        yield url


def fresh_pg_database(server_url: str) -> str:
    name = f"buyrent_t{next(_numbers)}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return server_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def db_app(request, tmp_path, sample_plan):
    """An app on SQLite (the default) or on a fresh PostgreSQL database, seeded alike."""
    config = {**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path / "instance")}
    if request.param == "postgresql":
        config["DATABASE_URL"] = fresh_pg_database(request.getfixturevalue("pg_server_url"))
    app = create_app(config)
    model, result = sample_plan
    with app.app_context():
        with write_session() as s:
            users = {name: create_user(s, name, PASSWORD, role) for name, role in USERS.items()}
            usage = store_usage(s, users["ana"], SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            create_scenario(s, users["ana"], model, usage, result=result)
            usage = store_usage(s, users["rex"], SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            create_scenario(s, users["rex"], model.model_copy(update={"name": "Rex's own"}),
                            usage, result=result)
    assert app.extensions["buyrent_engine"].dialect.name == request.param
    yield app
    app.extensions["buyrent_engine"].dispose()


@pytest.fixture
def as_user(db_app):
    def _login(name):
        b = Browser(db_app.test_client())
        assert b.login(name).status_code == 302
        return b
    return _login
