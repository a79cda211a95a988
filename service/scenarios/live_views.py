"""JSON endpoints behind the scenario form: validation as you type, the live plan, progress.

All three use the browser session and, for POSTs, the CSRF token (the form's own
``csrf_token`` field travels in the posted form data). Nothing here writes a revision.
"""
from __future__ import annotations

import json
import time
from typing import Any

from flask import abort, g, jsonify, render_template, request, url_for

from models.refusals import Refusal
from models.scenario import Scenario

from service.web import progress as progress_store
from service.web.access import scenario_or_404
from service.web.errors import answers_json
from service.web.users import login_required
from service.forms.scenario import FormSection, validate_form
from service.i18n import _
from service.plans.live import last_optima, last_schedule, preview_document
from service.plans.stored import job_status, read_plan, request_preview
from service.web.db import get_session
from service.web.tables import PlanJob
from service.scenarios.live_panel import live_panel
from service.scenarios import bp
from service.presets import stack
from service.presets.context import ContextPresetError


def error_payload(sections: list[FormSection]) -> dict[str, Any]:
    """Field messages by input name and cross-field messages by section key."""
    return {"errors": {f.name: f.error for s in sections for f in s.all_fields if f.error},
            "section_errors": {s.key: s.errors for s in sections if s.errors}}


@bp.post("/validate")
@answers_json
@login_required
def validate():
    """Pydantic's verdict on the posted form, field by field; nothing is saved."""
    model, sections = validate_form(request.form, sections_when_valid=False)
    return jsonify({"valid": model is not None, **error_payload(sections)})


@bp.post("/presets/<path:preset_id>.json")
@answers_json
@login_required
def preset_changes(preset_id: str):
    """What applying a preset changes in the posted form, for static/js/presets.js: each
    input it sets or converts with its new text (rounded, as the form shows it), the list of
    changes in words, the units that change and the note on the preset. Nothing is saved; a
    preset that cannot apply to these values is a 422 saying why."""
    try:
        preset = stack.chosen([preset_id])[0]
    except (stack.UnknownPreset, IndexError):
        abort(404, _("Unknown preset %(preset)s.", preset=repr(preset_id)))
    try:
        result = stack.form_changes(preset, request.form)
    except ContextPresetError as exc:
        abort(422, str(exc))
    return jsonify({"id": preset.id, "kind": preset.kind, "summary": result.summary,
                    "changes": [c.as_json() for c in result.changes], "units": result.units,
                    "note_html": render_template("scenarios/_preset_note.html", p=preset)})


@bp.post("/<int:scenario_id>/preview")
@answers_json
@login_required
def preview(scenario_id: int):
    """The plan of the posted form on the latest revision's usage file, not saved.

    Answers at once with the static strategies and the last solved staged schedule priced
    under the form's values (no MILP in the request: service.plans.live), and ``job_url``,
    the preview job re-optimizing the schedule (``GET`` it until it has the panel). ``valid:
    false`` with the field messages when pydantic refuses the values, ``plan_error`` when the
    engine cannot plan them.
    """
    started = time.perf_counter()
    scenario = scenario_or_404(g.user, scenario_id)
    latest = scenario.latest
    if latest.usage_file is None:
        abort(409, _("This scenario has no usage file yet: upload one to see a live plan."))
    model, sections = validate_form(request.form, sections_when_valid=False)
    body: dict[str, Any] = {"valid": model is not None, **error_payload(sections)}
    if model is not None:
        stored = read_plan(latest, start=False)
        try:
            if stored.complete and model == latest_model(latest):
                doc = stored.document           # the saved values: the stored plan itself
            elif heavy(model):                  # even its static strategies: a job's work
                job = request_preview(model, latest.usage_file, scenario.id)
                body.update(pending=True, job_url=url_for(
                    "scenarios.preview_job", scenario_id=scenario.id, job_id=job.id))
                body["server_ms"] = round((time.perf_counter() - started) * 1000, 1)
                return jsonify(body)
            else:
                doc = preview_document(model, latest.usage_file,
                                       last_schedule(stored.document),
                                       optima=last_optima(stored.document))
        except Refusal as exc:
            body["plan_error"] = _("The engine cannot plan these assumptions: %(reason)s",
                                   reason=exc)
        else:
            body.update(panel_body(doc))
            if doc.get("stage") in ("static", "repriced"):
                job = request_preview(model, latest.usage_file, scenario.id)
                body["job_url"] = url_for("scenarios.preview_job", scenario_id=scenario.id,
                                          job_id=job.id)
    body["server_ms"] = round((time.perf_counter() - started) * 1000, 1)
    return jsonify(body)


# Beyond these the static strategies alone take seconds (a 240-month horizon with 8 offers
# took 14.5 s at load 4: bench/load.py's previews phase), which a request must not spend:
# such a preview is only a job, and the page waits for it.
HEAVY_MONTHS = 120
HEAVY_OFFERS = 4


def heavy(model: Scenario) -> bool:
    return model.finance.horizon_months > HEAVY_MONTHS or \
        len(model.commitments) > HEAVY_OFFERS


def latest_model(revision) -> Scenario:
    return Scenario.model_validate_json(revision.assumptions)


def panel_body(doc: dict[str, Any]) -> dict[str, Any]:
    panel = live_panel(doc)
    return {"cards_html": render_template("plans/_cards.html", doc=panel["doc"],
                                          payback=panel["payback"]),
            "recommendation": panel["recommendation"], "charts": panel["charts"],
            "summary": panel["summary"], "stage": doc.get("stage")}


@bp.get("/<int:scenario_id>/preview/<int:job_id>")
@answers_json
@login_required
def preview_job(scenario_id: int, job_id: int):
    """A preview job's state; once done, the panel of its plan (the re-optimized schedule)."""
    scenario_or_404(g.user, scenario_id)
    job = get_session().get(PlanJob, job_id)
    if job is None or job.kind != "preview" or job.owner_key != f"user:{g.user.id}" or \
            job.scope != f"preview:user:{g.user.id}:s{scenario_id}":
        abort(404)
    body: dict[str, Any] = {"job": job_status(job)}
    if job.state == "done":
        body.update(panel_body(json.loads(job.document)))
    return jsonify(body)


@bp.get("/progress/<progress_id>")
@answers_json
@login_required
def progress(progress_id: str):
    """The phase of a long request of this user; ``phase: null`` until the request has
    reported one (and for ids that are not this user's: they look the same)."""
    state = progress_store.lookup(progress_id, g.user.id)
    return jsonify(state or {"phase": None, "text": _("Waiting for the server"), "done": False})
