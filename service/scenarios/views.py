"""Scenarios: list, new/edit forms generated from the schema, usage upload with preview, compare."""
from __future__ import annotations

from typing import Optional, Sequence

from flask import (abort, current_app, flash, g, jsonify, redirect, render_template, request,
                   url_for)
from models.refusals import Refusal
from models.scenario import Scenario
from service.scenarios import bp
from service.scenarios.contract_choices import attach_choices
from service.web import idempotency
from service.presets import gpu_prices as preset_catalog
from service.web.access import (can_edit, editable_scenario, revision_or_404, scenario_or_404,
                            visible_scenarios)
from service.web.users import login_required
from service.clip import MESSAGE, clip_message
from service.presets import stack
from service.presets.context import ContextPresetError, load_context_presets
from service.presets.stack import AnyPreset
from service.web.tables import PlanJob, Revision, ScenarioRecord, UsageFile, User
from service.web.db import get_session, write_session
from service.web import progress as progress_store
from service.forms.layout import arrange
from service.forms.scenario import build_form, validate_form
from service.i18n import _
from service.i18n.charts import usage_chart_text
from service.i18n.ingest_refusals import refusal
from service.i18n.ingest_summary import summary_rows
from service.i18n.sentences import warning_items
from service.ingest import ContractResult, make_bundle, read_upload, rows_before_reading
from service.plans.planning import profile_chart
from service.xlsx.roundtrip import WorkbookError, scenario_from_xlsx
from service.scenarios.from_file import ScenarioFileError, read_scenario_file
from service.scenarios.live_panel import initial_panel
from service.plans.reviews import awaiting_review, changes_requested
from service.plans.revisions import (add_revision, create_scenario, preflight, store_usage,
                                     usage_label)
from service.plans.live import remember_profile
from service.plans.stored import ensure_plan, job_status, reason, request_plan
from service.scenarios import upload_jobs
from service import clock
from service.plans.usage_age import preview_notes
from service.plans.alerts import scenario_badges

def chosen_presets() -> list[AnyPreset]:
    """The presets the request names (``preset``, repeated: a context and a price preset);
    an unknown one is a 400."""
    try:
        return stack.chosen(request.values.getlist("preset"))
    except stack.UnknownPreset as exc:
        abort(400, _("Unknown preset %(preset)s.", preset=repr(exc.args[0])))


def with_presets(data: dict, presets: list[AnyPreset]) -> tuple[dict, dict[str, str]]:
    """Scenario data with the presets applied in order and the note beside each field they
    set; a preset that cannot apply is a 400 saying why."""
    try:
        return stack.apply_all(data, presets)
    except ContextPresetError as exc:
        abort(400, str(exc))


def form_page(scenario: Optional[ScenarioRecord], data: dict, sections=None, status=200,
              presets: Sequence[AnyPreset] = (), marks: Optional[dict[str, str]] = None):
    if sections is None:
        sections = build_form(data, preset_fields=marks or {})
    applied = {preset.kind: preset for preset in presets}
    return render_template("scenarios/form.html", scenario=scenario, layout=arrange(sections),
                           live=initial_panel(scenario), presets=preset_catalog.grouped(),
                           contexts=list(load_context_presets().values()),
                           applied=list(presets), chosen_price=applied.get("gpu"),
                           chosen_context=applied.get("context")), status


def recorded(presets: Sequence[AnyPreset]) -> Optional[list[dict]]:
    """The ``preset`` record of a saved revision: each preset applied, in order."""
    return stack.provenance(presets) or None


@bp.get("/")
@login_required
def index():
    return index_page()


def index_page(file_error: Optional[ScenarioFileError] = None, filename: str = "",
               status: int = 200):
    scenarios = visible_scenarios(g.user)
    return render_template("scenarios/index.html", scenarios=scenarios,
                           alerts=scenario_badges(scenarios),
                           awaiting=awaiting_review(g.user, scenarios),
                           changes=changes_requested(g.user, scenarios),
                           file_error=file_error, filename=filename), status


