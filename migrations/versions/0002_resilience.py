"""Resilience (issue 8): login failures, server-side sessions, idempotency keys.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

Additive only: three new tables, nothing existing changes.
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # One row per failed login; counted over a sliding window (service.web.throttle).
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),            # UNIX time, seconds
        sa.Column("username", sa.String(80), nullable=False),
        sa.Column("ip", sa.String(64), nullable=False),
    )
    op.create_index("ix_login_failures_username_at", "login_failures", ["username", "at"])
    op.create_index("ix_login_failures_ip_at", "login_failures", ["ip", "at"])
    # One row per browser login; logout sets revoked_at (service.web.sessions).
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.Column("revoked_at", sa.String(20)),
    )
    # The outcome of each state-changing request sent with a key (service.web.idempotency).
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("request", sa.String(300), nullable=False),   # "POST /path"
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("location", sa.Text),
        sa.Column("body", sa.Text),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.UniqueConstraint("user_id", "key", name="uq_idempotency_user_key"),
    )


def downgrade() -> None:
    for table in ("idempotency_keys", "web_sessions", "login_failures"):
        op.drop_table(table)
