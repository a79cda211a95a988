"""The database: SQLAlchemy 2 engine, the request's session, write transactions and the
Alembic upgrade on start (the tables are in service.web.tables).

SQLite (default) runs in WAL mode with a busy timeout and foreign keys on; writes take the
database lock up front (``BEGIN IMMEDIATE``) so two writers never deadlock half-way.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

from flask import Flask, current_app, g, has_app_context
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from service.paths import MIGRATIONS
from alembic import command
from alembic.config import Config


def make_engine(url: str) -> Engine:
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15})
        _sqlite_pragmas(engine)
        return engine
    return create_engine(url, pool_pre_ping=True)


def _sqlite_pragmas(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=15000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):
        immediate = connection.get_execution_options().get("buyrent_write")
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def get_engine() -> Engine:
    return current_app.extensions["buyrent_engine"]


def get_session() -> Session:
    """The request's read session (closed at the end of the request)."""
    if "db" not in g:
        g.db = Session(get_engine(), expire_on_commit=False)
    return g.db


@contextmanager
def write_session(engine: Optional[Engine] = None) -> Iterator[Session]:
    """One write transaction (BEGIN IMMEDIATE on SQLite): all of it is saved, or nothing."""
    session = Session(engine or get_engine(), expire_on_commit=False)
    try:
        session.connection(execution_options={"buyrent_write": True})
        yield session
        session.commit()
        if has_app_context() and "db" in g:
            g.db.rollback()  # end the read snapshot so this request sees what it wrote
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision."""

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE_URL"])
    app.extensions["buyrent_engine"] = engine
    upgrade(engine)

    @app.teardown_appcontext
    def _close(_exc):
        session = g.pop("db", None)
        if session is not None:
            session.close()