@bp.post("/from-file")
@login_required
@idempotency.idempotent
def new_from_file():
    """A new scenario from a scenario JSON (the command line's) or a buyrent plan workbook
    (service/scenarios/from_file.py), saved as revision 1 as the form's Save saves one, or the
    list again (422) saying what is wrong, nothing saved."""
    upload = request.files.get("scenario_file")
    if upload is None or not upload.filename:
        return index_page(ScenarioFileError(_("Choose a scenario file (.json) or a buyrent "
                                              "workbook (.xlsx).")), status=422)
    filename = usage_label(upload.filename)
    try:
        model = read_scenario_file(upload.read(), filename)
    except ScenarioFileError as exc:
        return index_page(exc, filename, 422)
    with idempotency.transaction() as s:
        revision = create_scenario(s, s.get(User, g.user.id), model,
                                   note=f"created from {filename}")
        target = url_for("scenarios.show", scenario_id=revision.scenario_id)
        idempotency.remember(s, location=target)
    flash(_("Scenario saved from %(file)s. Upload a usage file to see its plan.",
            file=filename))
    return redirect(target)


@bp.route("/new", methods=("GET", "POST"))
@login_required
@idempotency.idempotent
def new():
    presets = chosen_presets()
    if request.method == "GET":
        data, marks = with_presets(Scenario().model_dump(mode="json"), presets)
        price = next((p for p in presets if isinstance(p, preset_catalog.Preset)), None)
        if price is not None:
            data["name"] = _("8x H100 server vs %(cloud)s %(instance)s", cloud=price.cloud,
                             instance=price.instance_type)
        return form_page(None, data, presets=presets, marks=marks)
    model, sections = validate_form(request.form)
    if model is None:
        return form_page(None, {}, sections, 422, presets)
    with idempotency.transaction() as s:
        revision = create_scenario(s, s.get(User, g.user.id), model,
                                   preset=recorded(presets))
        target = url_for("scenarios.show", scenario_id=revision.scenario_id)
        idempotency.remember(s, location=target)
    flash(_("Scenario saved. Upload a usage file to see its plan."))
    return redirect(target)


@bp.get("/<int:scenario_id>")
@login_required
def show(scenario_id: int):
    scenario = scenario_or_404(g.user, scenario_id)
    return render_template("scenarios/show.html", scenario=scenario,
                           editable=can_edit(g.user, scenario))


@bp.route("/<int:scenario_id>/edit", methods=("GET", "POST"))
@login_required
@idempotency.idempotent
def edit(scenario_id: int):
    scenario = editable_scenario(g.user, scenario_id)
    latest = scenario.latest
    presets = chosen_presets()
    if request.method == "GET":
        data, marks = with_presets(latest.assumptions_dict, presets)
        return form_page(scenario, data, presets=presets, marks=marks)
    model, sections = validate_form(request.form)
    if model is None:
        return form_page(scenario, {}, sections, 422, presets)
    if model == Scenario.model_validate_json(latest.assumptions):
        flash(_("No assumption changed: no new revision."))
        return redirect(url_for("scenarios.show", scenario_id=scenario.id))
    try:
        preflight(model, latest.usage_file)
    except Refusal as exc:
        sections[0].errors.append(_("The engine cannot plan these assumptions: %(reason)s",
                                    reason=refusal(str(exc))))
        return form_page(scenario, {}, sections, 422, presets)
    with idempotency.transaction() as s:
        revision = add_revision(s, s.get(ScenarioRecord, scenario.id), s.get(User, g.user.id),
                                model, s.get(UsageFile, latest.usage_file_id)
                                if latest.usage_file_id else None,
                                preset=recorded(presets),
                                note=request.form.get("note", "assumptions edited"))
        idempotency.remember(s, location=url_for("scenarios.show", scenario_id=scenario.id))
    if ensure_plan(get_session().get(Revision, revision.id)) is not None:
        flash(_("Saved as revision %(number)s; its plan is being computed.",
                number=revision.number))
    else:
        flash(_("Saved as revision %(number)s.", number=revision.number))
    return redirect(url_for("scenarios.show", scenario_id=scenario.id))


