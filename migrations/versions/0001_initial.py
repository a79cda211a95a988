"""Initial schema: users, tokens, usage files, scenarios, revisions, plans, reviews, audit.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""
from alembic import op
import sqlalchemy as sa

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# Tables whose rows can never change once written (design 7: "the audit trail cannot be
# edited"; approvals bind to an immutable revision).
APPEND_ONLY = ("audit_events", "revisions")


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(80), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(300), nullable=False),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.CheckConstraint("role IN ('analyst', 'reviewer', 'admin')", name="ck_users_role"),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("label", sa.String(80), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
    )
    op.create_table(
        "usage_files",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False, index=True),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("uploaded_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
    )
    op.create_table(
        "scenarios",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("owner_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
    )
    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.Column("assumptions", sa.Text, nullable=False),
        sa.Column("usage_file_id", sa.Integer, sa.ForeignKey("usage_files.id")),
        sa.Column("usage_sha256", sa.String(64)),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("preset", sa.Text),
        sa.Column("note", sa.String(500), nullable=False),
        sa.UniqueConstraint("scenario_id", "number"),
    )
    op.create_table(
        "plans",
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), primary_key=True),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("charts", sa.Text, nullable=False),
        sa.Column("computed_at", sa.String(20), nullable=False),
    )
    op.create_table(
        "reviews",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id"), nullable=False),
        sa.Column("reviewer_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("decision", sa.String(10), nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(20), nullable=False),
        sa.CheckConstraint("decision IN ('comment', 'approve', 'reject')",
                           name="ck_reviews_decision"),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.String(20), nullable=False),
        sa.Column("actor_id", sa.Integer, sa.ForeignKey("users.id")),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("scenario_id", sa.Integer, sa.ForeignKey("scenarios.id")),
        sa.Column("revision_id", sa.Integer, sa.ForeignKey("revisions.id")),
        sa.Column("revision_hash", sa.String(64)),
        sa.Column("details", sa.Text, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            for verb in ("UPDATE", "DELETE"):
                op.execute(f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                           f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: "
                           f"{verb} refused'); END")
    elif dialect == "postgresql":
        op.execute("""
            CREATE FUNCTION buyrent_append_only() RETURNS trigger AS $$
            BEGIN
              RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
            END; $$ LANGUAGE plpgsql""")
        for table in APPEND_ONLY:
            op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                       "FOR EACH ROW EXECUTE FUNCTION buyrent_append_only()")
            op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                       "FOR EACH STATEMENT EXECUTE FUNCTION buyrent_append_only()")


def downgrade() -> None:
    for table in ("audit_events", "reviews", "plans", "revisions", "scenarios", "usage_files",
                  "api_tokens", "users"):
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS buyrent_append_only()")
