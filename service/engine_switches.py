"""Switches of the engine that the service reads from its environment (models/ reads none).

``BUYRENT_GROWTH_RANGE_SCENARIOS=0``: plans without demand scenarios of their own get no robust
plan from the demand growth range (issue 27's default; ``models.robust.FROM_RANGE``). The test
suite sets it (tests/conftest.py): the default adds 5-40 s to each of its hundreds of plans that
test something else. Only the modules that compute plans (the CLI's, the plan jobs', the
in-process planning) import this one and call :func:`apply`, so a plan job's child or a CLI
subprocess inherits the switch with the environment, and the CLI's refusals, which load none of
them, load no engine module.
"""
from __future__ import annotations

import os

import models.robust

VARIABLE = "BUYRENT_GROWTH_RANGE_SCENARIOS"


def apply() -> None:
    """Set the engine's switches from the environment (idempotent)."""
    if os.environ.get(VARIABLE) == "0":
        models.robust.FROM_RANGE = False
