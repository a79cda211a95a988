"""What a job computes, in the worker's child process: no database, no Flask app.

The worker hands the child a job's kind, its spec (JSON) and its inputs (the usage file's bytes,
a stored document and ledger); the child sends back, over a pipe, ``("stage", name, document,
charts)`` as each stage of a plan is ready, then ``("done", {...})`` or ``("error", reason)``.
HiGHS writes nothing here that a page or the CLI would see (the child's stdout is /dev/null:
service.plans.jobs.runner).
"""
from __future__ import annotations

import dataclasses
import json
import zlib
from typing import Any, Callable, NamedTuple

from pydantic import ValidationError

from models.ledger import Ledger
from models.messages import Message
from models.plan import Planner
from models.plan_options import PlanOptions
from models.refusals import Refusal
from models.scenario import Scenario
from models.start import plan_start_month, usage_notes
from models.variance import MonthActuals
from service.ingest import read_usage
from service.plans.attribution import Step, Waterfall, attribute
from service.plans.planning import chart_data
from service.xlsx.export import WorkbookUnavailable, plan_xlsx_bytes
from service.xlsx.variance_sheet import variance_xlsx_bytes
from service.xlsx.print_setup import PrintLabel
from service.i18n import N_
from service.plans.jobs.reading import run_upload
from service.plans.jobs.records import error_json

Send = Callable[[tuple], None]
REFUSED = (Refusal, ValidationError)   # said to the person as the job's reason
UNWRITTEN = (WorkbookUnavailable,)


class StoredUsage(NamedTuple):
    """A usage file as the child gets it (service.plans.live reads these three fields)."""
    data: bytes
    filename: str
    sha256: str


def pack_ledger(ledger: Ledger) -> bytes:
    """The ledger as zlib-compressed strict JSON (floats written exactly: repr round-trips)."""
    return zlib.compress(json.dumps(ledger.to_dict(), allow_nan=False).encode(), 6)


def unpack_ledger(data: bytes) -> Ledger:
    return Ledger.from_dict(json.loads(zlib.decompress(data)))


def strict(value: Any) -> str:
    return json.dumps(value, allow_nan=False)


def input_warnings(ingested, scenario: Scenario, month: str) -> list[Message]:
    """What reading the usage warned about, and the usage's age and length (models.start)."""
    notes = usage_notes(ingested.profile, month,
                        plan_start_month(scenario, ingested.profile, month))
    return [Message.plain(w) for w in ingested.warnings] + notes


def planner_for(spec: dict, usage: bytes) -> Planner:
    scenario = Scenario.model_validate_json(spec["scenario"])
    ingested = read_usage(usage, spec["filename"])
    return Planner(scenario, ingested.profile, input_warnings(ingested, scenario, spec["month"]),
                   current_month=spec["month"],
                   options=PlanOptions.from_dict(spec.get("options")))


def run_plan(spec: dict, inputs: dict, send: Send, uncertainty: bool = True) -> None:
    """A plan by stages: static strategies, then the staged schedule, then (``uncertainty``)
    the robust plan, the Monte Carlo, tornado and ledger. A live preview (``uncertainty``
    False) stops after the schedule."""
    planner = planner_for(spec, inputs["usage"])
    planner.check_size(robust=uncertainty)      # refused before any solve, not after two
    planner.add_static()
    plan = planner.plan("static")
    send(("stage", "static", strict(plan.document), strict(chart_data(plan, plan.document))))
    planner.add_staged(robust=False)
    if not uncertainty:      # a live preview shows no robust plan
        plan = planner.plan("staged")
        send(("done", {"document": strict(plan.document),
                       "charts": strict(chart_data(plan, plan.document))}))
        return
    plan = planner.plan("staged")      # shown while the robust plan and the Monte Carlo run
    send(("stage", "staged", strict(plan.document), strict(chart_data(plan, plan.document))))
    planner.add_robust()
    plan = planner.plan("complete", uncertainty=True)
    send(("done", {"document": strict(plan.document),
                   "charts": strict(chart_data(plan, plan.document)),
                   "ledger": pack_ledger(plan.ledger)}))


def run_workbook(spec: dict, inputs: dict, send: Send) -> None:
    """The workbook of a stored plan; a plan stored before plans kept their ledger is planned
    again for it (same revision, same planning month)."""
    if inputs.get("ledger") is None:
        planner = planner_for(spec, inputs["usage"])
        planner.add_static()
        planner.add_staged()
        plan = planner.plan("complete", uncertainty=True)
        document, ledger = plan.document, plan.ledger
    else:
        document, ledger = json.loads(inputs["document"]), unpack_ledger(inputs["ledger"])
    label = PrintLabel(*spec["label"])
    send(("done", {"result": plan_xlsx_bytes(document, ledger, label, lang=spec["lang"])}))


def run_variance(spec: dict, inputs: dict, send: Send) -> None:
    """The Plan vs actual workbook (service/xlsx/variance_sheet.py) of a revision's stored
    plan, its approved strategy and the monthly actuals the spec holds (its key hashes
    them: service/plans/variance_download.py)."""
    document = json.loads(inputs["document"])
    monthly = document["strategies"][spec["strategy"]]["monthly"]
    actuals = [MonthActuals(**row) for row in spec["actuals"]]
    send(("done", {"result": variance_xlsx_bytes(monthly, actuals, spec["strategy"],
                                                 spec["currency"], spec["label"],
                                                 lang=spec["lang"])}))


def waterfall_json(w: Waterfall) -> str:
    return json.dumps(dataclasses.asdict(w))


def waterfall_from_json(text: str) -> Waterfall:
    data = json.loads(text)
    return Waterfall(data["start_cents"], data["start_recommendation"],
                     [Step(**step) for step in data["steps"]], data["skipped"])


def run_compare(spec: dict, inputs: dict, send: Send) -> None:
    """The waterfall between two revisions (service.plans.attribution): a plan per changed
    assumption group."""
    result = attribute(spec["a"], StoredUsage(*inputs["usage_a"]), spec["b"],
                       StoredUsage(*inputs["usage_b"]), spec["month"])
    send(("done", {"result": waterfall_json(result).encode()}))


RUNS = {"plan": run_plan,
        "preview": lambda spec, inputs, send: run_plan(spec, inputs, send, uncertainty=False),
        "workbook": run_workbook, "compare": run_compare, "upload": run_upload,
        "variance": run_variance}


def run(kind: str, spec: dict, inputs: dict, send: Send) -> None:
    """Compute one job; a scenario the engine refuses is sent as an error, not raised."""
    try:
        RUNS[kind](spec, inputs, send)
    except UNWRITTEN as exc:
        send(("error", error_json("%(reason)s", reason=exc)))
    except REFUSED as exc:
        send(("error", error_json(N_("The engine cannot plan this: %(reason)s"), reason=exc)))

