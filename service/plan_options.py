"""The plan options a process takes from its environment (models/ reads none).

``BUYRENT_GROWTH_RANGE_SCENARIOS=0``: plans without demand scenarios of their own get no robust
plan from the demand growth range (:class:`models.plan_options.PlanOptions`). The web service
reads it into its configuration (``PLAN_OPTIONS``), puts the options in each plan job's spec and
key, and a worker plans with the job's options, not its own environment; the CLI passes them to
the engine as an argument. The test suite sets the variable (tests/conftest.py): the default
robust plan adds 5-40 s to each of its hundreds of plans that test something else.
"""
from __future__ import annotations

import os
from typing import Mapping

from models.plan_options import PlanOptions

VARIABLE = "BUYRENT_GROWTH_RANGE_SCENARIOS"


def from_environment(environ: Mapping[str, str] = os.environ) -> PlanOptions:
    """The options the environment asks for (the defaults where it says nothing)."""
    return PlanOptions(growth_range_paths=environ.get(VARIABLE) != "0")
