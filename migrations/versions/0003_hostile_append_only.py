"""Approvals and what they bind are append-only (issue 12, defect 5).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

- ``reviews``, ``plans`` (the cached plan of a revision) and ``usage_files``: UPDATE and DELETE
  refused (and TRUNCATE on PostgreSQL), like ``audit_events`` and ``revisions`` since 0001.
  INSERT stays open, so new review rows of any decision kind can still be added.
- ``scenarios`` rows that a review names (through one of their revisions): DELETE refused, and
  UPDATE refused unless it only sets ``name`` to the name in the newest revision's assumptions
  (the list page shows that name; each revision's own copy is immutable and hashed).
- ``reviews.revision_hash`` (new): every new review names the SHA-256 of the revision it
  reviews; an INSERT whose hash is not that revision's ``content_hash`` is refused. Older rows
  get their revision's hash.
- An ``approve`` review of a revision without a usage file or without a cached plan is refused.

- The CHECK constraint on ``reviews.decision`` goes: the kinds of decision are listed once, in
  ``service.web.tables.DECISIONS``, which the review route checks. A later kind ("request changes")
  then needs no migration, and no rebuild of ``reviews`` that would drop its triggers (the
  column widens from 10 to 40 characters for such names).

On SQLite a migration that rebuilds one of these tables (Alembic's batch mode copies it) drops
its triggers: create them again from this file's SQL (tests/system/test_hostile_records.py checks that
every trigger exists at head).
"""
from alembic import op
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

APPEND_ONLY = ("reviews", "plans", "usage_files")
REVIEWED = ("EXISTS (SELECT 1 FROM reviews JOIN revisions ON revisions.id = reviews.revision_id"
            " WHERE revisions.scenario_id = OLD.id)")
NEWEST_NAME = {
    "sqlite": "(SELECT json_extract(assumptions, '$.name') FROM revisions"
              " WHERE scenario_id = OLD.id ORDER BY number DESC LIMIT 1)",
    "postgresql": "(SELECT assumptions::json ->> 'name' FROM revisions"
                  " WHERE scenario_id = OLD.id ORDER BY number DESC LIMIT 1)",
}
WRONG_HASH = ("NEW.revision_hash IS NULL OR NEW.revision_hash IS DISTINCT FROM"
              " (SELECT content_hash FROM revisions WHERE id = NEW.revision_id)")
UNPLANNED = ("NEW.decision = 'approve' AND ("
             "(SELECT usage_file_id FROM revisions WHERE id = NEW.revision_id) IS NULL"
             " OR NOT EXISTS (SELECT 1 FROM plans WHERE revision_id = NEW.revision_id))")
MESSAGES = {
    "hash": "reviews: revision_hash must be the content_hash of the reviewed revision",
    "unplanned": "reviews: a revision without a usage file or a plan cannot be approved",
    "scenario": "scenarios: a reviewed scenario is append-only (only its name may follow "
                "the newest revision)",
}


def scenario_changed(dialect: str) -> str:
    return (f"{REVIEWED} AND (NEW.id IS DISTINCT FROM OLD.id"
            " OR NEW.owner_id IS DISTINCT FROM OLD.owner_id"
            " OR NEW.created_at IS DISTINCT FROM OLD.created_at"
            f" OR NEW.name IS DISTINCT FROM {NEWEST_NAME[dialect]})")


def upgrade() -> None:
    # One batch: on SQLite it rebuilds the table once, before any trigger exists on it.
    with op.batch_alter_table("reviews") as batch:
        batch.add_column(sa.Column("revision_hash", sa.String(64)))
        batch.drop_constraint("ck_reviews_decision", type_="check")
        batch.alter_column("decision", type_=sa.String(40), existing_nullable=False)
    op.execute("UPDATE reviews SET revision_hash = (SELECT content_hash FROM revisions"
               " WHERE revisions.id = reviews.revision_id)")
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        sqlite_triggers()
    elif dialect == "postgresql":
        postgresql_triggers()


