"""Review UX (issue 16): "request changes" decisions, comments on one assumption, progress.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

Additive for the data: reviews gain ``field_path`` (the assumption a comment is about, e.g.
``owned.server_price``) and the decision ``changes`` (request changes); every decision stays a
new row. 0003 (append-only reviews) dropped the CHECK constraint ``ck_reviews_decision`` of
0001, so adding the column is all ``reviews`` needs here. Should the constraint still exist
(a database migrated along another path), it is widened to the new decision: on PostgreSQL
in place; on SQLite by Alembic's batch mode, which copies the table, so every trigger on
``reviews`` (the append-only guards of 0003) is read first and created again afterwards. ``progress`` holds the phase of long requests (service.web.progress).
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

NEW_CHECK = "decision IN ('comment', 'approve', 'reject', 'changes')"
OLD_CHECK = "decision IN ('comment', 'approve', 'reject')"


def _has_check() -> bool:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        sql = bind.exec_driver_sql("SELECT sql FROM sqlite_master WHERE type = 'table' AND "
                                   "name = 'reviews'").scalar() or ""
        return "ck_reviews_decision" in sql
    return bind.exec_driver_sql("SELECT 1 FROM pg_constraint WHERE conname = "
                                "'ck_reviews_decision'").scalar() is not None


def _replace_check(check: str) -> None:
    if not _has_check():
        return
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        triggers = [row[0] for row in bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reviews'")]
        with op.batch_alter_table("reviews", recreate="always") as batch:
            batch.drop_constraint("ck_reviews_decision", type_="check")
            batch.create_check_constraint("ck_reviews_decision", check)
        for sql in triggers:
            op.execute(sql)
    else:
        op.drop_constraint("ck_reviews_decision", "reviews", type_="check")
        op.create_check_constraint("ck_reviews_decision", "reviews", check)


def upgrade() -> None:
    op.add_column("reviews", sa.Column("field_path", sa.String(200)))
    _replace_check(NEW_CHECK)
    op.create_table(
        "progress",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("phase", sa.String(20), nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("progress")
    _replace_check(OLD_CHECK)
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("field_path")
