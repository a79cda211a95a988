"""Creating scenarios and their immutable revisions; their plans are computed by plan jobs
(service.plans.stored), after a quick check that the engine can plan them at all."""
from __future__ import annotations

import json
import re
from typing import Optional

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models.plan import build_state
from models.problem_size import check_size
from models.profile import UsageProfile
from models.refusals import Refusal
from models.scenario import Scenario
from service import clock
from service.web.tables import (Revision, ScenarioRecord, UsageFile, User, audit, canonical_json,
                        revision_hash, sha256)
from service.plans.jobs.compute import pack_ledger
from service.plans.jobs.versions import ENGINE_VERSION
from service.plans.live import usage_profile
from service.plans.planning import ComputedPlan
from service.plans.stored import plan_options, stage_plan
from service.web.tables import PlanRecord


def usage_label(filename: str) -> str:
    """The client's file name reduced to a display label: no directories, no NUL or control
    characters (PostgreSQL refuses NUL in text). Files are stored by content, never by name."""
    name = re.split(r"[\\/]", filename or "")[-1]
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    return name[:255] or "upload"


def store_usage(s: Session, user: User, data: bytes, filename: str) -> UsageFile:
    filename = usage_label(filename)
    digest = sha256(data)
    existing = s.scalar(select(UsageFile).where(UsageFile.sha256 == digest,
                                                UsageFile.uploaded_by == user.id))
    if existing is not None:
        return existing
    row = UsageFile(sha256=digest, filename=filename[:255], size=len(data), data=data,
                    uploaded_by=user.id)
    s.add(row)
    s.flush()
    audit(s, user, "usage.upload", details=f"{filename[:200]} sha256={digest}")
    return row


def add_revision(s: Session, scenario: ScenarioRecord, author: User, model: Scenario,
                 usage: Optional[UsageFile], *, preset: Optional[list[dict]] = None,
                 note: str = "", result: Optional[ComputedPlan] = None) -> Revision:
    """A new revision; ``result`` (a plan computed beforehand: seeds and tests) is stored
    with it, else its plan job is written with it (service.plans.stored.stage_plan) and
    queued by ``ensure_plan`` after the commit."""
    assumptions = canonical_json(model.model_dump(mode="json"))
    # Lock the scenario row so concurrent saves number revisions one after the other on
    # PostgreSQL (SQLite's BEGIN IMMEDIATE already serialises writers; FOR UPDATE is a no-op).
    s.execute(select(ScenarioRecord.id).where(ScenarioRecord.id == scenario.id)
              .with_for_update())
    number = (s.scalar(select(func.max(Revision.number))
                       .where(Revision.scenario_id == scenario.id)) or 0) + 1
    revision = Revision(scenario_id=scenario.id, number=number, author_id=author.id,
                        assumptions=assumptions, usage_file_id=usage.id if usage else None,
                        usage_sha256=usage.sha256 if usage else None,
                        content_hash=revision_hash(assumptions, usage.sha256 if usage else None),
                        preset=json.dumps(preset) if preset else None, note=note[:500])
    s.add(revision)
    s.flush()
    scenario.name = model.name
    if result is None and usage is not None:
        stage_plan(s, revision, usage, f"user:{author.id}")
    elif result is not None:
        s.add(PlanRecord(revision_id=revision.id, document=json.dumps(result.document),
                         charts=json.dumps(result.charts),
                         ledger=pack_ledger(result.plan.ledger), engine=ENGINE_VERSION))
    audit(s, author, "revision.create", revision=revision,
          details=f"revision {number}" + (f": {note[:200]}" if note else ""))
    return revision


def preflight(model: Scenario, usage: Optional[UsageFile] = None,
              profile: Optional[UsageProfile] = None) -> None:
    """Refuse before saving what the engine cannot plan at all (its calendar, its demand's
    bound, its MILPs' size: models/problem_size.py): build the plan's context, a few
    milliseconds, on the usage's parsed profile (kept by the file's hash), and count its
    MILPs' columns without building them. The plan itself is a job; what only planning finds,
    the plan page shows as the job's reason.

    Raises
    ------
    Refusal
        The usage cannot be read, or the scenario cannot be planned on it.
    """
    if profile is None:
        if usage is None:
            return
        profile = usage_profile(usage)
    check_size(build_state(model, profile, clock.current_month()),
               plan_options().growth_range_paths)


def create_scenario(s: Session, owner: User, model: Scenario, usage: Optional[UsageFile] = None,
                    *, preset: Optional[list[dict]] = None,
                    result: Optional[ComputedPlan] = None, note: str = "created") -> Revision:
    """A new scenario of ``owner`` and its revision 1 (``note``: where it came from, the
    notes service.i18n.labels.revision_note translates)."""
    scenario = ScenarioRecord(name=model.name, owner_id=owner.id)
    s.add(scenario)
    s.flush()
    audit(s, owner, "scenario.create", scenario_id=scenario.id, details=model.name[:200])
    return add_revision(s, scenario, owner, model, usage, preset=preset, note=note,
                        result=result)
