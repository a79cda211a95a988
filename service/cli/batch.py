"""``buyrent batch DIR|sweep.json``: many scenarios planned by the workers, one summary table.

- ``DIR``: every ``*.json`` scenario file in it, each on the usage file ``--usage`` (default the
  bundled sample).
- ``sweep.json``: ``{"scenario": {...} | "path.json", "usage": "file.csv", "sweep":
  {"profile.growth_annual": [0, 0.3, 0.6], "owned.server_price": [250000, 300000]}}``: one
  scenario per combination of the listed values (their product; at most MAX_SCENARIOS).

The scenarios become plan jobs on the queue of BUYRENT_QUEUE_URL and the database of
DATABASE_URL (the instance's SQLite by default), owned by the ``buyrent-batch`` user; ``--jobs N``
starts N local worker processes for the run (0: only workers already running elsewhere).
The summary (CSV and XLSX) has one row per scenario: its name and swept values, the PV cost of
every strategy, the recommendation, its saving against all on demand and the staged schedule's
first decisions. The same scenario and usage in the same month is one job, computed once.
"""
from __future__ import annotations

import argparse
import csv
import itertools
import json
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import openpyxl
from pydantic import ValidationError
from sqlalchemy import select

from models.scenario import Scenario, validation_messages
from service import clock
from service.app import create_app
from service.cli.usage_error import UsageError
from service.plans.jobs import records
from service.plans.jobs.queue import QueueRefused
from service.plans.jobs.runner import die_with_parent
from service.plans.jobs.versions import ENGINE_VERSION
from service.paths import SAMPLE_USAGE
from service.plans.revisions import store_usage
from service.plans.stored import plan_key, plan_spec
from service.web.db import write_session
from service.web.tables import PlanJob, User, canonical_json, revision_hash
from service.web.users import create_user

MAX_SCENARIOS = 500
BATCH_USER = "buyrent-batch"
STRATEGIES = ("on_demand", "cloud_only", "buy_for_peak", "optimal", "staged", "proposed")
FIRST_DECISIONS = 3


def add_arguments(name: str, command: argparse.ArgumentParser) -> None:
    command.add_argument("source", help="a folder of scenario .json files, or a sweep .json")
    command.add_argument("--usage", help="usage file for a folder's scenarios "
                         "(default: the bundled sample; a sweep names its own)")
    command.add_argument("--out", default="batch-summary", help="summary path without suffix "
                         "(writes .csv and .xlsx; default batch-summary)")
    command.add_argument("--jobs", type=int, default=2, help="local worker processes started "
                         "for the run (default 2; 0 = workers running elsewhere)")
    command.add_argument("--timeout", type=float, default=3600, help="seconds to wait [3600]")
    command.set_defaults(func=cmd_batch)


