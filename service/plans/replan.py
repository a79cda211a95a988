"""Re-plan from the actuals (issue 43): a new revision of a scenario made from where the team
really stands after the months with actuals, planned by the job queue like every revision.

From the baseline (an approved revision's plan and the strategy its approval names) and the
scenario's actuals up to their last month L:

- ``position``: the baseline strategy's purchases, sales and signings executed through L
  (models/actual_position.py), on top of what the scenario already held; where the owned
  fleet's actuals cover every month through L, the purchases and sales they show instead
  (a server delivered late is held from its month delivered, at the price paid);
- usage: the revision's usage with the GPU-hours the actuals give appended month by month
  (the plan's for a month without actuals), cut to the whole years that end with L
  (models/actual_usage.py), stored as a new usage file: a CSV of ``timestamp``,
  ``gpu_hours`` (and ``workload`` when the usage had it), one row per period and workload,
  at the usage's own period (one row a month for a monthly usage);
- ``finance.start_month`` the month after L and ``finance.horizon_months`` the approved
  plan's months left, so the re-plan ends with the approved plan and its stored plan's key
  (the revision's content hash) holds its start whatever the current month;
- ``proposed.schedule``: the decisions after L (the earlier ones are in the past); when the
  approved strategy is the proposal itself, its servers and commitments are held now, so the
  re-plan proposes keeping what is held (or the schedule's decisions still to come).

The revision's note says which approved revision and last month it was made from
(``re-planned from rN with actuals to YYYY-MM``), which is how the Plan vs actual page finds
it; nothing else is stored.
"""
from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from sqlalchemy.orm import Session

from models.actual_position import ServerEvent, held_position, planned_events
from models.actual_usage import UsageAppendError, append_months
from models.capacity import month_index
from models.owned_actuals import owned_rows, server_events
from models.profile import UsageProfile
from models.replanned_forecast import replanned_forecast
from models.scenario import Scenario
from models.variance import SOURCES, MonthActuals
from models.refusals import Worded
from service.plans.actuals import Baseline, scenario_actuals
from service.plans.live import usage_profile
from service.plans.revisions import add_revision, preflight, store_usage
from service.plans.stored import read_plan, stored_record
from service.web.tables import (Revision, ScenarioRecord, User, canonical_json, revision_hash,
                                sha256)

NOTE = "re-planned from r{number} with actuals to {month}"
NOTE_PATTERN = re.compile(r"re-planned from r(\d+) with actuals to (\d{4}-\d{2})")
# refusals in the reader's language (service/i18n/replan_words.py repeats them for pybabel)
MESSAGES = (
    "No actual bills within the approved plan's months yet: a re-plan starts after them.",
    "The actuals reach the approved plan's last month (%(month)s): no month is left to plan.",
    "The approved plan plans on busy GPU-hours; the bills give allocated ones, so a re-plan "
    "needs the demand basis 'allocated'.",
    "The position after %(month)s cannot be held as a scenario: %(reason)s",
)


class ReplanError(Worded):
    """A re-plan that cannot be made (``template`` one of MESSAGES, or of
    models.actual_usage.MESSAGES)."""


@dataclass(frozen=True)
class Replan:
    """What a re-plan revision is made of."""
    model: Scenario
    profile: UsageProfile
    csv: bytes
    filename: str
    note: str
    last_actual: str


def actuals_within(base: Baseline, stored: Optional[dict] = None) -> list[MonthActuals]:
    """The scenario's actuals in the baseline's months (the latest upload of each month);
    ``stored``: :func:`service.plans.actuals.scenario_actuals` when already read."""
    months = {str(r["month"]) for r in base.monthly}
    if stored is None:
        stored = scenario_actuals(base.revision.scenario_id)
    return [m for m, _u in stored.values() if m.month in months]


def month_gpu_hours(row: dict, actual: Optional[MonthActuals]) -> float:
    """GPU-hours used in a month over the four sources: the actuals', a source they do not
    give at the plan's (as the variance takes it) [GPU-hours]."""
    given = actual.gpu_hours if actual is not None else {}
    return float(sum(given.get(s, row.get(field, 0.0)) for s, (field, _l) in SOURCES.items()))


def usage_csv(profile: UsageProfile) -> bytes:
    """A profile as the usage CSV reads it back: one row per period (and workload)."""
    fmt = {"hour": "%Y-%m-%dT%H:%M:%S", "day": "%Y-%m-%d", "month": "%Y-%m"}[profile.period]
    stamps = [t.strftime(fmt) for t in profile.starts.astype("datetime64[s]").tolist()]
    out = io.StringIO()
    if profile.has_workload:
        out.write("timestamp,gpu_hours,workload\n")
        for t, s, i in zip(stamps, profile.steady.tolist(), profile.interruptible.tolist()):
            out.write(f"{t},{s!r},steady\n{t},{i!r},interruptible\n")
    else:
        out.write("timestamp,gpu_hours\n")
        for t, v in zip(stamps, (profile.steady + profile.interruptible).tolist()):
            out.write(f"{t},{v!r}\n")
    return out.getvalue().encode()


def actual_server_events(actuals: dict[str, MonthActuals], first: str, last: str
                         ) -> Optional[list[ServerEvent]]:
    """The purchases and sales the owned fleet's actuals show, when they cover every month
    of the plan up to ``last`` (then they replace the schedule's: a server delivered late is
    held from its month delivered, at the price paid); None otherwise, and the schedule's
    purchases and sales stand for the months before ``last`` (a month without owned
    actuals says nothing of what was bought in it)."""
    months = {str(np.datetime64(first, "M") + k) for k in range(month_index(last, first) + 1)}
    covered = {m for m, a in actuals.items() if a.owned is not None}
    if not months <= covered:
        return None
    return [ServerEvent(**e) for e in server_events(owned_rows(actuals.values()))]


