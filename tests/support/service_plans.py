"""service.plans.planning.plan_for as the suite calls it: with the suite's plan options
(tests/support/plans.py says why)."""
from __future__ import annotations

from models.plan_options import PlanOptions
from service.plans.planning import plan_for as _plan_for
from tests.support.plans import SUITE


def plan_for(*args, options: PlanOptions = SUITE, **kwargs):
    """service.plans.planning.plan_for with the suite's options unless told otherwise."""
    return _plan_for(*args, options=options, **kwargs)
