"""Plan against actual in the service (issue 43): an approved revision's baseline, uploads of a
scenario's actual bills (checked, stored append-only, audited) and what the Plan vs actual page
and the API show of them.

- The **baseline** of a revision is its stored plan's strategy that its approval in force names
  (``reviews.strategy``; an approval of before that column: the recommended strategy).
- An **upload** is one or more bills read together by the usage readers
  (service.actuals.read_bill_data), checked against a baseline: its months, and its currencies
  (a bill in the plan's foreign currency at the plan's rate, the rest of what was paid the
  ``fx`` part). A refusal (a bad row or column, a month outside the plan) saves nothing. The
  bills are stored byte for byte with the monthly actuals read from them, so a page never
  parses a bill again.
- The **actuals of a scenario** are, month by month, those of the latest upload holding that
  month: a later upload of a month corrects it, and the earlier one stays on record.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from sqlalchemy import select
from sqlalchemy.orm import Session

from models.forecast import by_line, forecast
from models.owned_actuals import Fleet, fleet_of, merge, split
from models.variance import MonthActuals, variance
from models.variance_fx import PlanMoney
from service.actuals import from_json, read_bill_data, to_json
from service.plans.revisions import usage_label
from service.plans.stored import read_plan
from service.web.db import get_session
from service.web.tables import (ActualFile, ActualUpload, Revision, ScenarioRecord, User, audit,
                                sha256)

MAX_FILES = 24           # bills in one upload (two years of monthly bills)


@dataclass(frozen=True)
class Baseline:
    """The approved strategy's monthly rows of a revision's stored plan."""
    revision: Revision
    strategy: str
    recommended: bool
    monthly: list[dict]
    currency: str
    fleet: Optional[Fleet] = None     # the plan's owned fleet, to read owned actuals against
    # the plan document's currencies (reporting, foreign and its rate): bills in the foreign
    # currency are converted at the plan's rate of their month (models/variance_fx.py)
    currencies: Optional[dict] = None

    def money(self, stated_rate: Optional[float] = None) -> PlanMoney:
        """What converts this baseline's bills, with the rate stated as paid (or None)."""
        first = str(self.monthly[0]["month"]) if self.monthly else ""
        return PlanMoney(self.currencies or {"reporting": self.currency, "fx": None}, first,
                         stated_rate)


def baseline(revision: Revision) -> Optional[Baseline]:
    """The revision's baseline, or None when no approval is in force or its plan is not
    complete (an approval needs a complete plan, so the latter is only a plan being read)."""
    approval = revision.approval
    if approval is None:
        return None
    view = read_plan(revision, start=False)
    if not view.complete or view.document is None:
        return None
    doc = view.document
    name = approval.strategy or doc["recommendation"]
    if name not in doc["strategies"]:
        return None
    currencies = doc.get("currencies") or {}
    currency = currencies.get("reporting") or "USD"    # every figure of the plan is in it
    return Baseline(revision, name, name == doc["recommendation"],
                    doc["strategies"][name]["monthly"], currency, fleet_of(doc),
                    currencies or None)


def latest_baseline(scenario: ScenarioRecord) -> Optional[Baseline]:
    """The baseline of the scenario's newest approved revision (what new actuals are read
    against), or None."""
    for revision in reversed(scenario.revisions):
        found = baseline(revision)
        if found is not None:
            return found
    return None


def read_upload_files(base: Baseline, files: list[tuple[str, bytes]],
                      stated_rate: Optional[float] = None) -> list[MonthActuals]:
    """The monthly actuals of ``files`` checked against ``base``; ``stated_rate`` the exchange
    rate the user states as paid (reporting currency per foreign unit), for bills in the
    plan's foreign currency that give no amount in the reporting currency.

    Raises
    ------
    service.ingest.core.IngestError
        A bill the readers refuse, by row and column (also: a row in a currency the plan
        has no rate for, or in its foreign currency with no rate paid to be had).
    models.variance.VarianceError
        A month outside the baseline's plan, or no month at all.
    """
    actuals = read_bill_data(files, base.currency, base.fleet, base.money(stated_rate))
    variance(base.monthly, actuals)       # every month within the plan, and the parts add up
    return actuals


def store_upload(s: Session, user: User, base: Baseline, files: list[tuple[str, bytes]],
                 actuals: list[MonthActuals]) -> ActualUpload:
    """The upload, its bills and its audit event, in ``s`` (nothing is checked here:
    :func:`read_upload_files` first)."""
    revision = base.revision
    months = [a.month for a in actuals]
    upload = ActualUpload(scenario_id=revision.scenario_id, revision_id=revision.id,
                          uploaded_by=user.id, currency=base.currency, months=json.dumps(months),
                          actuals=json.dumps(to_json(actuals)))
    s.add(upload)
    s.flush()
    names = []
    for name, data in files:
        label = usage_label(name)
        digest = sha256(data)
        s.add(ActualFile(upload_id=upload.id, sha256=digest, filename=label, size=len(data),
                         data=data))
        names.append(f"{label[:80]} sha256={digest}")
    audit(s, user, "actuals.upload", revision=s.get(Revision, revision.id),
          details=(f"upload {upload.id}: {', '.join(months)}; " + "; ".join(names))[:2000])
    return upload


def uploads(scenario_id: int, session: Optional[Session] = None) -> list[ActualUpload]:
    """The scenario's uploads, oldest first (in ``session``: a write transaction sees the
    upload it has just added; else the request's session)."""
    return list((session or get_session()).scalars(select(ActualUpload).where(
        ActualUpload.scenario_id == scenario_id).order_by(ActualUpload.id)))


def scenario_actuals(scenario_id: int, session: Optional[Session] = None
                     ) -> dict[str, tuple[MonthActuals, ActualUpload]]:
    """Per month, the actuals of the latest upload holding it, and that upload; bills and the
    owned fleet's actuals apart (models.owned_actuals.split): the latest upload of a month's
    bills gives its cloud part, the latest of its owned actuals the owned part."""
    parts: dict[str, list] = {}
    for upload in uploads(scenario_id, session):
        for month in from_json(json.loads(upload.actuals)):
            held = parts.setdefault(month.month, [None, None, upload])
            cloud, owned = split(month)
            held[0] = cloud or held[0]
            held[1] = owned or held[1]
            held[2] = upload
    return {m: (merge(c, o), u) for m, (c, o, u) in sorted(parts.items())}


def plan_vs_actual(base: Baseline, stored: Optional[dict] = None) -> Optional[dict[str, Any]]:
    """The variance document (the CLI's ``--json``: ``strategy``, ``currency``, ``months``,
    ``ytd``), with ``forecast`` and ``lines`` (models/forecast.py), ``uploads`` (per month
    the upload read) and ``outside`` (months with actuals that this plan does not hold), or
    None when the scenario has no actuals within the plan.

    Cheap enough for a request: exact arithmetic over the stored monthly actuals, no bill
    parsed, no solver (docs/README-variance.md gives the time measured). ``stored``: the
    scenario's actuals when the caller has read them already (:func:`scenario_actuals`)."""
    held = scenario_actuals(base.revision.scenario_id) if stored is None else stored
    plan_months = {str(r["month"]) for r in base.monthly}
    inside = [m for m, _u in held.values() if m.month in plan_months]
    outside = [m for m in held if m not in plan_months]
    if not inside:
        return None
    doc = variance(base.monthly, inside)
    return {"strategy": base.strategy, "currency": base.currency, **doc,
            "forecast": forecast(base.monthly, inside), "lines": by_line(base.monthly, inside),
            "uploads": {m.month: held[m.month][1].id for m in inside}, "outside": outside}