def build_replan(base: Baseline) -> Replan:
    """The new revision's assumptions and usage, from the baseline and the actuals.

    Raises
    ------
    ReplanError
        No actuals in the plan's months, none left to plan, a busy demand basis, or usage
        that cannot take the months (a gap, a usage ending inside a month).
    """
    revision = base.revision
    actuals = {a.month: a for a in actuals_within(base)}
    if not actuals:
        raise ReplanError(MESSAGES[0])
    view = read_plan(revision, start=False)
    doc = view.document
    first, horizon = doc["months"][0], len(doc["months"])
    last = max(actuals)
    left = horizon - (month_index(last, first) + 1)
    if left <= 0:
        raise ReplanError(MESSAGES[1], month=doc["months"][-1])
    scenario = Scenario.model_validate(revision.assumptions_dict)
    if scenario.profile.demand_basis == "busy":
        raise ReplanError(MESSAGES[2])
    events, signings = planned_events(scenario, doc["strategies"][base.strategy], first,
                                      horizon)
    start = str(np.datetime64(last, "M") + 1)
    data = scenario.model_dump(mode="json")
    try:
        position = held_position(scenario, first, last, events, signings,
                                 actual_server_events(actuals, first, last))
        data["position"] = position.model_dump(mode="json")
        data["finance"].update(start_month=start, horizon_months=left)
        proposed = data["proposed"]
        proposed["schedule"] = [d for d in proposed["schedule"] if d["month"] > last]
        if base.strategy == "proposed":
            # the approved proposal is now held (its servers and contracts are the position):
            # proposing them again would add them on top, so the re-plan proposes keeping
            # what is held, or the decisions of its schedule still to come
            proposed.update(servers=None, servers_by_type={}, committed_gpus={},
                            hold_only=not proposed["schedule"])
        model = Scenario.model_validate(data)
    except ValueError as exc:        # a pydantic ValidationError is one
        raise ReplanError(MESSAGES[3], month=last, reason=str(exc).splitlines()[0]) from None
    profile = usage_profile(revision.usage_file)
    end = str(profile.starts[-1].astype("datetime64[M]"))
    rows = {str(r["month"]): r for r in base.monthly}
    hours = {}
    for month in (str(np.datetime64(end, "M") + k)
                  for k in range(1, month_index(last, end) + 1)):
        if month in rows:
            hours[month] = month_gpu_hours(rows[month], actuals.get(month))
    try:
        extended = append_months(profile, hours)
    except UsageAppendError as exc:
        raise ReplanError(exc.template, **exc.values) from None
    return Replan(model, extended, usage_csv(extended),
                  f"usage-r{revision.number}-actuals-to-{last}.csv",
                  NOTE.format(number=revision.number, month=last), last)


def same_replan(base: Baseline, plan: Replan) -> Optional[Revision]:
    """A revision of the scenario that already is this re-plan (same assumptions and usage),
    so that a second click makes no second revision."""
    digest = revision_hash(canonical_json(plan.model.model_dump(mode="json")),
                           sha256(plan.csv))
    return next((r for r in base.revision.scenario.revisions
                 if r.content_hash == digest and replanned_from(r) is not None), None)


def check_replan(plan: Replan) -> None:
    """The engine's quick check of a re-plan before it is saved (service.plans.revisions
    .preflight: its calendar, demand bound and problem size; milliseconds).

    Raises
    ------
    models.refusals.Refusal
        The engine cannot plan it at all."""
    preflight(plan.model, profile=plan.profile)


def make_replan(s: Session, user: User, base: Baseline, plan: Replan) -> Revision:
    """The re-plan's usage file and revision, in ``s`` (its plan job is written with it and
    queued by ``ensure_plan`` after the commit; :func:`check_replan` first)."""
    usage = store_usage(s, user, plan.csv, plan.filename)
    return add_revision(s, s.get(ScenarioRecord, base.revision.scenario_id), user, plan.model,
                        usage, note=plan.note)


def replanned_from(revision: Revision) -> Optional[tuple[int, str]]:
    """(approved revision number, last actual month) of a re-plan revision, else None."""
    found = NOTE_PATTERN.fullmatch(revision.note or "")
    return (int(found.group(1)), found.group(2)) if found else None


def latest_replan(base: Baseline) -> Optional[Revision]:
    """The newest revision re-planned from ``base``'s revision, or None."""
    for revision in reversed(base.revision.scenario.revisions):
        made = replanned_from(revision)
        if made is not None and made[0] == base.revision.number:
            return revision
    return None


def replanned_column(base: Baseline, doc: Optional[dict], stored: Optional[dict] = None
                     ) -> Optional[dict[str, Any]]:
    """The forecast re-planned of the Plan vs actual page (models/replanned_forecast.py: the
    actuals to date, then the newest re-plan's recommended strategy), with ``revision`` and
    ``strategy``; None without actuals, a re-plan, or its complete plan. ``stored``: the
    scenario's actuals as the page read them (read here otherwise)."""
    if doc is None:
        return None
    revision = latest_replan(base)
    if revision is None:
        return None
    record = stored_record(revision)          # the document only: its charts are not read
    if record is None:
        view = read_plan(revision, start=False)      # a job done, its record not yet written
        if not view.complete or view.document is None:
            return {"revision": revision, "complete": False}
        document = view.document
    else:
        document = json.loads(record.document)
    name = document["recommendation"]
    out = replanned_forecast(base.monthly, actuals_within(base, stored),
                             document["strategies"][name]["monthly"])
    return {**out, "revision": revision, "strategy": name, "complete": True}
