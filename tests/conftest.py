"""Shared fixtures: an app on a temporary instance folder with users and one planned scenario.

The helpers behind them (test configuration, users, the logging-in test client) live in
tests/support/client.py; fixtures of one layer only live in that layer's conftest.py."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from flask import Flask

from models.scenario import Scenario
from service.app import create_app
from service.web.tables import User
from service.web.db import write_session
from tests.support.client import PASSWORD, TEST_CONFIG, USERS, Browser, ClosingClient
from tests.support.paths import SAMPLE_SCENARIO, SAMPLE_USAGE

Flask.test_client_class = ClosingClient   # every app the tests create
# plans without a start month start after the later of their usage and the current month
# (service.clock): the suite pins the month, so that its figures do not move with the calendar;
# subprocesses (the CLI, served apps) inherit it
os.environ.setdefault("BUYRENT_CURRENT_MONTH", "2026-12")
# issue 27's default robust plan (three demand scenarios from the growth range) adds 5-40 s to
# every full plan: the suite's plans leave it out, as an argument (tests/support/plans.py's
# SUITE options), and served apps and subprocesses from this variable (service/plan_options.py);
# tests marked robust_default plan as users do
os.environ["BUYRENT_GROWTH_RANGE_SCENARIOS"] = "0"


@pytest.fixture(scope="session")
def sample_plan():
    """The sample plan, computed once for the whole run."""
    from tests.support.service_plans import plan_for
    model = Scenario.model_validate(json.loads(SAMPLE_SCENARIO.read_text()))
    return model, plan_for(model, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)


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


@pytest.fixture
def browser(app):
    """The test client of ``app``, logged out (in tests/system: Chromium, see its conftest)."""
    return Browser(app.test_client())


@pytest.fixture
def login(app):
    def _login(name):
        b = Browser(app.test_client())
        if name is not None:
            assert b.login(name).status_code == 302
        return b
    return _login


@pytest.fixture
def user_id(app):
    def _id(name):
        from sqlalchemy import select
        with app.app_context():
            with write_session() as s:
                return s.scalar(select(User.id).where(User.username == name))
    return _id
