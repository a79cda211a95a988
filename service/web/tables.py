"""Every ORM table of the database, grouped by what it records (the migrations under
migrations/versions/ create them; migrations/env.py reads this module's metadata).

Accounts (users, API tokens, web sessions, login failures), scenarios with their immutable
revisions, usage files, plans and reviews, uploads of actual bills, the audit log, and the
request bookkeeping (idempotency keys, progress). Audit events, revisions, reviews, plans, usage
files and actual uploads are append-only, and so are scenarios that a review names: triggers
created by the migrations (0001, 0003, 0007) refuse UPDATE and DELETE, as those of 0008 do for
the alert settings, breaches and webhook posts.
"""
from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any, Optional

from sqlalchemy import Float, ForeignKey, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship

from models.ranges import upgrade_flat_keys

ROLES = ("analyst", "reviewer", "admin")
DECISIONS = ("comment", "approve", "reject", "changes")  # changes = request changes


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


class Base(DeclarativeBase):
    pass


# --- accounts: users, API tokens, login failures (service.web.throttle), browser sessions

class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    role: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    # "en" | "ko", or None: follow the browser's Accept-Language (issue 15)
    language: Mapped[Optional[str]] = mapped_column(String(8), nullable=True, default=None)

    @property
    def can_review(self) -> bool:
        return self.role in ("reviewer", "admin")


class ApiToken(Base):
    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # SHA-256 of the token
    label: Mapped[str] = mapped_column(String(80), default="")
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)


class LoginFailure(Base):
    """One row per failed login, counted over a sliding window (service.web.throttle)."""
    __tablename__ = "login_failures"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[float] = mapped_column(Float)
    username: Mapped[str] = mapped_column(String(80))
    ip: Mapped[str] = mapped_column(String(64))


class WebSession(Base):
    """One row per browser login; logout sets revoked_at (service.web.sessions)."""
    __tablename__ = "web_sessions"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    revoked_at: Mapped[Optional[str]] = mapped_column(String(20), nullable=True)


# --- scenarios, revisions, usage files, plans, reviews, audit

class UsageFile(Base):
    """An uploaded usage file, content-addressed by SHA-256 and never changed (append-only)."""
    __tablename__ = "usage_files"
    id: Mapped[int] = mapped_column(primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(255))
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)
    uploaded_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)


class ScenarioRecord(Base):
    __tablename__ = "scenarios"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    owner: Mapped[User] = relationship()
    revisions: Mapped[list["Revision"]] = relationship(
        back_populates="scenario", order_by="Revision.number")

    @property
    def latest(self) -> Optional["Revision"]:
        return self.revisions[-1] if self.revisions else None


