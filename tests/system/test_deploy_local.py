"""The two-machine deployment of docs/README-deploy.md as scripts/deploy-local sets it up on
loopback: its own PostgreSQL cluster (a role with a password, over TCP), a redis-server asking
for a password, the schema migrated once, two web instances (``serve --no-worker``) and two
``buyrent worker`` processes, each with its own instance folder. A user added with the
deployment's ``buyrent users add`` (password on stdin) gets a token; a plan asked of the first
instance is answered 202 at once, computed by one of the workers, and read from the second
instance; a browser session made on the first is valid on the second (one SECRET_KEY). Then the
written stop script ends every process the script started, and their children.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from tests.support.client import PASSWORD
from tests.support.http_client import Client
from tests.support.jobs import alive, descendants, differences, wait_until
from tests.support.paths import ROOT, SAMPLES

pytestmark = pytest.mark.postgres
SCRIPT = ROOT / "scripts" / "deploy-local"
PROCESSES = {"postgres", "redis", "web1", "web2", "worker1", "worker2"}
DRAWS = 200         # the plan's Monte Carlo, kept short on a 2-core machine


def run(*cmd, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300,
                          **kwargs)


def env_file(folder: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in (folder / "env").read_text().splitlines())


def migration_head() -> str:
    """The newest revision of migrations/, as ``alembic heads`` says it."""
    config = Config()       # as service.web.db.upgrade finds them
    config.set_main_option("script_location", str(ROOT / "migrations"))
    return ScriptDirectory.from_config(config).get_current_head()


def test_two_web_instances_and_two_workers_started_used_and_stopped():
    # under /tmp: as root, PostgreSQL runs as the postgres user, who must enter the folder
    folder = Path(tempfile.mkdtemp(prefix="buyrent-deploy-"))
    started = run(SCRIPT, folder, env={**os.environ, "PYTHON": sys.executable})
    pids: dict[str, int] = {}
    if (folder / "pids").exists():
        pids = {name: int(pid) for name, pid in
                (line.split() for line in (folder / "pids").read_text().splitlines())}
    family: set[int] = set()
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert set(pids) == PROCESSES
        urls = (folder / "urls").read_text().split()
        assert len(urls) == 2 and urls[0] != urls[1]
        assert f"migrated to {migration_head()}:" in started.stdout

        # secrets made at run time, kept from other users; the URLs carry the passwords
        env = env_file(folder)
        assert stat.S_IMODE((folder / "env").stat().st_mode) == 0o600
        assert stat.S_IMODE((folder / "redis" / "redis.conf").stat().st_mode) == 0o600
        assert env["DATABASE_URL"].startswith("postgresql://buyrent:")
        assert env["BUYRENT_QUEUE_URL"].startswith("redis://:")
        assert len(env["SECRET_KEY"]) >= 32
        for secret in (env["SECRET_KEY"], env["BUYRENT_QUEUE_URL"].split(":")[2].split("@")[0]):
            assert secret not in started.stdout + started.stderr
        # each web instance and worker is a process group of its own (stopped as one)
        for name in ("web1", "web2", "worker1", "worker2"):
            assert os.getpgid(pids[name]) == pids[name], name
            # its own instance folder, and the shared SECRET_KEY: none generated into it
            assert (folder / name).is_dir() and not (folder / name / "secret_key").exists()
        family = set(pids.values())

        # a user added with the deployment's own command, the password on stdin
        added = run(folder / "buyrent", "users", "add", "ana", "--role", "analyst",
                    input=PASSWORD + "\n")
        assert added.returncode == 0, added.stderr
        assert added.stdout.strip() == "user ana added (analyst)"
        token = run(folder / "buyrent", "users", "token", "ana")
        assert token.returncode == 0, token.stderr
        first, second = Client(urls[0].rstrip("/"), token.stdout.strip()), \
            Client(urls[1].rstrip("/"), token.stdout.strip())

        # the first instance queues the plan and answers at once: the web computes nothing
        scenario = json.loads((SAMPLES / "scenario_h100.json").read_text())
        scenario["uncertainty"] = {**scenario.get("uncertainty", {}), "draws": DRAWS}
        asked = time.monotonic()
        status, body, headers = first.send(
            "POST", "/api/v1/plans", headers={"Prefer": "respond-async"}, files={
                "usage": ("usage_daily.csv", (SAMPLES / "usage_daily.csv").read_bytes()),
                "scenario": (None, json.dumps(scenario).encode())})
        assert status == 202, body
        assert time.monotonic() - asked < 10
        job = json.loads(body)
        assert job["state"] in ("queued", "running") and headers["Location"] == \
            f"/api/v1/jobs/{job['id']}"
        family |= {pid for name in ("worker1", "worker2")
                   for pid in descendants(pids[name])}

        # polled on the second instance until a worker has done it
        def done():
            status, body, _ = second.send("GET", f"/api/v1/jobs/{job['id']}")
            assert status == 200, body
            state = json.loads(body)
            assert state["state"] in ("queued", "running", "done"), state
            return state if state["state"] == "done" else None
        state = wait_until(done, 240, "the plan job done by a worker", step=0.5)
        assert state["attempts"] == 1 and state["error"] is None
        status, body, _ = second.send("GET", state["links"]["plan"])
        assert status == 200, body
        plan = json.loads(body)
        assert plan["scenario"]["name"] == scenario["name"]
        assert plan["scenario"]["uncertainty"]["draws"] == DRAWS
        assert plan["recommendation"] in plan["strategies"]
        assert plan["profile"]["period"] == "day"

        # the row in PostgreSQL: claimed by one of the two workers, the document served
        with psycopg.connect(env["DATABASE_URL"]) as conn:
            claim, document = conn.execute("SELECT claim, document FROM plan_jobs WHERE id = %s",
                                           (job["id"],)).fetchone()
        assert int(claim.split(":")[1]) in (pids["worker1"], pids["worker2"]), claim
        assert json.loads(document) == plan

        # the same plan as the CLI's, number for number (issue 37 item 2: one document from the
        # CLI, a web job on SQLite (tests/web/test_plan_options.py) and a worker on Redis)
        asked_file = folder / "scenario.json"
        asked_file.write_text(json.dumps(scenario))
        cli = run(sys.executable, "-m", "service.cli.main", "plan", SAMPLES / "usage_daily.csv",
                  "--scenario", asked_file, "--json", cwd=ROOT,
                  env={**os.environ, "PYTHONHASHSEED": "3"})
        assert cli.returncode == 0, cli.stderr
        assert differences(json.loads(cli.stdout), plan) == []

        # a browser session made on the first instance is one on the second (one SECRET_KEY)
        browser = Client(urls[0].rstrip("/"))
        browser.login("ana")
        browser.base = urls[1].rstrip("/")
        status, page, _ = browser.send("GET", "/scenarios/")
        assert status == 200, page[:300]
        assert b"ana (" in page
        for pid in list(family):
            family |= set(descendants(pid))
    finally:
        if (folder / "stop").exists():
            stopped = run(folder / "stop")
        elif pids:
            stopped = run(SCRIPT, "--stop", folder)
        else:
            stopped = None
        left = sorted(pid for pid in family if alive(pid))
        shutil.rmtree(folder, ignore_errors=True)
    assert stopped is not None and stopped.returncode == 0, stopped and stopped.stderr
    assert stopped.stdout.strip() == f"stopped everything started under {folder}"
    assert left == [], f"processes left after the stop script: {left}"


def test_the_deploy_notes_name_the_migration_head():
    """docs/README-deploy.md said 0003, then 0006, for a head alembic calls 0006_plan_jobs:
    every "(head)" it shows is the newest revision of migrations/."""
    text = (ROOT / "docs" / "README-deploy.md").read_text()
    named = re.findall(r"([\w.-]+) \(head\)", text)
    assert named and set(named) == {migration_head()}, named
