"""The live plan panel of the edit page: cards, recommendation and the cumulative chart of a
plan document (the stored plan before any edit, the unsaved plan after one)."""
from __future__ import annotations

from typing import Any, Optional

from service.plans.chart_text import cumulative as cumulative_text
from service.web.tables import ScenarioRecord
from service.plans.chart_view import live_charts
from service.plans.live import cumulative_chart
from service.plans.stored import read_plan
from service.plans.headline import payback, recommendation_text


def live_panel(doc: dict[str, Any]) -> dict[str, Any]:
    """What the live plan shows: cards (same template as the plan page), recommendation,
    the cumulative-cost chart and its summary sentence."""
    charts = live_charts(cumulative_chart(doc), doc)
    return {"doc": doc, "payback": payback(doc), "recommendation": recommendation_text(doc),
            "charts": charts, "summary": cumulative_text(charts, doc).summary}


def initial_panel(scenario: Optional[ScenarioRecord]) -> Optional[dict[str, Any]]:
    """The live panel of the edit page before any edit: the latest revision's stored plan."""
    if scenario is None or scenario.latest is None or scenario.latest.usage_file_id is None:
        return None
    view = read_plan(scenario.latest)
    if view.document:
        return live_panel(view.document)
    # still computing (or refused): the panel is there all the same, and the page's first
    # preview (form.js) fills it with the static strategies in a moment
    return {"pending": True, "reason": view.error}