class Revision(Base):
    """Immutable: assumptions + usage file, identified by the SHA-256 of both."""
    __tablename__ = "revisions"
    __table_args__ = (UniqueConstraint("scenario_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    number: Mapped[int]
    author_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    assumptions: Mapped[str] = mapped_column(Text)         # canonical scenario JSON
    usage_file_id: Mapped[Optional[int]] = mapped_column(ForeignKey("usage_files.id"))
    usage_sha256: Mapped[Optional[str]] = mapped_column(String(64))
    content_hash: Mapped[str] = mapped_column(String(64))
    # JSON: the presets applied (id, label, sources), a list; one preset's object before
    preset: Mapped[Optional[str]] = mapped_column(Text)
    note: Mapped[str] = mapped_column(String(500), default="")
    scenario: Mapped[ScenarioRecord] = relationship(back_populates="revisions")
    author: Mapped[User] = relationship()
    usage_file: Mapped[Optional[UsageFile]] = relationship()
    reviews: Mapped[list["Review"]] = relationship(order_by="Review.id")

    @property
    def assumptions_dict(self) -> dict:
        """The stored assumptions; uncertainty ranges saved with the flat keys of before the
        ranges mapping read as the mapping (the stored text and its hash never change)."""
        data = json.loads(self.assumptions)
        if isinstance(data, dict) and "uncertainty" in data:
            data["uncertainty"] = upgrade_flat_keys(data["uncertainty"])
        return data

    @property
    def presets(self) -> list[dict]:
        """The presets the revision was filled from, in the order they were applied (a
        context and a price preset); a revision of before presets stacked recorded one."""
        stored = json.loads(self.preset) if self.preset else []
        return stored if isinstance(stored, list) else [stored]

    @property
    def preset_dict(self) -> Optional[dict]:
        """The first preset applied (see :attr:`presets` for all of them)."""
        return self.presets[0] if self.presets else None

    @property
    def short_hash(self) -> str:
        return self.content_hash[:12]

    @property
    def status(self) -> str:
        """'approved', 'rejected', 'changes requested' or 'unreviewed': the last decision on
        this revision (each decision is a new review row; none is ever changed)."""
        decisions = [r.decision for r in self.reviews if r.decision != "comment"]
        return {"approve": "approved", "reject": "rejected",
                "changes": "changes requested"}.get(decisions[-1] if decisions else "",
                                                    "unreviewed")


    @property
    def approval(self) -> Optional["Review"]:
        """The approval in force (the last decision, when it approves), or None."""
        decisions = [r for r in self.reviews if r.decision != "comment"]
        return decisions[-1] if decisions and decisions[-1].decision == "approve" else None


def revision_hash(assumptions: str, usage_sha256: Optional[str]) -> str:
    return sha256(canonical_json({"assumptions": json.loads(assumptions),
                                  "usage_sha256": usage_sha256}).encode())


class PlanRecord(Base):
    """The plan document of a revision, computed once (the cache key is the revision);
    append-only: the plan a reviewer approved stays the plan on record."""
    __tablename__ = "plans"
    revision_id: Mapped[int] = mapped_column(ForeignKey("revisions.id"), primary_key=True)
    document: Mapped[str] = mapped_column(Text)
    charts: Mapped[str] = mapped_column(Text)
    computed_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    # the month-by-month ledger the workbook pairs with formulas (zlib-packed JSON,
    # service.plans.packing) and the engine that computed both (migration 0006)
    ledger: Mapped[Optional[bytes]] = mapped_column(LargeBinary, nullable=True)
    engine: Mapped[Optional[str]] = mapped_column(String(40), nullable=True)


class Review(Base):
    """Append-only (migration 0003): names its revision and that revision's SHA-256."""
    __tablename__ = "reviews"
    id: Mapped[int] = mapped_column(primary_key=True)
    revision_id: Mapped[int] = mapped_column(ForeignKey("revisions.id"))
    revision_hash: Mapped[Optional[str]] = mapped_column(String(64))
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    decision: Mapped[str] = mapped_column(String(40))   # one of DECISIONS (no CHECK: 0003)
    comment: Mapped[str] = mapped_column(Text, default="")
    field_path: Mapped[Optional[str]] = mapped_column(String(200))  # assumption it is about
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    # the strategy an approval approved, the baseline of plan against actual (migration
    # 0007); None on other decisions, and on approvals of before: the recommended one
    strategy: Mapped[Optional[str]] = mapped_column(String(40), nullable=True)
    reviewer: Mapped[User] = relationship()


class ActualUpload(Base):
    """One upload of a scenario's actual bills, checked against an approved revision's plan
    (its currency and months) and append-only (migration 0007): ``months`` and ``actuals``
    are JSON, the monthly actuals read from its files (service/actuals_store.py)."""
    __tablename__ = "actual_uploads"
    id: Mapped[int] = mapped_column(primary_key=True)
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    revision_id: Mapped[int] = mapped_column(ForeignKey("revisions.id"))
    uploaded_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    currency: Mapped[str] = mapped_column(String(3))
    months: Mapped[str] = mapped_column(Text)
    actuals: Mapped[str] = mapped_column(Text)
    uploader: Mapped[User] = relationship()
    revision: Mapped[Revision] = relationship()
    files: Mapped[list["ActualFile"]] = relationship(order_by="ActualFile.id")

    @property
    def month_list(self) -> list[str]:
        return json.loads(self.months)


class ActualFile(Base):
    """A bill of an actuals upload, byte for byte (append-only)."""
    __tablename__ = "actual_files"
    id: Mapped[int] = mapped_column(primary_key=True)
    upload_id: Mapped[int] = mapped_column(ForeignKey("actual_uploads.id"))
    sha256: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(String(255))
    size: Mapped[int]
    data: Mapped[bytes] = mapped_column(LargeBinary)


class AuditEvent(Base):
    """Append-only: who did what, when (UTC), to which revision (by its hash)."""
    __tablename__ = "audit_events"
    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[str] = mapped_column(String(20), default=utc_now)
    actor_id: Mapped[Optional[int]] = mapped_column(ForeignKey("users.id"))
    actor: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(40))
    scenario_id: Mapped[Optional[int]] = mapped_column(ForeignKey("scenarios.id"))
    revision_id: Mapped[Optional[int]] = mapped_column(ForeignKey("revisions.id"))
    revision_hash: Mapped[Optional[str]] = mapped_column(String(64))
    details: Mapped[str] = mapped_column(Text, default="")


def audit(session: Session, actor: Optional[User], action: str, *,
          revision: Optional[Revision] = None, scenario_id: Optional[int] = None,
          details: str = "") -> None:
    session.add(AuditEvent(
        actor_id=actor.id if actor else None, actor=actor.username if actor else "system",
        action=action, scenario_id=revision.scenario_id if revision else scenario_id,
        revision_id=revision.id if revision else None,
        revision_hash=revision.content_hash if revision else None, details=details))


# --- request bookkeeping: idempotency keys (service.web.idempotency), progress of long
# requests (service.web.progress)

class IdempotencyKey(Base):
    """The outcome of each state-changing request sent with a key (service.web.idempotency)."""
    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("user_id", "key", name="uq_idempotency_user_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    key: Mapped[str] = mapped_column(String(100))
    request: Mapped[str] = mapped_column(String(300))
    status: Mapped[int]
    location: Mapped[Optional[str]] = mapped_column(Text, nullable=True)
    body: Mapped[Optional[str]] = mapped_column(Text, nullable=True)
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)


class ProgressRecord(Base):
    __tablename__ = "progress"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    phase: Mapped[str] = mapped_column(String(20))
    updated_at: Mapped[float] = mapped_column(Float)


JOB_STATES = ("waiting", "queued", "running", "done", "failed", "cancelled")
JOB_KINDS = ("plan", "preview", "workbook", "pdf", "compare", "upload", "variance")


class PlanJob(Base):
    """One computation (a plan, a live preview, a workbook, a PDF, a waterfall), its state and
    its stored result: the record, not the queue, says whether it is done (migration 0006).

    ``(kind, key)`` is unique: the key names the inputs (a revision's content hash and
    planning month, a workbook's language and version ...), so one plan is one job however
    many people open it. A worker claims a job by writing its ``claim`` token and keeps
    ``heartbeat_at`` fresh; every later write names the token, so a worker that lost its claim
    (reaped as stale, its job given to another) writes nothing. Done rows are immutable.
    """
    __tablename__ = "plan_jobs"
    __table_args__ = (UniqueConstraint("kind", "key", name="uq_plan_jobs_kind_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    key: Mapped[str] = mapped_column(String(200))
    engine: Mapped[str] = mapped_column(String(40))
    revision_id: Mapped[Optional[int]] = mapped_column(ForeignKey("revisions.id"), nullable=True)
    usage_file_id: Mapped[Optional[int]] = mapped_column(ForeignKey("usage_files.id"),
                                                         nullable=True)
    spec: Mapped[str] = mapped_column(Text)                 # JSON: what the job computes
    owner_key: Mapped[str] = mapped_column(String(80))      # whose in-flight limit it counts in
    scope: Mapped[Optional[str]] = mapped_column(String(120), nullable=True)  # preview: superseded
    state: Mapped[str] = mapped_column(String(12), default="queued")
    stage: Mapped[Optional[str]] = mapped_column(String(20), nullable=True)
    progress: Mapped[Optional[str]] = mapped_column(Text, nullable=True)
    attempts: Mapped[int] = mapped_column(default=0)
    claim: Mapped[Optional[str]] = mapped_column(String(100), nullable=True)
    heartbeat_at: Mapped[Optional[float]] = mapped_column(Float, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    queued_at: Mapped[Optional[float]] = mapped_column(Float, nullable=True)
    started_at: Mapped[Optional[float]] = mapped_column(Float, nullable=True)
    finished_at: Mapped[Optional[float]] = mapped_column(Float, nullable=True)
    budget_seconds: Mapped[float] = mapped_column(Float)
    error: Mapped[Optional[str]] = mapped_column(Text, nullable=True)  # JSON {"text", "args"}
    document: Mapped[Optional[str]] = mapped_column(Text, nullable=True)
    charts: Mapped[Optional[str]] = mapped_column(Text, nullable=True)
    ledger: Mapped[Optional[bytes]] = mapped_column(LargeBinary, nullable=True)
    result: Mapped[Optional[bytes]] = mapped_column(LargeBinary, nullable=True)


# --- alert thresholds of plan against actual (issue 43; migration 0008, append-only):
# service/plans/alerts.py

class AlertSettings(Base):
    """A scenario's alert thresholds [%, decimal text; None: not set] and webhook URL (a
    secret, never shown back). A change is a new row; the newest row is in force."""
    __tablename__ = "alert_settings"
    id: Mapped[int] = mapped_column(primary_key=True)
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    set_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    spend_over_plan: Mapped[Optional[str]] = mapped_column(String(12), nullable=True)
    commitment_utilization: Mapped[Optional[str]] = mapped_column(String(12), nullable=True)
    owned_utilization: Mapped[Optional[str]] = mapped_column(String(12), nullable=True)
    webhook_url: Mapped[Optional[str]] = mapped_column(Text, nullable=True)


class AlertBreach(Base):
    """A threshold crossed by a month of a scenario's actuals, once per (scenario, month,
    kind): value and threshold [%] as decimal text."""
    __tablename__ = "alert_breaches"
    __table_args__ = (UniqueConstraint("scenario_id", "month", "kind",
                                       name="uq_alert_breach_once"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id"))
    revision_id: Mapped[int] = mapped_column(ForeignKey("revisions.id"))
    upload_id: Mapped[int] = mapped_column(ForeignKey("actual_uploads.id"))
    month: Mapped[str] = mapped_column(String(7))
    kind: Mapped[str] = mapped_column(String(40))
    value: Mapped[str] = mapped_column(String(24))
    threshold: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    scenario: Mapped[ScenarioRecord] = relationship()
    revision: Mapped[Revision] = relationship()


class AlertPost(Base):
    """One attempt of the webhook task to post a breach: ``posted``, ``failed`` (retried) or
    ``refused`` (a URL it will not post to), the HTTP status if any; never the URL."""
    __tablename__ = "alert_posts"
    id: Mapped[int] = mapped_column(primary_key=True)
    breach_id: Mapped[int] = mapped_column(ForeignKey("alert_breaches.id"))
    created_at: Mapped[str] = mapped_column(String(20), default=utc_now)
    outcome: Mapped[str] = mapped_column(String(20))
    status: Mapped[Optional[int]] = mapped_column(nullable=True)
