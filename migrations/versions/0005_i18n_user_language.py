"""Languages (issue 15): each user's preferred language.

Revision ID: 0005_i18n
Revises: 0004
Create Date: 2026-12-01

Additive: one nullable column; NULL means "follow the browser's Accept-Language".
"""
from alembic import op
import sqlalchemy as sa

revision = "0005_i18n"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("language")