@bp.route("/<int:scenario_id>/usage", methods=("GET", "POST"))
@login_required
def upload(scenario_id: int):
    scenario = editable_scenario(g.user, scenario_id)
    if request.method == "GET":
        return render_template("scenarios/upload.html", scenario=scenario, problems=None,
                               message=None)
    file = request.files.get("usage")
    if file is None or not file.filename:
        return upload_refused(scenario, _("Choose a usage file (.csv or .xlsx)."), [])
    data, filename = file.read(), file.filename
    busy = request.files.get("busy")         # optional GPU busy time beside the usage file
    if busy is not None and busy.filename:
        filename, data = make_bundle(filename, data, busy.filename, busy.read())
    report = progress_store.from_request()
    try:
        report("reading")
        rows = rows_before_reading(data, filename)
        if rows > current_app.config["UPLOAD_JOB_ROWS"]:
            return read_by_job(scenario, data, filename, rows, report)
        ingested = read_upload(data, filename)
        if isinstance(ingested, ContractResult):
            # commitments, not usage: shown, and attachable to the position
            # (service/scenarios/contract_attach.py)
            report("done")
            if wants_json():
                return jsonify({"result_html": render_template(
                    "scenarios/_contracts.html", scenario=scenario, filename=filename,
                    result=ingested, choices=attach_choices(latest_model(scenario), ingested))})
            return render_template("scenarios/contracts.html", scenario=scenario,
                                   filename=filename, result=ingested,
                                   choices=attach_choices(latest_model(scenario), ingested))
        report("planning")
        preflight(latest_model(scenario), profile=ingested.profile)
    except Refusal as exc:
        report("failed")
        return upload_refused(scenario, clip_message(str(exc), 4 * MESSAGE),
                              getattr(exc, "problems", []))
    with write_session() as s:
        stored = store_usage(s, s.get(User, g.user.id), data, filename)
    remember_profile(stored, ingested.profile)
    # parsed once: the plan of the revision attaching it would make starts now, so that
    # attaching finds it done (or running)
    request_plan(scenario.latest.assumptions, stored, clock.current_month())
    report("done")
    if wants_json():  # the page's upload script: it shows bytes and phases, then goes there
        return jsonify({"location": url_for("scenarios.usage_preview", scenario_id=scenario.id,
                                            file_id=stored.id)})
    return preview_page(scenario, stored, ingested)


def read_by_job(scenario: ScenarioRecord, data: bytes, filename: str, rows: int, report):
    """Store a large file and answer at once: an upload job reads it
    (service.scenarios.upload_jobs), the preview page follows the job."""
    with write_session() as s:
        stored = store_usage(s, s.get(User, g.user.id), data, filename)
    upload_jobs.request_reading(stored, rows)
    report("done")
    target = url_for("scenarios.usage_preview", scenario_id=scenario.id, file_id=stored.id)
    if wants_json():
        return jsonify({"location": target})
    return redirect(target, 303)


def latest_model(scenario: ScenarioRecord) -> Scenario:
    return Scenario.model_validate_json(scenario.latest.assumptions)


def wants_json() -> bool:
    return request.accept_mimetypes.best == "application/json"


def upload_refused(scenario: ScenarioRecord, message: str, problems: list, kept: bool = False):
    """422 with the refusal by row and column; ``kept``: a large file, stored before its job
    read it (the page says so instead of "Nothing was saved")."""
    if wants_json():
        html = render_template("scenarios/_upload_errors.html", message=message,
                               problems=problems, kept=kept)
        return jsonify({"error_html": html, "message": message}), 422
    return render_template("scenarios/upload.html", scenario=scenario, problems=problems,
                           message=message, kept=kept), 422


def preview_page(scenario: ScenarioRecord, stored: UsageFile, ingested):
    profile = ingested.profile
    return render_template("scenarios/preview.html", scenario=scenario, usage=stored,
                           profile=profile, warnings=warning_items(ingested.warnings, None)
                           + preview_notes(latest_model(scenario), profile),
                           summary=summary_rows(ingested.summary),
                           busy=(ingested.summary or {}).get("busy"),
                           chart=usage_chart_text(profile_chart(profile)),
                           peak=float((profile.steady + profile.interruptible).max()),
                           last=str(profile.starts[-1]))


