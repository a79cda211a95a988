"""Plans of stored revisions: compute once, cache by revision, and shape chart data.

The plan document itself (design 9.3) is the engine's; this module only adds what pages need
and the engine does not give (a load-duration curve when the optimizer has not drawn one).
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from models.messages import Message
from models.plan import Plan, compute_plan
from models.profile import ProfileError
from models.scenario import Scenario
from models.strategies import PlanError
from service.web.tables import PlanRecord, Revision, UsageFile
from service.web.db import write_session
from service.xlsx.export import plan_xlsx_bytes
from service.plans.schedule_charts import schedule_charts
from service.xlsx.print_setup import PrintLabel
from service.i18n import DEFAULT, _, normalize
from service.ingest import IngestError, read_usage



class PlanningError(ValueError):
    """A scenario and usage file that the engine cannot plan (shown to the user)."""

    def __init__(self, message: str, problems: Optional[list] = None):
        super().__init__(message)
        self.problems = problems or []


@dataclass
class PlanResult:
    plan: Plan
    document: dict[str, Any]
    charts: dict[str, Any]


def _nothing(_phase: str) -> None:
    pass


def plan_for(scenario: Scenario, data: bytes, filename: str,
             progress: Callable[[str], None] = _nothing) -> PlanResult:
    """The plan of a scenario on a usage file; ``progress`` hears each phase.

    With a listener and an uncertainty section, the strategies are planned once without it
    first ("planning"), then the whole plan ("uncertainty"): the phase a person waits on is
    then true, for the price of one plan without draws (a fifth of the sample's full plan).
    """
    try:
        progress("reading")
        ingested = read_usage(data, filename)
        progress("planning")
        if progress is not _nothing and scenario.uncertainty.draws > 0:
            compute_plan(scenario.with_changes(uncertainty={"draws": 0}), ingested.profile)
            progress("uncertainty")
        plan = compute_plan(scenario, ingested.profile,
                            [Message.plain(w) for w in ingested.warnings])
    except (IngestError, ProfileError, PlanError) as exc:
        progress("failed")
        raise PlanningError(str(exc), getattr(exc, "problems", None)) from None
    document = plan.document
    json.dumps(document, allow_nan=False)  # the document must be strict JSON
    return PlanResult(plan, document, chart_data(plan, document))


def plan_for_revision(revision: Revision, progress: Callable[[str], None] = _nothing
                      ) -> PlanResult:
    if revision.usage_file is None:
        raise PlanningError(_("This revision has no usage file yet."))
    scenario = Scenario.model_validate_json(revision.assumptions)
    return plan_for(scenario, revision.usage_file.data, revision.usage_file.filename, progress)


def export_version() -> str:
    try:
        return version("buyrent")
    except PackageNotFoundError:  # running from a checkout that is not installed
        return "dev"


EXPORT_VERSION = export_version()
LAYOUT = "cohorts1"  # bumped when the workbook's layout changes without a version change


def cached_xlsx(revision: Revision, progress: Callable[[str], None] = _nothing,
                lang: str = DEFAULT) -> bytes:
    """The plan workbook of a revision in ``lang``, written once per revision content,
    language and buyrent version.

    A revision is immutable and its content hash covers assumptions and usage file, so the file
    never goes stale; it lives in the instance folder, one per instance. Writing the workbook
    costs a plan computation plus about a second of XlsxWriter, which a download should not
    repeat. A cache that cannot be written (disk full) only costs speed.
    """
    folder = Path(current_app.instance_path) / "xlsx-cache"
    lang = normalize(lang)
    path = folder / f"{revision.content_hash}-{lang}-{EXPORT_VERSION}-{LAYOUT}.xlsx"
    try:
        data = path.read_bytes()
        progress("done")
        return data
    except OSError:
        pass
    result = plan_for_revision(revision, progress)
    progress("workbook")
    data = plan_xlsx_bytes(result.document, result.plan.ledger,
                           PrintLabel(revision.scenario.name, revision.number,
                                      revision.content_hash), lang=lang)
    progress("done")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
        partial.write_bytes(data)
        os.replace(partial, path)  # readers see the whole file or none
    except OSError:
        pass
    return data


def cached_plan(session: Session, revision: Revision) -> tuple[dict, dict]:
    """(document, charts) of a revision: from the cache, else computed and stored."""
    record = session.get(PlanRecord, revision.id)
    if record is None:
        result = plan_for_revision(revision)
        store_plan(revision.id, result)
        return result.document, result.charts
    return json.loads(record.document), json.loads(record.charts)


def store_plan(revision_id: int, result: PlanResult, session: Optional[Session] = None) -> None:
    record = PlanRecord(revision_id=revision_id, document=json.dumps(result.document),
                        charts=json.dumps(result.charts))
    if session is not None:
        session.add(record)
        return
    try:
        with write_session() as s:
            if s.get(PlanRecord, revision_id) is None:
                s.add(record)
    except IntegrityError:
        pass  # computed by a concurrent request: same revision, same document


def chart_data(plan: Plan, doc: dict[str, Any]) -> dict[str, Any]:
    """Everything the plan page charts, in plain lists."""
    months = doc["months"]
    strategies = doc["strategies"]
    recommended = doc["recommendation"]
    cumulative = {name: [row["cumulative_cost"] for row in s["monthly"]]
                  for name, s in strategies.items()}
    lines = {}
    for name in next(iter(strategies.values()))["cost_lines"]:
        values = [row.get(name, 0.0) for row in strategies[recommended]["monthly"]]
        if any(abs(v) > 1e-9 for v in values):
            lines[name] = [-v if name in ("resale_credit", "tax_shield") else v for v in values]
    return {
        "months": months,
        "cumulative": cumulative,
        "by_source": {"strategy": recommended, "lines": lines},
        "load_duration": doc["charts"]["load_duration"],
        "screening": doc["charts"]["screening"],
        "uncertainty": uncertainty_chart(doc),
        "schedules": schedule_charts(plan.ledger),
    }


def uncertainty_chart(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Tornado rows (bars from the base-case saving) and the Monte Carlo histogram."""
    section = doc.get("uncertainty")
    if not section:
        return None
    tornado_judged = section.get("tornado_judged", "optimal")
    base = (doc["strategies"][section.get("tornado_baseline", "on_demand")]["pv_cost"]
            - doc["strategies"][tornado_judged]["pv_cost"])
    return {"tornado": [{"label": row["label"], "unit": row["unit"],
                         "low": f"{row['low']:.4g}", "high": f"{row['high']:.4g}",
                         "saving_low": row["saving_low"], "saving_high": row["saving_high"]}
                        for row in section["tornado"]],
            "base_saving": base,
            "tornado_baseline": section.get("tornado_baseline", "on_demand"),
            "tornado_judged": tornado_judged,
            "histogram": section["histogram"], "judged": section.get("judged", "optimal"),
            "baseline": section.get("baseline", "cloud_only")}


def profile_chart(profile) -> dict[str, Any]:
    """GPU-hours per period of an uploaded profile (daily sums when hourly, for the preview)."""
    starts = profile.starts
    total = profile.steady + profile.interruptible
    busy = getattr(profile, "busy", None)          # busy GPU-hours, NaN where not measured
    if profile.period == "hour" and len(total) > 24 * 14:
        days = starts.astype("datetime64[D]")
        keys, position = np.unique(days, return_inverse=True)
        out = {"x": [str(k) for k in keys],
               "steady": np.bincount(position, profile.steady).tolist(),
               "interruptible": np.bincount(position, profile.interruptible).tolist(),
               "per": "day"}
        if busy is not None:
            measured = np.bincount(position, ~np.isnan(busy)) > 0
            out["busy"] = [v if m else None for v, m in zip(
                np.bincount(position, np.nan_to_num(busy)).tolist(), measured)]
        return out
    out = {"x": [str(s) for s in starts], "steady": profile.steady.tolist(),
           "interruptible": profile.interruptible.tolist(), "per": profile.period}
    if busy is not None:
        out["busy"] = [None if np.isnan(v) else float(v) for v in busy]
    return out


def usage_file(session: Session, file_id: int) -> Optional[UsageFile]:
    return session.get(UsageFile, file_id)
