"""What the plan page and its print view (the PDF, service.plans.pdf) show of a revision's
plan: one context for both templates, so the PDF is the page as it prints."""
from __future__ import annotations

from typing import Any, Optional

from service.web.tables import Revision, ScenarioRecord
from service.i18n import labels, sentences
from service.plans.chart_text import chart_texts
from service.plans.chart_view import plan_page_charts
from service.plans.headline import payback, recommendation_text
from service.plans.robust_view import robust_view
from service.plans.schedule_view import page_sections


def approved_revisions(scenario: ScenarioRecord) -> list[int]:
    return [r.number for r in scenario.revisions if r.status == "approved"]


def plan_page_values(revision: Revision, doc: Optional[dict], charts: Optional[dict]
                 ) -> dict[str, Any]:
    """The template values of a revision's plan (``doc`` None: a revision without one)."""
    scenario = revision.scenario
    # the schedule timelines go in their own JSON blocks (templates/plans/_schedule.html)
    page_charts = {k: v for k, v in charts.items() if k != "schedules"} if charts else charts
    return {
        "scenario": scenario, "revision": revision, "doc": doc,
        "charts": plan_page_charts(page_charts, doc) if doc else None,
        "payback": payback(doc) if doc else {}, "payback_text": labels.payback_month,
        "recommendation": recommendation_text(doc) if doc else "",
        "recommendation_translated": sentences.explanation_translated(doc) if doc else True,
        "warnings": sentences.document_warnings(doc) if doc else [],
        "texts": chart_texts(charts, doc) if doc else {},
        "schedule": page_sections(doc, charts), "robust": robust_view(doc),
        "latest": scenario.latest, "approved": approved_revisions(scenario)}
