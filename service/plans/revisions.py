"""Creating scenarios and their immutable revisions (with the plan computed before saving)."""
from __future__ import annotations

import json
import re
from typing import Callable, Optional

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from models.scenario import Scenario
from service.web.tables import (Revision, ScenarioRecord, UsageFile, User, audit, canonical_json,
                        revision_hash, sha256)
from service.plans.cache import PlanResult, plan_for, store_plan


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
                 usage: Optional[UsageFile], *, preset: Optional[dict] = None,
                 note: str = "", result: Optional[PlanResult] = None) -> Revision:
    """A new revision; ``result`` (computed beforehand, outside the lock) is cached with it."""
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
    if result is not None:
        store_plan(revision.id, result, session=s)
    audit(s, author, "revision.create", revision=revision,
          details=f"revision {number}" + (f": {note[:200]}" if note else ""))
    return revision


def _nothing(_phase: str) -> None:
    pass


def check_plan(model: Scenario, usage: Optional[UsageFile],
               progress: Callable[[str], None] = _nothing) -> Optional[PlanResult]:
    """The plan of a would-be revision, or None without usage; raises PlanningError."""
    if usage is None:
        return None
    return plan_for(model, usage.data, usage.filename, progress)


def create_scenario(s: Session, owner: User, model: Scenario, usage: Optional[UsageFile] = None,
                    *, preset: Optional[dict] = None,
                    result: Optional[PlanResult] = None) -> Revision:
    scenario = ScenarioRecord(name=model.name, owner_id=owner.id)
    s.add(scenario)
    s.flush()
    audit(s, owner, "scenario.create", scenario_id=scenario.id, details=model.name[:200])
    return add_revision(s, scenario, owner, model, usage, preset=preset, note="created",
                        result=result)
