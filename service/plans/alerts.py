"""A scenario's alert settings and breaches in the database (tables ``alert_settings``,
``alert_breaches``, ``alert_posts``: migration 0008_thresholds, all append-only).

- **Settings**: a change is a new row, the newest is in force. They are not a plan input:
  saving them makes no revision. The webhook URL is kept as typed (it is a secret: pages,
  the API, the log and the audit say "configured", never the URL). A form left empty keeps
  the URL in force; removing it is a choice of its own.
- **Breaches** are evaluated when actuals are uploaded, in the upload's own transaction,
  from the stored monthly actuals (the Plan vs actual page's variance document: exact
  arithmetic, no bill parsed again, no solver), and recorded once per (scenario, month,
  kind): a later upload that corrects a month records nothing more for a kind already
  breached (the first breach stays on record), and a month that later breaches another
  kind records that one. Each new breach is an audit event ``alert.breach``.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Optional, Sequence

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session

from models.scenario import Scenario
from models.scenario_owned import type_owned
from models.thresholds import KINDS, Breach, Thresholds, evaluate, owned_installed, \
    percent_text
from models.variance import variance
from service.i18n.alert_words import badge, sentence
from service.plans.actuals import Baseline, scenario_actuals
from service.web.db import get_session
from service.web.tables import (ActualUpload, AlertBreach, AlertSettings, ScenarioRecord, User,
                                audit)

KEEP, CLEAR = "keep", "clear"


def settings_row(scenario_id: int, session: Optional[Session] = None
                 ) -> Optional[AlertSettings]:
    """The settings in force: the scenario's newest row, or None."""
    return (session or get_session()).scalar(
        select(AlertSettings).where(AlertSettings.scenario_id == scenario_id)
        .order_by(AlertSettings.id.desc()).limit(1))


def thresholds_of(row: Optional[AlertSettings]) -> Thresholds:
    if row is None:
        return Thresholds()
    return Thresholds(**{k: Decimal(getattr(row, k)) for k in KINDS
                         if getattr(row, k) is not None})


def deployment_webhook() -> Optional[str]:
    """The deployment's webhook (``BUYRENT_ALERT_WEBHOOK_URL``), for every scenario without
    its own."""
    return current_app.config.get("ALERT_WEBHOOK_URL") or None


def local_allowed() -> bool:
    """Posts to loopback and private addresses (and plain http to them): a test's setting,
    ``ALERT_WEBHOOK_ALLOW_LOCAL``, honoured only in a testing app."""
    return bool(current_app.config.get("ALERT_WEBHOOK_ALLOW_LOCAL")
                and current_app.config.get("TESTING"))


def webhook_of(row: Optional[AlertSettings]) -> Optional[str]:
    """The webhook a breach of the scenario is posted to: its own, else the deployment's."""
    return (row.webhook_url if row is not None else None) or deployment_webhook()


def _settings_text(t: Thresholds, webhook: str) -> str:
    """The audit's words for settings (English, as every audit detail; never the URL)."""
    def shown(k: str) -> str:
        value = getattr(t, k)
        return "-" if value is None else f"{value} %"
    return (f"spend over plan above {shown('spend_over_plan')}; commitment utilization "
            f"under {shown('commitment_utilization')}; owned server utilization under "
            f"{shown('owned_utilization')}; webhook {webhook}")


def save_settings(s: Session, user: User, scenario: ScenarioRecord, thresholds: Thresholds,
                  webhook: str) -> AlertSettings:
    """A new settings row and its audit event. ``webhook``: :data:`KEEP` the URL in force,
    :data:`CLEAR` it, or a new URL (checked by the caller: service.plans.webhook.check_url).
    """
    before = settings_row(scenario.id, s)
    if webhook == KEEP:
        url = before.webhook_url if before is not None else None
        said = "configured" if url else "not configured"
    elif webhook == CLEAR:
        url, said = None, "removed"
    else:
        url, said = webhook, "configured (new)"
    row = AlertSettings(scenario_id=scenario.id, set_by=user.id, webhook_url=url,
                        **{k: (None if getattr(thresholds, k) is None
                               else str(getattr(thresholds, k))) for k in KINDS})
    s.add(row)
    audit(s, user, "alert.settings", scenario_id=scenario.id,
          details=_settings_text(thresholds, said))
    return row


def owned_capacity(base: Baseline) -> dict[str, float]:
    """Owned GPU-hours installed per month of the baseline (its revision's servers)."""
    model = Scenario.model_validate(base.revision.assumptions_dict)
    by_type = {t.id: type_owned(model.owned, t).gpus_per_server for t in model.server_types}
    return owned_installed(base.monthly, model.owned.gpus_per_server, by_type)