def sqlite_triggers() -> None:
    def trigger(name: str, when: str, condition: str, message: str) -> None:
        guard = f" WHEN {condition}" if condition else ""
        op.execute(f"CREATE TRIGGER {name} {when}{guard} BEGIN SELECT RAISE(ABORT, "
                   f"'{message}'); END")

    for table in APPEND_ONLY:
        for verb in ("UPDATE", "DELETE"):
            trigger(f"{table}_no_{verb.lower()}", f"BEFORE {verb} ON {table}", "",
                    f"{table} is append-only: {verb} refused")
    # "IS DISTINCT FROM" is PostgreSQL's spelling; SQLite says "IS NOT".
    trigger("reviews_bind_hash", "BEFORE INSERT ON reviews",
            WRONG_HASH.replace("IS DISTINCT FROM", "IS NOT"), MESSAGES["hash"])
    trigger("reviews_approve_planned", "BEFORE INSERT ON reviews", UNPLANNED,
            MESSAGES["unplanned"])
    trigger("scenarios_reviewed_no_update", "BEFORE UPDATE ON scenarios",
            scenario_changed("sqlite").replace("IS DISTINCT FROM", "IS NOT"),
            MESSAGES["scenario"])
    trigger("scenarios_reviewed_no_delete", "BEFORE DELETE ON scenarios", REVIEWED,
            MESSAGES["scenario"])


def postgresql_triggers() -> None:
    for table in APPEND_ONLY:   # buyrent_append_only() comes from 0001
        op.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                   "FOR EACH ROW EXECUTE FUNCTION buyrent_append_only()")
        op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                   "FOR EACH STATEMENT EXECUTE FUNCTION buyrent_append_only()")
    op.execute(f"""
        CREATE FUNCTION buyrent_review_binds() RETURNS trigger AS $$
        BEGIN
          IF {WRONG_HASH} THEN RAISE EXCEPTION '{MESSAGES["hash"]}'; END IF;
          IF {UNPLANNED} THEN RAISE EXCEPTION '{MESSAGES["unplanned"]}'; END IF;
          RETURN NEW;
        END; $$ LANGUAGE plpgsql""")
    op.execute("CREATE TRIGGER reviews_bind BEFORE INSERT ON reviews "
               "FOR EACH ROW EXECUTE FUNCTION buyrent_review_binds()")
    op.execute(f"""
        CREATE FUNCTION buyrent_reviewed_scenario() RETURNS trigger AS $$
        BEGIN
          IF TG_OP = 'DELETE' AND {REVIEWED} THEN
            RAISE EXCEPTION '{MESSAGES["scenario"]}';
          END IF;
          IF TG_OP = 'UPDATE' AND {scenario_changed("postgresql")} THEN
            RAISE EXCEPTION '{MESSAGES["scenario"]}';
          END IF;
          RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
        END; $$ LANGUAGE plpgsql""")
    op.execute("CREATE TRIGGER scenarios_reviewed BEFORE UPDATE OR DELETE ON scenarios "
               "FOR EACH ROW EXECUTE FUNCTION buyrent_reviewed_scenario()")
    op.execute("CREATE TRIGGER scenarios_no_truncate BEFORE TRUNCATE ON scenarios "
               "FOR EACH STATEMENT EXECUTE FUNCTION buyrent_append_only()")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        names = [f"{t}_no_{v}" for t in APPEND_ONLY for v in ("update", "delete")] + [
            "reviews_bind_hash", "reviews_approve_planned", "scenarios_reviewed_no_update",
            "scenarios_reviewed_no_delete"]
        for name in names:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    elif dialect == "postgresql":
        for table in APPEND_ONLY:
            op.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
            op.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
        op.execute("DROP TRIGGER IF EXISTS reviews_bind ON reviews")
        op.execute("DROP TRIGGER IF EXISTS scenarios_reviewed ON scenarios")
        op.execute("DROP TRIGGER IF EXISTS scenarios_no_truncate ON scenarios")
        op.execute("DROP FUNCTION IF EXISTS buyrent_review_binds()")
        op.execute("DROP FUNCTION IF EXISTS buyrent_reviewed_scenario()")
    with op.batch_alter_table("reviews") as batch:
        batch.drop_column("revision_hash")
        batch.alter_column("decision", type_=sa.String(10), existing_nullable=False)
        batch.create_check_constraint("ck_reviews_decision",
                                      "decision IN ('comment', 'approve', 'reject')")
