"""``buyrent serve``, ``buyrent worker`` and ``buyrent users`` (dispatched by
service.cli.main.COMMANDS)."""
from __future__ import annotations

import argparse
import getpass
import json
import atexit
import os
import sys

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.scenario import Scenario
from service.app import create_app
from service.web.users import UserError, create_token, create_user
from service.web.tables import Revision, ScenarioRecord, User
from service.web.db import get_engine, write_session
from service.paths import SAMPLE_USAGE, SAMPLES
from service.plans.revisions import create_scenario, store_usage
from service.plans.stored import ensure_plan
from service.plans.jobs.queue import QueueRefused, shown_url
from service.plans.jobs.runner import die_with_parent
from service.plans.jobs.worker import run_worker
from service.web.server import serve_gunicorn, serve_waitress
from service.cli.supervisor import Supervisor
from service.cli.usage_error import UsageError

DEMO_USERS = (("demo-analyst", "analyst-demo-pw", "analyst"),
              ("demo-reviewer", "reviewer-demo-pw", "reviewer"))
DEMO_SCENARIO = SAMPLES / "scenario_h100.json"


def add_arguments(name: str, command: argparse.ArgumentParser) -> None:
    """The arguments of ``serve`` or ``users`` (service.cli.main adds them when it runs)."""
    if name == "serve":
        command.add_argument("--host", default="127.0.0.1")
        command.add_argument("--port", type=int, default=8000)
        command.add_argument("--threads", type=int, default=8, help="threads per process")
        command.add_argument("--workers", type=int, default=1, help="worker processes "
                             "(gunicorn when > 1; one per core is a good start)")
        command.add_argument("--demo", action="store_true", help="seed a demo analyst, "
                             "reviewer and sample plan (or BUYRENT_DEMO=1)")
        command.add_argument("--jobs", type=int, default=2, help="plans computed at once by "
                             "the worker this command starts (default 2)")
        command.add_argument("--no-worker", action="store_true", help="start no worker: "
                             "plans wait for `buyrent worker` processes (several machines)")
        command.set_defaults(func=cmd_serve)
        return
    if name == "worker":
        command.add_argument("--jobs", type=int, default=2, help="plans computed at once "
                             "(threads, each supervising one child process; default 2)")
        command.set_defaults(func=cmd_worker)
        return
    users_sub = command.add_subparsers(dest="users_command", required=True)
    add = users_sub.add_parser("add", help="add a user (password from stdin when piped)")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("analyst", "reviewer", "admin"))
    add.set_defaults(func=cmd_users_add)
    token = users_sub.add_parser("token", help="create an API token for a user")
    token.add_argument("name")
    token.add_argument("--label", default="cli")
    token.set_defaults(func=cmd_users_token)


def _app():
    try:
        return create_app()
    except QueueRefused as exc:       # one line and exit 2, like every refusal of the CLI
        raise UsageError(str(exc)) from None


def read_password() -> str:
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Again: "):
        raise UsageError("the passwords differ")
    return first


def cmd_users_add(args: argparse.Namespace) -> int:
    app = _app()
    password = read_password()
    with app.app_context():
        try:
            with write_session() as s:
                create_user(s, args.name, password, args.role)
        except UserError as exc:
            raise UsageError(str(exc)) from None
    print(f"user {args.name} added ({args.role})")
    return 0


def cmd_users_token(args: argparse.Namespace) -> int:

    app = _app()
    with app.app_context():
        with write_session() as s:
            user = s.scalar(select(User).where(User.username == args.name))
            if user is None:
                raise UsageError(f"no user named {args.name!r}")
            token = create_token(s, user, args.label)
    print(token)
    return 0


def seed_demo(app) -> list[tuple[str, str, str]]:
    """Demo users and one sample scenario with its plan (idempotent)."""

    with app.app_context():
        with write_session() as s:
            users = {}
            for name, password, role in DEMO_USERS:
                users[role] = (s.scalar(select(User).where(User.username == name))
                               or create_user(s, name, password, role))
            analyst = users["analyst"]
            if s.scalar(select(ScenarioRecord).where(ScenarioRecord.owner_id == analyst.id)):
                return list(DEMO_USERS)
            model = Scenario.model_validate(json.loads(DEMO_SCENARIO.read_text()))
            usage = store_usage(s, analyst, SAMPLE_USAGE.read_bytes(), SAMPLE_USAGE.name)
            revision = create_scenario(s, analyst, model, usage)
        with Session(get_engine(), expire_on_commit=False) as s:
            ensure_plan(s.get(Revision, revision.id), owner=f"user:{analyst.id}")
    return list(DEMO_USERS)


def cmd_serve(args: argparse.Namespace) -> int:

    app = _app()
    if args.demo or app.config.get("BUYRENT_DEMO"):
        for name, password, role in seed_demo(app):
            print(f"demo {role}: user {name}, password {password}")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print("note: listening beyond loopback; put HTTPS in front and set "
              "FLASK_SESSION_COOKIE_SECURE=true", file=sys.stderr)
    print(f"buyrent on http://{args.host}:{args.port}/ (instance {app.instance_path}, "
          f"database {app.config['DATABASE_URL'].split('@')[-1]}, pid {os.getpid()})",
          flush=True)
    if not args.no_worker and app.config.get("QUEUE_URL") != "immediate":
        start_worker(args.jobs)
    if args.workers > 1:
        serve_gunicorn(app, args.host, args.port, args.workers, args.threads)
    else:
        serve_waitress(app, args.host, args.port, args.threads)
    return 0


def start_worker(jobs: int) -> Supervisor:
    """``buyrent worker`` beside the web server, ended with it and started again when it dies
    (service.cli.supervisor): the embedded default needs no other process started by hand."""
    supervisor = Supervisor([sys.executable, "-m", "service.cli.main", "worker", "--jobs",
                             str(jobs)], preexec=die_with_parent).start()
    atexit.register(supervisor.stop)
    print(f"plan worker: pid {supervisor.process.pid}, {jobs} jobs at once, restarted if it "
          f"stops (queue {shown_url(os.environ.get('BUYRENT_QUEUE_URL'))})", flush=True)
    return supervisor


def cmd_worker(args: argparse.Namespace) -> int:
    app = _app()
    print(f"buyrent worker: {args.jobs} jobs at once, database "
          f"{app.config['DATABASE_URL'].split('@')[-1]}, pid {os.getpid()}", flush=True)
    run_worker(app, args.jobs)
    return 0
