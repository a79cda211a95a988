"""Disk full or read-only storage -> 503 with a clear message, and nothing saved.

Every write runs in one transaction (service.web.db.write_session) that rolls back on the error,
so a failed save leaves nothing behind; connections stay usable, so the next save works as soon
as the cause is gone (no restart). Recognised: SQLite "attempt to write a readonly database",
"database or disk is full" (also SQLITE_FULL from ``max_page_count``), PostgreSQL SQLSTATE
53100 disk_full, 25006 read_only_sql_transaction, 53xxx insufficient resources, "No space left
on device", and OSError ENOSPC / EROFS / EDQUOT from any file the app writes.
"""
from __future__ import annotations

import errno

from service.i18n import N_

MESSAGE = N_("The database cannot be written right now (disk full or read-only); nothing "
              "was saved. Try again later.")
RETRY_AFTER = "60"
SQLITE_TEXT = ("readonly database", "read-only database", "database or disk is full",
               "disk i/o error", "no space left on device")
PG_STATES = ("53100", "25006", "53200")
OS_ERRNOS = {errno.ENOSPC, errno.EROFS, getattr(errno, "EDQUOT", errno.ENOSPC)}


def is_storage_failure(exc: BaseException) -> bool:
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, OSError) and exc.errno in OS_ERRNOS:
            return True
        orig = getattr(exc, "orig", None)
        state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
        if state in PG_STATES:
            return True
        text = str(orig if orig is not None else exc).lower()
        if any(t in text for t in SQLITE_TEXT) and exc.__class__.__module__.split(".")[0] in (
                "sqlalchemy", "sqlite3", "psycopg", "psycopg2"):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False
