"""A migrated SQLite file with a sample scenario planned, and a logged-in browser on a copy of
it: the plan-page tests of one stored plan (test_plan_schedule.py, test_plan_generations.py)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from models.plan_options import PlanOptions
from models.scenario import Scenario
from service.app import create_app
from service.web.db import write_session
from tests.support.client import PASSWORD, TEST_CONFIG, Browser
from tests.support.plans import SUITE


def planned_database(instance: Path, scenario: Path, usage: Path, reviewer: bool = False,
                     options: PlanOptions = SUITE):
    """ana (and rita, a reviewer, when asked) and the scenario planned on the usage as
    scenario 1 (with ``options``); returns the database file and the plan result."""
    from tests.support.service_plans import plan_for
    from service.plans.revisions import create_scenario, store_usage
    from service.web.users import create_user
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance)})
    model = Scenario.model_validate(json.loads(scenario.read_text()))
    result = plan_for(model, usage.read_bytes(), usage.name, options=options)
    with app.app_context():
        with write_session() as s:
            ana = create_user(s, "ana", PASSWORD, "analyst")
            if reviewer:
                create_user(s, "rita", PASSWORD, "reviewer")
            stored = store_usage(s, ana, usage.read_bytes(), usage.name)
            create_scenario(s, ana, model, stored, result=result)
    engine = app.extensions["buyrent_engine"]
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return instance / "buyrent.sqlite3", result


def browse_copy(tmp_path: Path, database: Path):
    """An app on a copy of the database and ana's browser, logged in."""
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(database, instance / "buyrent.sqlite3")
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance)})
    b = Browser(app.test_client())
    assert b.login("ana").status_code == 302
    return app, b
