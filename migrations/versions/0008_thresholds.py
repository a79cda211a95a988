"""Alert thresholds of plan against actual (issue 43): settings, breaches, webhook posts.

Revision ID: 0008_thresholds
Revises: 0007_actuals
Create Date: 2026-12-07

- ``alert_settings``: a scenario's alert thresholds [%] (spend over plan, utilization of
  commitments, of owned servers; NULL = no alert of that kind) and its webhook URL (a secret:
  never shown back). Append-only history: a change is a new row, the scenario's newest row
  is in force. Not a plan input: no revision is made.
- ``alert_breaches``: a threshold crossed by a month of actuals, recorded once per
  (scenario, month, kind) (a unique constraint), with the value and threshold [%] as decimal
  text, the revision and upload it was read from.
- ``alert_posts``: each attempt of the webhook task to post a breach (outcome and HTTP status
  only; never the URL).
All three are append-only (UPDATE and DELETE refused by triggers, TRUNCATE too on PostgreSQL).
"""
from alembic import op
import sqlalchemy as sa

revision = "0008_thresholds"
down_revision = "0007_actuals"
branch_labels = None
depends_on = None

APPEND_ONLY = ("alert_settings", "alert_breaches", "alert_posts")


def upgrade() -> None:
    op.create_table(
        "alert_settings",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id"), nullable=False),
        sa.Column("set_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.Column("spend_over_plan", sa.String(12), nullable=True),
        sa.Column("commitment_utilization", sa.String(12), nullable=True),
        sa.Column("owned_utilization", sa.String(12), nullable=True),
        sa.Column("webhook_url", sa.Text, nullable=True),
    )
    op.create_index("ix_alert_settings_scenario", "alert_settings", ["scenario_id"])
    op.create_table(
        "alert_breaches",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id"), nullable=False),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), nullable=False),
        sa.Column("upload_id", sa.Integer, sa.ForeignKey("actual_uploads.id"), nullable=False),
        sa.Column("month", sa.String(7), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("value", sa.String(24), nullable=False),
        sa.Column("threshold", sa.String(12), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.UniqueConstraint("scenario_id", "month", "kind", name="uq_alert_breach_once"),
    )
    op.create_table(
        "alert_posts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("breach_id", sa.Integer, sa.ForeignKey("alert_breaches.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("status", sa.Integer, nullable=True),
    )
    op.create_index("ix_alert_posts_breach", "alert_posts", ["breach_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} "
                           "refused'); END")
    elif dialect == "postgresql":
        for table in APPEND_ONLY:   # buyrent_append_only() comes from 0001
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION buyrent_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION buyrent_append_only()")


def downgrade() -> None:
    op.drop_table("alert_posts")
    op.drop_table("alert_breaches")
    op.drop_table("alert_settings")