def set_path(data: dict, path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        data = data[int(part)] if isinstance(data, list) else data.setdefault(part, {})
    if isinstance(data, list):
        data[int(last)] = value
    else:
        data[last] = value


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: {exc}") from None


def scenarios_of(source: Path, usage: str | None) -> tuple[list[tuple[dict, dict]], Path]:
    """[(swept values, scenario data)] and the usage file."""
    if source.is_dir():
        files = sorted(source.glob("*.json"))
        if not files:
            raise UsageError(f"{source}: no .json scenario files")
        return ([({"file": f.name}, read_json(f)) for f in files],
                Path(usage) if usage else SAMPLE_USAGE)
    spec = read_json(source)
    if not isinstance(spec, dict) or not isinstance(spec.get("sweep"), dict):
        raise UsageError(f"{source}: a sweep file has a 'sweep' object of field path -> list "
                         "of values (or give a folder of scenario files)")
    base = spec.get("scenario", {})
    if isinstance(base, str):
        base = read_json(source.parent / base)
    paths = list(spec["sweep"])
    values = [spec["sweep"][p] if isinstance(spec["sweep"][p], list) else [spec["sweep"][p]]
              for p in paths]
    combos = list(itertools.product(*values))
    if len(combos) > MAX_SCENARIOS:
        raise UsageError(f"{source}: {len(combos):,} combinations; at most {MAX_SCENARIOS}")
    out = []
    for combo in combos:
        data = json.loads(json.dumps(base))
        for path, value in zip(paths, combo):
            set_path(data, path, value)
        swept = dict(zip(paths, combo))
        data.setdefault("name", ", ".join(f"{p}={v}" for p, v in swept.items()))
        out.append((swept, data))
    usage_path = spec.get("usage") or usage
    return out, (source.parent / usage_path if usage_path else SAMPLE_USAGE)


def batch_user(s) -> User:
    user = s.scalar(select(User).where(User.username == BATCH_USER))
    return user or create_user(s, BATCH_USER, secrets.token_urlsafe(24) + "aA1!", "analyst")


def first_decisions(doc: dict) -> str:
    staged = doc["strategies"].get("staged") or {}
    parts = []
    for d in (staged.get("schedule") or [])[:FIRST_DECISIONS]:
        what = [f"buy {d['buy_servers']}"] if d.get("buy_servers") else []
        what += [f"sell {d['sell_servers']}"] if d.get("sell_servers") else []
        what += [f"commit {k} {v}" for k, v in d.get("commit", {}).items()]
        parts.append(f"{d['month']}: {', '.join(what) or 'hold'}")
    return "; ".join(parts)


def summary_rows(items: list[tuple[dict, Scenario, PlanJob]]) -> tuple[list[str], list[list]]:
    swept = list(dict.fromkeys(k for values, _, _ in items for k in values))
    header = ["scenario", *swept, "state", "currency",
              *[f"pv_{name}" for name in STRATEGIES], "recommendation",
              "saving_vs_on_demand", "staged_first_decisions", "error"]
    rows = []
    for values, model, job in items:
        doc = json.loads(job.document) if job.state == "done" else None
        pv = [doc["strategies"][n]["pv_cost"] if doc and n in doc["strategies"] else None
              for n in STRATEGIES]
        rec = doc["recommendation"] if doc else None
        rows.append([model.name, *[values.get(k) for k in swept], job.state,
                     model.finance.currency, *pv, rec,
                     doc["savings_vs_on_demand"][rec] if doc else None,
                     first_decisions(doc) if doc else "",
                     json.loads(job.error)["text"] % json.loads(job.error)["args"]
                     if job.error else ""])
    return header, rows


def write_summary(out: Path, header: list[str], rows: list[list]) -> None:
    with open(out.with_suffix(".csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Batch"
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    sheet.freeze_panes = "B2"
    book.save(out.with_suffix(".xlsx"))


def cmd_batch(args: argparse.Namespace) -> int:
    items, usage_path = scenarios_of(Path(args.source), args.usage)
    models = []
    for values, data in items:
        try:
            models.append((values, Scenario.model_validate(data)))
        except ValidationError as exc:
            raise UsageError(f"{values}: {'; '.join(validation_messages(exc))}") from None
    try:
        data = usage_path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{usage_path}: {exc.strerror}") from None
    try:
        app = create_app()
    except QueueRefused as exc:
        raise UsageError(str(exc)) from None
    # the workers die with the batch, however it ends (PDEATHSIG: a batch killed with -9 left
    # its workers computing, issue 40); their job children die with them (runner.die_with)
    workers = [subprocess.Popen([sys.executable, "-m", "service.cli.main", "worker", "--jobs",
                                 "1"], stdout=subprocess.DEVNULL, preexec_fn=die_with_parent)
               for _ in range(args.jobs)]
    started = time.monotonic()
    try:
        with app.app_context():
            with write_session() as s:
                user = batch_user(s)
                usage = store_usage(s, user, data, usage_path.name)
            month, owner = clock.current_month(), f"batch:{user.id}"
            ids = []
            for _values, model in models:
                text = canonical_json(model.model_dump(mode="json"))
                ids.append(records.request(
                    "plan", plan_key(revision_hash(text, usage.sha256), month),
                    plan_spec(text, usage, month), owner, ENGINE_VERSION,
                    usage_file_id=usage.id, limit=max(records.JOBS_PER_OWNER,
                                                      2 * max(args.jobs, 1))).id)
            jobs = wait_all(ids, args.timeout)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(30)
    seconds = time.monotonic() - started
    header, rows = summary_rows([(v, m, j) for (v, m), j in zip(models, jobs)])
    write_summary(Path(args.out), header, rows)
    done = sum(j.state == "done" for j in jobs)
    print(f"{done} of {len(jobs)} scenarios planned in {seconds:.1f} s "
          f"({len(jobs) / seconds * 60:.1f} per minute); summary: {args.out}.csv, "
          f"{args.out}.xlsx")
    return 0 if done == len(jobs) else 1


def wait_all(ids: list[int], timeout: float) -> list[PlanJob]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = [records.fresh(i) for i in ids]
        if all(j.state in ("done", "failed", "cancelled") for j in jobs) or \
                time.monotonic() > deadline:
            return jobs
        time.sleep(0.5)
