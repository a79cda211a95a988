"""Shared fixtures: an app on a temporary instance folder with users and one planned scenario."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from models.scenario import Scenario
from service import create_app
from service.web.tables import User
from service.web.db import write_session
from service.paths import SAMPLES

class ClosingClient(FlaskClient):
    """The Flask test client, closing each request body it built.

    werkzeug's test client spools a multipart body over 500 kB to a temporary file and never
    closes it; the garbage collector later closes it with a ResourceWarning inside whichever
    test happens to run, which warnings-as-errors turns into a random failure.
    """

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        body = getattr(response, "request", None)
        stream = body.environ.get("wsgi.input") if body is not None else None
        if stream is not None and hasattr(stream, "close"):
            stream.close()
        return response


Flask.test_client_class = ClosingClient   # every app the tests create


SAMPLE_USAGE = SAMPLES / "usage_hourly.csv"
SAMPLE_SCENARIO = SAMPLES / "scenario_h100.json"
PASSWORD = "correct horse battery"
# name -> role. "rex" is a reviewer who also authors a scenario (author-as-reviewer).
USERS = {"ana": "analyst", "otto": "analyst", "rita": "reviewer", "rex": "reviewer",
         "root": "admin"}


@pytest.fixture(scope="session")
def sample_plan():
    """The sample plan, computed once for the whole run."""
    from service.plans.cache import plan_for
    model = Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))
    return model, plan_for(model, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)


TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test-secret",
               "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"}  # fast hashing in tests only


@pytest.fixture(scope="session")
def seeded_database(tmp_path_factory, sample_plan) -> Path:
    """A migrated SQLite file with the users and two planned scenarios, built once."""
    from service.web.users import create_user
    from service.plans.revisions import create_scenario, store_usage
    instance = tmp_path_factory.mktemp("template")
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance)})
    model, result = sample_plan
    with app.app_context():
        with write_session() as s:
            users = {name: create_user(s, name, PASSWORD, role) for name, role in USERS.items()}
            usage = store_usage(s, users["ana"], SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            create_scenario(s, users["ana"], model, usage, result=result)      # scenario 1
            usage_rex = store_usage(s, users["rex"], SAMPLE_USAGE.read_bytes(),
                                    SAMPLE_USAGE.name)
            create_scenario(s, users["rex"], model.model_copy(update={"name": "Rex's own"}),
                            usage_rex, result=result)                          # scenario 2
    engine = app.extensions["buyrent_engine"]
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return instance / "buyrent.sqlite3"


@pytest.fixture
def app(tmp_path: Path, seeded_database: Path):
    """A fresh copy of the seeded database behind a new app."""
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(seeded_database, instance / "buyrent.sqlite3")
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance)})
    yield app
    app.extensions["buyrent_engine"].dispose()


class Browser:
    """A test client that logs in and sends the CSRF token like the pages do."""

    def __init__(self, client):
        self.client = client

    def token(self) -> str:
        page = self.client.get("/login").get_data(as_text=True)
        return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def login(self, name: str, password: str = PASSWORD):
        return self.client.post("/login", data={"username": name, "password": password,
                                                "csrf_token": self.token()})

    def get(self, url: str, **kw):
        return self.client.get(url, **kw)

    def post(self, url: str, data=None, **kw):
        data = dict(data or {})
        data.setdefault("csrf_token", self.token())
        return self.client.post(url, data=data, **kw)


@pytest.fixture
def browser(app):
    return Browser(app.test_client())


@pytest.fixture
def login(app):
    def _login(name):
        b = Browser(app.test_client())
        if name is not None:
            assert b.login(name).status_code == 302
        return b
    return _login


def count(app, model) -> int:
    from sqlalchemy import func, select
    with app.app_context():
        with write_session() as s:
            return s.scalar(select(func.count()).select_from(model))


@pytest.fixture
def user_id(app):
    def _id(name):
        from sqlalchemy import select
        with app.app_context():
            with write_session() as s:
                return s.scalar(select(User.id).where(User.username == name))
    return _id


def revision_hash(app, scenario_id: int = 1, number: int = 1) -> str:
    """The SHA-256 of a revision, which every review form carries (and must)."""
    from sqlalchemy import select

    from service.web.tables import Revision
    with app.app_context():
        with write_session() as s:
            return s.scalar(select(Revision.content_hash).where(
                Revision.scenario_id == scenario_id, Revision.number == number))


def form_data(data: dict) -> dict:
    """What the scenario form posts for scenario ``data`` (every generated input)."""
    from service.scenarios.forms import build_form
    out = {}
    for section in build_form(data):
        for f in section.all_fields:
            if f.kind == "checkbox":
                if f.checked:
                    out[f.name] = "true"
            else:
                out[f.name] = f.value
    return out
