"""The current month the service and the CLI give the engine (models read no clock).

A plan without ``finance.start_month`` starts the month after the later of its usage's end and
the current month (models/start.py). Which month is current:

- ``BUYRENT_CURRENT_MONTH`` (``YYYY-MM``) when set: to reproduce a plan as of another month
  (the test suite pins it, so that its figures do not move with the calendar);
- for a stored revision, the month it was created in, so that its plan is the same whenever
  it is computed again (the workbook, a later view);
- otherwise the month of today's UTC date (the CLI, the API, a plan of unsaved form values).
"""
from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from typing import Optional

ENV = "BUYRENT_CURRENT_MONTH"
MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def pinned_month() -> Optional[str]:
    """``BUYRENT_CURRENT_MONTH``, or None when it is not set.

    Raises ValueError for a value that is not ``YYYY-MM``."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    if not MONTH.fullmatch(value):
        raise ValueError(f"{ENV} must be a month as YYYY-MM (got {value[:20]!r})")
    return value


def current_month() -> str:
    """The current month, ``YYYY-MM``: the pinned one, else today's (UTC)."""
    return pinned_month() or datetime.now(timezone.utc).strftime("%Y-%m")


def planning_month(created_at: Optional[str]) -> str:
    """The current month of a stored revision's plan: the pinned one, else the month it was
    created in (``created_at`` as the tables store it, ``YYYY-MM-DDTHH:MM:SSZ``), else
    today's."""
    pinned = pinned_month()
    if pinned is not None:
        return pinned
    if created_at and MONTH.fullmatch(created_at[:7]):
        return created_at[:7]
    return current_month()