@bp.get("/<int:scenario_id>/usage/<int:file_id>")
@login_required
def usage_preview(scenario_id: int, file_id: int):
    """The preview of a file this user uploaded (where the upload script lands)."""
    scenario = editable_scenario(g.user, scenario_id)
    usage = get_session().get(UsageFile, file_id)
    if usage is None or usage.uploaded_by != g.user.id:
        abort(404)
    job = upload_jobs.reading_job(usage)
    if job is not None:      # a large file: its job reads it (or has read it)
        return reading_page(scenario, usage, job)
    try:
        ingested = read_upload(usage.data, usage.filename)
    except Refusal as exc:
        abort(422, str(exc))
    if isinstance(ingested, ContractResult):
        abort(404)  # commitments are shown, never stored as usage
    return preview_page(scenario, usage, ingested)


def reading_page(scenario: ScenarioRecord, usage: UsageFile, job: PlanJob):
    """The preview of a file an upload job reads: the job's progress while it runs (the page
    polls itself as JSON and reloads: static/js/jobs.js), the preview once it is done, and
    the reader's refusal by row and column when it failed."""
    if job.state in ("waiting", "cancelled", "failed"):
        # admitted when its owner has room, queued again when cancelled or when what stopped
        # it was raised since; a refusal of the file stays (service.plans.jobs.records)
        job = upload_jobs.request_reading(usage, upload_jobs.rows_of(job))
    done = job.state == "done"
    if wants_json():
        return jsonify({"job": job_status(job), "complete": done})
    if job.state == "failed":
        message, problems = upload_jobs.refusal_of(job)
        return upload_refused(scenario, clip_message(message or reason(job) or "", 4 * MESSAGE),
                              problems, kept=True)
    if not done:
        return render_template("scenarios/usage_pending.html", scenario=scenario, usage=usage,
                               job=job_status(job), rows=upload_jobs.rows_of(job)), 202, \
            {"Retry-After": "2"}
    ingested = upload_jobs.stored_reading(job)
    try:
        preflight(latest_model(scenario), profile=ingested.profile)
    except Refusal as exc:
        return upload_refused(scenario, clip_message(str(exc), 4 * MESSAGE),
                              getattr(exc, "problems", []), kept=True)
    remember_profile(usage, ingested.profile)
    # as after a small file's upload: the plan attaching it would make starts now
    request_plan(scenario.latest.assumptions, usage, clock.current_month())
    return preview_page(scenario, usage, ingested)


@bp.post("/<int:scenario_id>/usage/<int:file_id>/attach")
@login_required
@idempotency.idempotent
def attach(scenario_id: int, file_id: int):
    scenario = editable_scenario(g.user, scenario_id)
    usage = get_session().get(UsageFile, file_id)
    if usage is None or usage.uploaded_by != g.user.id:
        abort(404)
    latest = scenario.latest
    model = Scenario.model_validate_json(latest.assumptions)
    profile = upload_jobs.stored_profile(usage)   # a large file's, read by its job
    if profile is not None:
        remember_profile(usage, profile)
    try:
        preflight(model, usage, profile=profile)
    except Refusal as exc:
        abort(422, str(exc))
    with idempotency.transaction() as s:
        revision = add_revision(s, s.get(ScenarioRecord, scenario.id), s.get(User, g.user.id),
                                model, s.get(UsageFile, usage.id),
                                note=f"usage {usage.filename}")
        target = url_for("plans.show", scenario_id=scenario.id, number=revision.number)
        idempotency.remember(s, location=target)
    ensure_plan(get_session().get(Revision, revision.id))   # the upload's job when unchanged
    return redirect(target)


@bp.post("/<int:scenario_id>/import")
@login_required
def import_workbook(scenario_id: int):
    """Fill the edit form from a plan workbook's Assumptions sheet (saved only on Save)."""
    scenario = editable_scenario(g.user, scenario_id)
    upload = request.files.get("workbook")
    data = upload.read() if upload else b""
    try:
        model = scenario_from_xlsx(data)
    except WorkbookError as exc:   # its messages never carry a library's exception text
        sections = build_form(scenario.latest.assumptions_dict)
        sections[0].errors.append(_("Cannot read the workbook: %(reason)s",
                                    reason=refusal(str(exc))))
        return form_page(scenario, {}, sections, 422)
    flash(_("Assumptions loaded from the workbook: check them, then save a new revision."))
    return form_page(scenario, model.model_dump(mode="json"))