def evaluate_scenario(s: Session, base: Baseline) -> list[Breach]:
    """The breaches of the scenario's actuals against ``base`` under the settings in force
    (as ``s`` sees them), whether recorded yet or not."""
    thresholds = thresholds_of(settings_row(base.revision.scenario_id, s))
    if all(getattr(thresholds, k) is None for k in KINDS):
        return []
    held = scenario_actuals(base.revision.scenario_id, s)
    plan_rows = {str(r["month"]): r for r in base.monthly}
    inside = [m for m, _u in held.values() if m.month in plan_rows]
    if not inside:
        return []
    doc = variance(base.monthly, inside)
    installed = owned_capacity(base) if thresholds.owned_utilization is not None else {}
    return evaluate(doc["months"], plan_rows, thresholds, installed)


def record_breaches(s: Session, user: User, base: Baseline, upload: ActualUpload) -> list[int]:
    """Evaluate the thresholds after ``upload`` (added to ``s``, not yet committed) and record
    each breach not recorded before, with its audit event; the new breaches' ids."""
    found = evaluate_scenario(s, base)
    if not found:
        return []
    scenario_id = base.revision.scenario_id
    known = {(b.month, b.kind) for b in s.scalars(select(AlertBreach).where(
        AlertBreach.scenario_id == scenario_id))}
    new = []
    for breach in found:
        if (breach.month, breach.kind) in known:
            continue
        row = AlertBreach(scenario_id=scenario_id, revision_id=base.revision.id,
                          upload_id=upload.id, month=breach.month, kind=breach.kind,
                          value=percent_text(breach.value),
                          threshold=percent_text(breach.threshold))
        s.add(row)
        s.flush()
        audit(s, user, "alert.breach", revision=base.revision,
              details=f"{breach.month} {breach.kind}: {row.value} % (threshold "
                      f"{row.threshold} %), upload {upload.id}")
        new.append(row.id)
    return new


def breaches_by_scenario(scenario_ids: Iterable[int]) -> dict[int, list[AlertBreach]]:
    """The recorded breaches of each scenario, newest month first."""
    ids = list(scenario_ids)
    out: dict[int, list[AlertBreach]] = {i: [] for i in ids}
    if not ids:
        return out
    rows = get_session().scalars(select(AlertBreach).where(
        AlertBreach.scenario_id.in_(ids)).order_by(AlertBreach.month.desc(), AlertBreach.id))
    for row in rows:
        out[row.scenario_id].append(row)
    return out


def badges(rows: Sequence[AlertBreach]) -> list[dict]:
    """What the list of scenarios shows of a scenario's breaches: per kind breached (in the
    order of KINDS) its words, the latest month, how many other months, and the revision of
    the latest (its Plan vs actual page)."""
    out = []
    for kind in KINDS:
        mine = sorted((r for r in rows if r.kind == kind), key=lambda r: r.month)
        if mine:
            out.append({"kind": kind, "words": badge(kind), "month": mine[-1].month,
                        "more": len({r.month for r in mine}) - 1,
                        "number": mine[-1].revision.number})
    return out


def scenario_badges(scenarios: Iterable[ScenarioRecord]) -> dict[int, list[dict]]:
    """:func:`badges` of each scenario of a list (one query)."""
    return {k: badges(v) for k, v in breaches_by_scenario(s.id for s in scenarios).items()}


def alerts_json(scenario_id: int) -> dict:
    """The API's ``alert_settings`` (which webhook is configured, never its URL) and
    ``alerts`` of a scenario."""
    row = settings_row(scenario_id)
    own = row is not None and bool(row.webhook_url)
    webhook = "scenario" if own else ("deployment" if deployment_webhook() else None)
    rows = breaches_by_scenario([scenario_id])[scenario_id]
    return {"alert_settings": {**{k: getattr(row, k) if row is not None else None
                                  for k in KINDS}, "webhook": webhook},
            "alerts": [{"month": r.month, "kind": r.kind, "value": r.value,
                        "threshold": r.threshold, "revision": r.revision.number,
                        "created_at": r.created_at}
                       for r in sorted(rows, key=lambda r: (r.month, r.id))]}


def revision_breaches(revision_id: int) -> list[tuple[AlertBreach, str]]:
    """The breaches recorded against a revision's plan, by month, each with its sentence in
    the current language (the Plan vs actual page)."""
    rows = get_session().scalars(select(AlertBreach).where(
        AlertBreach.revision_id == revision_id).order_by(AlertBreach.month, AlertBreach.id))
    return [(r, sentence(r.kind, r.month, r.value, r.threshold)) for r in rows]
