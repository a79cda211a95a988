"""Timeline chart data of scheduled strategies (the staged optimum, a proposed schedule).

Capacity over the plan's months in GPUs of demand (the units of the load-duration chart):
owned servers online, each commitment cohort (held contracts and new signatures apart), and
the average GPUs that ran on spot and on demand, against the month's demand (peak hour, the
P90 hour and the average). The engine computes them with the plan (the ledger's
``timelines``, models/ledger_build.timeline); they are stored with its charts.
"""
from __future__ import annotations

from typing import Any, Optional

from models.ledger import Ledger

SCHEDULED = ("staged", "proposed")


def schedule_charts(ledger: Optional[Ledger]) -> dict[str, Any]:
    """A timeline for each strategy that is a schedule, by strategy name (in that order)."""
    if ledger is None:
        return {}
    return {name: ledger.timelines[name] for name in SCHEDULED if name in ledger.timelines}
