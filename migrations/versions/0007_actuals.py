"""Plan against actual (issue 43): the approved strategy, and the uploads of actual bills.

Revision ID: 0007_actuals
Revises: 0006_plan_jobs
Create Date: 2026-12-07

- ``reviews.strategy`` (new, nullable): the strategy of the plan an approval approved, its
  baseline. Only an approval names one (a trigger refuses it on any other decision); an
  approval written before this column has none and reads as the plan's recommended strategy.
  Added with ALTER TABLE ADD COLUMN, which on SQLite keeps ``reviews`` and its triggers (0003).
- ``actual_uploads``: one upload of a scenario's actual bills, the approved revision it was
  checked against, the months it covers and the monthly actuals read from its files (JSON),
  so that a page or the API reads them without parsing the bills again.
- ``actual_files``: the bills of an upload, byte for byte, with their SHA-256.
Both new tables are append-only like ``usage_files`` (UPDATE and DELETE refused, TRUNCATE too
on PostgreSQL): a correction is a later upload of the same month, which the variance reads
instead (service/actuals_store.py).
"""
from alembic import op
import sqlalchemy as sa

revision = "0007_actuals"
down_revision = "0006_plan_jobs"
branch_labels = None
depends_on = None

APPEND_ONLY = ("actual_uploads", "actual_files")
STRATEGY_MESSAGE = "reviews: only an approval names an approved strategy"
STRATEGY_WRONG = "NEW.strategy IS NOT NULL AND NEW.decision <> 'approve'"


def upgrade() -> None:
    op.add_column("reviews", sa.Column("strategy", sa.String(40), nullable=True))
    op.create_table(
        "actual_uploads",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id"), nullable=False),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), nullable=False),
        sa.Column("uploaded_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("months", sa.Text, nullable=False),
        sa.Column("actuals", sa.Text, nullable=False),
    )
    op.create_index("ix_actual_uploads_scenario", "actual_uploads", ["scenario_id"])
    op.create_table(
        "actual_files",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("upload_id", sa.Integer, sa.ForeignKey("actual_uploads.id"), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_actual_files_upload", "actual_files", ["upload_id"])
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} "
                           "refused'); END")
        op.execute("CREATE TRIGGER reviews_strategy_approval BEFORE INSERT ON reviews "
                   f"WHEN {STRATEGY_WRONG} BEGIN SELECT RAISE(ABORT, '{STRATEGY_MESSAGE}'); END")
    elif dialect == "postgresql":
        for table in APPEND_ONLY:   # buyrent_append_only() comes from 0001
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION buyrent_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION buyrent_append_only()")
        op.execute(f"""
            CREATE FUNCTION buyrent_review_strategy() RETURNS trigger AS $$
            BEGIN
              IF {STRATEGY_WRONG} THEN RAISE EXCEPTION '{STRATEGY_MESSAGE}'; END IF;
              RETURN NEW;
            END; $$ LANGUAGE plpgsql""")
        op.execute("CREATE TRIGGER reviews_strategy_approval BEFORE INSERT ON reviews "
                   "FOR EACH ROW EXECUTE FUNCTION buyrent_review_strategy()")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS reviews_strategy_approval ON reviews")
        op.execute("DROP FUNCTION IF EXISTS buyrent_review_strategy()")
    else:
        op.execute("DROP TRIGGER IF EXISTS reviews_strategy_approval")
    op.drop_table("actual_files")
    op.drop_table("actual_uploads")
    # DROP COLUMN: SQLite 3.35+ drops it in place, keeping the append-only triggers of 0003
    op.drop_column("reviews", "strategy")
