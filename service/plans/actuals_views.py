"""Pages of plan against actual (issue 43): a scenario's actual bills (upload and list) and the
Plan vs actual page of an approved revision. What they read and store is
service/plans/actuals.py; nothing here parses a stored bill or runs a solver."""
from __future__ import annotations

from flask import Response, abort, flash, g, redirect, render_template, request, url_for

from models.refusals import Refusal
from models.variance import VarianceError
from service.plans import alerts, alert_posts as alert_task
from service.clip import MESSAGE, clip_message
from service.i18n import _
from service.i18n.variance_words import part_label
from service.owned_actuals import template_csv
from service.plans import bp
from service.plans import actuals as held
from service.plans.actual_charts import plan_vs_actual_charts
from service.plans.actuals import (MAX_FILES, baseline, latest_baseline, read_upload_files,
                                   store_upload, uploads)
from service.plans.replan import replanned_column
from service.plans.actuals_fx import stated_rate
from service.web.access import can_edit, editable_scenario, revision_or_404, scenario_or_404
from service.web import idempotency
from service.web.tables import User
from service.web.users import login_required


def bill_files() -> list[tuple[str, bytes]]:
    """The request's bills (form field ``bills``, one or more files), each (name, bytes)."""
    files = [f for f in request.files.getlist("bills") if f is not None and f.filename]
    return [(f.filename, f.read()) for f in files]


@bp.route("/scenarios/<int:scenario_id>/actuals", methods=("GET", "POST"))
@login_required
@idempotency.idempotent
def actuals(scenario_id: int):
    """The scenario's actual bills (GET: anyone who may read the scenario) and their upload
    (POST: its owner or an admin)."""
    if request.method == "POST":
        return upload_actuals(scenario_id)
    scenario = scenario_or_404(g.user, scenario_id)
    return actuals_page(scenario)


def actuals_page(scenario, message=None, problems=(), status=200):
    return render_template("plans/actuals.html", scenario=scenario,
                           base=latest_baseline(scenario), uploads=uploads(scenario.id),
                           editable=can_edit(g.user, scenario), message=message,
                           problems=list(problems), max_files=MAX_FILES), status


def refusal_text(exc: Exception) -> tuple[str, list]:
    """A refusal of bills in the reader's language with its problems by row and column (the
    page's filter translates a reader's refusal; the engine's is a catalog sentence)."""
    if isinstance(exc, VarianceError):
        return _(exc.template, **exc.values), []
    return clip_message(str(exc), 4 * MESSAGE), list(getattr(exc, "problems", []))


def upload_actuals(scenario_id: int):
    """Bills read, checked against the newest approved revision's baseline and stored, or the
    page again (422) saying by row and column what is wrong, nothing saved."""
    scenario = editable_scenario(g.user, scenario_id)
    base = latest_baseline(scenario)
    if base is None:
        abort(409, _("No revision of this scenario is approved: actuals are read against an "
                     "approved plan."))
    files = bill_files()
    if not files:
        return actuals_page(scenario, _("Choose one or more bills."), status=422)
    if len(files) > MAX_FILES:
        return actuals_page(scenario, _("At most %(count)s bills in one upload.",
                                        count=MAX_FILES), status=422)
    try:
        rate = stated_rate(request.form.get("fx_rate"))
    except ValueError as exc:
        return actuals_page(scenario, str(exc), status=422)
    try:
        months = read_upload_files(base, files, rate)
    except (Refusal, VarianceError) as exc:
        message, problems = refusal_text(exc)
        return actuals_page(scenario, message, problems, status=422)
    target = url_for("plans.plan_vs_actual", scenario_id=scenario_id,
                     number=base.revision.number)
    with idempotency.transaction() as s:
        user = s.get(User, g.user.id)
        upload = store_upload(s, user, base, files, months)
        breaches = alerts.record_breaches(s, user, base, upload)   # issue 43: thresholds
        idempotency.remember(s, location=target)
    alert_task.enqueue_posts(scenario_id, breaches)
    flash(_("Actuals saved for %(months)s.", months=", ".join(m.month for m in months)))
    return redirect(target)


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/actual")
@login_required
def plan_vs_actual(scenario_id: int, number: int):
    """Plan vs actual of an approved revision (404 for a revision without an approval in
    force): the variance by part per month and year to date, cumulative spend, the forecast
    and the table by line, computed from the stored monthly actuals."""
    revision = revision_or_404(g.user, scenario_id, number)
    base = baseline(revision)
    if base is None:
        abort(404)
    stored = held.scenario_actuals(revision.scenario_id)    # read once for the whole page
    doc = held.plan_vs_actual(base, stored)
    parts = []
    if doc is not None:
        names = list(dict.fromkeys(k for e in doc["months"] + [doc["ytd"]] for k in e["parts"]))
        parts = [(name, part_label(name)) for name in names]
    replanned = replanned_column(base, doc, stored)
    return render_template("plans/plan_vs_actual.html", revision=revision,
                           scenario=revision.scenario, base=base, doc=doc, parts=parts,
                           alerts=alerts.revision_breaches(revision.id),
                           editable=can_edit(g.user, revision.scenario), replanned=replanned,
                           charts=plan_vs_actual_charts(doc, replanned)
                           if doc is not None else None)



@bp.get("/owned-actuals-template.csv")
@login_required
def owned_actuals_template():
    """The owned fleet's actuals template (service/owned_actuals.py), uploaded beside the
    bills."""
    return Response(template_csv(), mimetype="text/csv", headers={
        "Content-Disposition": 'attachment; filename="owned-actuals-template.csv"'})
