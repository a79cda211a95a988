"""Plan jobs (issue 28): plans computed once by workers, their state and results in the database.

Revision ID: 0006_plan_jobs
Revises: 0005_i18n
Create Date: 2026-12-03

- ``plan_jobs``: one row per computation (kind + key unique), its state, claim token and
  heartbeat (the queue only carries job ids: a job whose worker died is found by its stale
  heartbeat and queued again), its stages and its result. A done row is immutable (UPDATE
  refused), and a done plan job cannot be deleted: it is what the plan page showed.
- ``plans`` gains ``ledger`` (the workbook's month-by-month values, zlib-packed JSON) and
  ``engine`` (the engine version that computed it). ``plans`` stays append-only (0003): the
  columns are added with ALTER TABLE ADD COLUMN, which on SQLite keeps the table and its
  triggers (no batch rebuild).
"""
from alembic import op
import sqlalchemy as sa

revision = "0006_plan_jobs"
down_revision = "0005_i18n"
branch_labels = None
depends_on = None

DONE_UPDATE = "plan_jobs: a done job is immutable"
DONE_DELETE = "plan_jobs: a done plan job cannot be deleted"


def upgrade() -> None:
    op.add_column("plans", sa.Column("ledger", sa.LargeBinary(), nullable=True))
    op.add_column("plans", sa.Column("engine", sa.String(40), nullable=True))
    op.create_table(
        "plan_jobs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("engine", sa.String(40), nullable=False),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), nullable=True),
        sa.Column("usage_file_id", sa.Integer, sa.ForeignKey("usage_files.id"), nullable=True),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("owner_key", sa.String(80), nullable=False),
        sa.Column("scope", sa.String(120), nullable=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("stage", sa.String(20), nullable=True),
        sa.Column("progress", sa.Text, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("claim", sa.String(100), nullable=True),
        sa.Column("heartbeat_at", sa.Float, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("queued_at", sa.Float, nullable=True),
        sa.Column("started_at", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("budget_seconds", sa.Float, nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("document", sa.Text, nullable=True),
        sa.Column("charts", sa.Text, nullable=True),
        sa.Column("ledger", sa.LargeBinary, nullable=True),
        sa.Column("result", sa.LargeBinary, nullable=True),
        sa.UniqueConstraint("kind", "key", name="uq_plan_jobs_kind_key"),
    )
    op.create_index("ix_plan_jobs_state", "plan_jobs", ["state", "owner_key"])
    op.create_index("ix_plan_jobs_scope", "plan_jobs", ["scope"])
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("CREATE TRIGGER plan_jobs_done_no_update BEFORE UPDATE ON plan_jobs "
                   f"WHEN OLD.state = 'done' BEGIN SELECT RAISE(ABORT, '{DONE_UPDATE}'); END")
        op.execute("CREATE TRIGGER plan_jobs_done_no_delete BEFORE DELETE ON plan_jobs "
                   "WHEN OLD.state = 'done' AND OLD.kind = 'plan' "
                   f"BEGIN SELECT RAISE(ABORT, '{DONE_DELETE}'); END")
    elif dialect == "postgresql":
        op.execute(f"""
            CREATE FUNCTION buyrent_done_job() RETURNS trigger AS $$
            BEGIN
              IF TG_OP = 'UPDATE' AND OLD.state = 'done' THEN
                RAISE EXCEPTION '{DONE_UPDATE}';
              END IF;
              IF TG_OP = 'DELETE' AND OLD.state = 'done' AND OLD.kind = 'plan' THEN
                RAISE EXCEPTION '{DONE_DELETE}';
              END IF;
              RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
            END; $$ LANGUAGE plpgsql""")
        op.execute("CREATE TRIGGER plan_jobs_done BEFORE UPDATE OR DELETE ON plan_jobs "
                   "FOR EACH ROW EXECUTE FUNCTION buyrent_done_job()")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS plan_jobs_done ON plan_jobs")
        op.execute("DROP FUNCTION IF EXISTS buyrent_done_job()")
    op.drop_table("plan_jobs")
    with op.batch_alter_table("plans") as batch:
        batch.drop_column("engine")
        batch.drop_column("ledger")
