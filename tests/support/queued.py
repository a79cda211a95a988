"""An app whose jobs wait on a SQLite queue file with no worker: enqueuing runs nothing, a
test runs a job itself (service.plans.jobs.runner.run_job)."""
from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from flask import Flask

from service.app import create_app
from tests.support.client import TEST_CONFIG


@contextmanager
def queued_app(tmp_path: Path, seeded_database: Path) -> Iterator[Flask]:
    """The seeded database copied into ``tmp_path``'s instance, its queue beside it."""
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(seeded_database, instance / "buyrent.sqlite3")
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance),
                      "QUEUE_URL": str(tmp_path / "queue.sqlite3")})
    try:
        yield app
    finally:
        app.extensions["buyrent_engine"].dispose()
