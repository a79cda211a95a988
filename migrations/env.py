"""Alembic environment: runs on the connection the app hands over (service.web.db.upgrade), or on
DATABASE_URL when called as ``alembic -c migrations/alembic.ini upgrade head``."""
from alembic import context

from service.web.tables import Base
from service.web.db import make_engine

target_metadata = Base.metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    import os
    from service.web.config import instance_path
    instance_path().mkdir(parents=True, exist_ok=True)
    url = os.environ.get("DATABASE_URL") or f"sqlite:///{instance_path() / 'buyrent.sqlite3'}"
    with make_engine(url).begin() as conn:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


run()
