"""The engine's entry points as the suite calls them: with the suite's plan options.

The product plans every scenario without demand scenarios of its own over three paths from its
growth range (models/plan_options.py); that adds 5-40 s to each of the suite's hundreds of
plans that test something else, so the suite passes ``SUITE`` (no such paths) as an argument,
the way a deployment passes its own, and the tests of that default pass ``PRODUCT``. Served apps
and CLI subprocesses get the same choice from ``BUYRENT_GROWTH_RANGE_SCENARIOS=0``
(tests/conftest.py, service/plan_options.py). ``plan_for`` (a plan computed in this process)
lives in tests/support/service_plans.py, so that the engine tests reach nothing of service.
"""
from __future__ import annotations

from models.plan import Planner as _Planner
from models.plan import compute_plan as _compute_plan
from models.plan_options import PlanOptions

SUITE = PlanOptions(growth_range_paths=False)
PRODUCT = PlanOptions()


def compute_plan(*args, options: PlanOptions = SUITE, **kwargs):
    """models.plan.compute_plan with the suite's options unless told otherwise."""
    return _compute_plan(*args, options=options, **kwargs)


def Planner(*args, options: PlanOptions = SUITE, **kwargs):  # noqa: N802 (the class it makes)
    """models.plan.Planner with the suite's options unless told otherwise."""
    return _Planner(*args, options=options, **kwargs)

