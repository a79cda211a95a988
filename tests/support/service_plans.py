"""A plan computed in this process, as the suite, its browser fixtures and bench/ make one to
store without a job (service.plans.revisions.create_scenario takes it): the usage read as an
upload is, the engine's plan, its strict-JSON document and the chart data pages draw
(service.plans.planning). The service itself plans only in plan jobs."""
from __future__ import annotations

import json
from typing import Callable, Optional

from models.messages import Message
from models.plan import compute_plan
from models.plan_options import PlanOptions
from models.refusals import Refusal
from models.scenario import Scenario
from models.start import plan_start_month, usage_notes
from service import clock
from service.ingest import read_usage
from service.plans.planning import ComputedPlan, chart_data
from tests.support.plans import SUITE


def _nothing(_phase: str) -> None:
    pass


def plan_for(scenario: Scenario, data: bytes, filename: str,
             progress: Callable[[str], None] = _nothing,
             current_month: Optional[str] = None,
             options: PlanOptions = SUITE) -> ComputedPlan:
    """The plan of a scenario on a usage file; ``progress`` hears each phase.

    With a listener and an uncertainty section, the strategies are planned once without it
    first ("planning"), then the whole plan ("uncertainty"): the phase a person waits on is
    then true, for the price of one plan without draws (a fifth of the sample's full plan).
    ``current_month`` is the month the plan takes as today's (service.clock; today's when
    None); the usage's notes (short, old: models.start.usage_notes) join its warnings;
    ``options`` go to the engine (models/plan_options.py; the suite's unless told otherwise:
    tests/support/plans.py says why).
    """
    month = current_month or clock.current_month()
    try:
        progress("reading")
        ingested = read_usage(data, filename)
        progress("planning")
        if progress is not _nothing and scenario.uncertainty.draws > 0:
            compute_plan(scenario.with_changes(uncertainty={"draws": 0}), ingested.profile,
                         current_month=month, options=options)
            progress("uncertainty")
        notes = usage_notes(ingested.profile, month,
                            plan_start_month(scenario, ingested.profile, month))
        plan = compute_plan(scenario, ingested.profile,
                            [Message.plain(w) for w in ingested.warnings] + notes,
                            current_month=month, options=options)
    except Refusal:          # the usage or the scenario: said where it is shown
        progress("failed")
        raise
    document = plan.document
    json.dumps(document, allow_nan=False)  # the document must be strict JSON
    return ComputedPlan(plan, document, chart_data(plan, document))
