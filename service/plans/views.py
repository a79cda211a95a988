"""Plan pages (summary cards, charts, monthly table, downloads), reviews and the audit log."""
from __future__ import annotations

import base64
import json

from flask import (Response, abort, flash, g, jsonify, redirect, render_template, request,
                   url_for)
from sqlalchemy import or_, select

from service.plans import bp
from service.web import idempotency
from service.web.access import can_edit, can_review, revision_or_404
from service.web.users import login_required
from service.web.tables import (AuditEvent, PlanJob, Review, Revision, ScenarioRecord, UsageFile,
                                User, audit)
from service.web.db import get_session, write_session
from service.xlsx.export import safe_download_name
from service.i18n import _, labels
from service.ingest.template import usage_template_csv, usage_template_xlsx
from service.plans.jobs import records
from service.plans.stored import (RevisionPlan, ensure_plan, job_status, owner_key, pdf_job, read_plan,
                                  reason, workbook_job)
from service.plans.reviews import ReviewInputError, parse_review
from service.plans.usage_download import is_xlsx, safe_csv
from service.plans.reviews import DONE, assumption_choices
from service.plans.page import plan_page_values

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
STRATEGY_LABELS = labels.STRATEGY_LABELS  # English names; pages show strategy_label(name)


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>")
@login_required
def show(scenario_id: int, number: int):
    revision = revision_or_404(g.user, scenario_id, number)
    scenario = revision.scenario
    error, retryable = None, False
    view = read_plan(revision)
    doc, charts = view.document, view.charts
    if revision.usage_file_id is None:
        error = _("This revision has no usage file yet: upload one to see its plan.")
    elif view.error:
        retryable = records.retryable(view.job)
        error = (_("Planning stopped before the plan was complete: %(reason)s", reason=view.error)
                 if retryable else
                 _("The engine cannot plan this revision: %(reason)s", reason=view.error))
    strategy = request.args.get("strategy") or (doc["recommendation"] if doc else None)
    if doc and strategy not in doc["strategies"]:
        abort(404)
    choices = assumption_choices(revision)
    return render_template(
        "plans/show.html", **plan_page_values(revision, doc, charts), error=error,
        retryable=retryable,
        strategy=strategy, editable=can_edit(g.user, scenario),
        may_review=can_review(g.user, revision), assumptions=choices,
        assumption_labels=dict(choices), done_words=DONE, complete=view.complete,
        job=job_status(view.job) if view.job is not None and not view.complete else None,
        may_cancel=view.job is not None and not view.complete
        and view.job.owner_key == owner_key(),
        job_url=url_for("plans.plan_job", scenario_id=scenario_id, number=number))


@bp.post("/scenarios/<int:scenario_id>/revisions/<int:number>/plan-again")
@login_required
def plan_again(scenario_id: int, number: int):
    """Queue again a revision's plan that failed for a transient cause (a budget, a memory cap,
    a worker that stopped: service.plans.jobs.records.TRANSIENT); the engine's refusal of the
    inputs stays. Anyone who may read the revision may ask: nothing of it changes."""
    revision = revision_or_404(g.user, scenario_id, number)
    job = ensure_plan(revision, again=True)
    if job is not None and job.state in records.OPEN:
        flash(_("The plan is queued again."))
    return redirect(url_for("plans.show", scenario_id=scenario_id, number=number))


@bp.post("/scenarios/<int:scenario_id>/revisions/<int:number>/cancel")
@login_required
def cancel_plan(scenario_id: int, number: int):
    """Cancel the revision's plan job while it waits or runs: only the person whose job it is
    (a job is shared by content; another reader's view of it stays)."""
    revision = revision_or_404(g.user, scenario_id, number)
    view = read_plan(revision, start=False)
    job = view.job
    if job is None or job.owner_key != owner_key():
        abort(403, _("Only the person who started this computation can cancel it."))
    if records.cancel(job.id):
        with write_session() as s:
            audit(s, s.get(User, g.user.id), "plan.cancel", revision=s.get(Revision, revision.id),
                  details=f"job {job.id}")
        flash(_("The computation was cancelled; reload the page to start it again."))
    return redirect(url_for("plans.show", scenario_id=scenario_id, number=number))


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/job")
@login_required
def plan_job(scenario_id: int, number: int):
    """The state of a revision's plan job, for the page's poller (complete: reload)."""
    revision = revision_or_404(g.user, scenario_id, number)
    view = read_plan(revision, start=False)
    body = {"complete": view.complete, "stage": (view.document or {}).get("stage")}
    if view.job is not None:
        body["job"] = job_status(view.job)
    return jsonify(body)


def complete_plan(revision: Revision) -> RevisionPlan:
    """The revision's complete plan, else 409 (its job is queued, running or failed): a
    download or an approval binds to the plan on record."""
    if revision.usage_file_id is None:
        abort(409, _("This revision has no usage file yet: upload one to see its plan."))
    view = read_plan(revision)
    if view.error:
        abort(409, _("The engine cannot plan this revision: %(reason)s", reason=view.error))
    if not view.complete:
        abort(409, _("The plan of this revision is still being computed; try again when the "
                     "plan page shows it complete."))
    return view


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/plan.json")
@login_required
def download_json(scenario_id: int, number: int):
    revision = revision_or_404(g.user, scenario_id, number)
    doc = complete_plan(revision).document
    name = download_stem(revision) + ".json"
    audit_download(revision, "plan.json")
    return Response(json.dumps(doc, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def audit_download(revision: Revision, what: str) -> None:
    """Who downloaded what of which revision (design 7: reviewers read others' numbers)."""
    with write_session() as s:
        audit(s, s.get(User, g.user.id), "download", revision=s.get(Revision, revision.id),
              details=what)


def download_stem(revision: Revision) -> str:
    return safe_download_name(revision.scenario.name, revision.number).removesuffix(".xlsx")


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/plan.xlsx")
@login_required
def download_xlsx(scenario_id: int, number: int):
    revision = revision_or_404(g.user, scenario_id, number)
    complete_plan(revision)
    job = workbook_job(revision)
    if job.state != "done":
        return file_pending(job, revision)
    audit_download(revision, "plan.xlsx")
    return Response(job.result, mimetype=XLSX, headers={
        "Content-Disposition": f'attachment; filename="{download_stem(revision)}.xlsx"'})


def file_pending(job: PlanJob, revision: Revision):
    """202 while a workbook or PDF job runs (JSON for scripts, else a page that reloads
    itself), 409 with its reason when it failed."""
    if job.state in ("failed", "cancelled"):
        # a PDF without Chromium on the server: the service, not the plan, is missing a part
        abort(503 if job.kind == "pdf" else 409, reason(job) or _("The file could not be "
                                                                  "written."))
    if request.accept_mimetypes.best == "application/json":
        return jsonify({"job": job_status(job)}), 202, {"Retry-After": "2"}
    return render_template("plans/file_pending.html", revision=revision,
                           scenario=revision.scenario, job=job_status(job)), 202, \
        {"Refresh": "2", "Retry-After": "2"}


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/plan.pdf")
@login_required
def download_pdf(scenario_id: int, number: int):
    """The plan page's print view as PDF (service.plans.pdf), printed by a PDF job in the
    reader's language, once per revision and language."""
    revision = revision_or_404(g.user, scenario_id, number)
    complete_plan(revision)
    job = pdf_job(revision)
    if job.state != "done":
        return file_pending(job, revision)
    audit_download(revision, "plan.pdf")
    return Response(job.result, mimetype="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="{download_stem(revision)}.pdf"'})


def revision_usage(scenario_id: int, number: int) -> tuple[Revision, UsageFile]:
    """A revision this user may see and its usage file; 404 when either is missing."""
    revision = revision_or_404(g.user, scenario_id, number)
    if revision.usage_file is None:
        abort(404)
    return revision, revision.usage_file


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/usage")
@login_required
def download_usage(scenario_id: int, number: int):
    """The usage file as CSV with formula-looking cells escaped (service.plans.usage_download)."""
    revision, usage = revision_usage(scenario_id, number)
    data = safe_csv(usage.data, usage.filename)
    audit_download(revision, "usage (formulas escaped)")
    return Response(data, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="usage-{usage.sha256[:12]}.csv"'})


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/usage/original")
@login_required
def download_usage_original(scenario_id: int, number: int):
    """The usage file byte for byte, as uploaded and hashed into the revision's SHA-256."""
    revision, usage = revision_usage(scenario_id, number)
    audit_download(revision, f"usage original sha256={usage.sha256}")
    digest = base64.b64encode(bytes.fromhex(usage.sha256)).decode()
    return Response(usage.data, mimetype="application/octet-stream", headers={
        "Content-Disposition": f'attachment; filename="usage-{usage.sha256[:12]}-original'
                               f'{suffix(usage.filename)}"',
        "X-Content-SHA256": usage.sha256, "Repr-Digest": f"sha-256=:{digest}:"})


def suffix(filename: str) -> str:
    return ".xlsx" if is_xlsx(filename) else ".csv"


@bp.get("/usage-template.<fmt>")
@login_required
def usage_template(fmt: str):
    makers = {"csv": (usage_template_csv, "text/csv"), "xlsx": (usage_template_xlsx, XLSX)}
    if fmt not in makers:
        abort(404)
    maker, mimetype = makers[fmt]
    return Response(maker(), mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="usage-template.{fmt}"'})


@bp.post("/scenarios/<int:scenario_id>/revisions/<int:number>/reviews")
@login_required
@idempotency.idempotent
def review(scenario_id: int, number: int):
    revision = revision_or_404(g.user, scenario_id, number)
    if not g.user.can_review:
        abort(403, _("Only reviewers can review a revision."))
    if revision.author_id == g.user.id:
        abort(403, _("You authored this revision: someone else must review it."))
    expected = request.form.get("revision_hash", "")
    if not expected:
        abort(400, _("A review must name the SHA-256 of the revision it reviews "
                     "(revision_hash); reload the page and review again."))
    if expected != revision.content_hash:
        abort(409, _("This revision is not the one the review form was showing."))
    strategy = None
    if request.form.get("decision") == "approve":
        # 409 before anything else: no reason makes it approvable
        strategy = approved_strategy(approvable(revision).document)
        if not confirmed_after_changes(revision):
            return ask_to_confirm(scenario_id, number)
    try:
        review_input = parse_review(revision, request.form.get("decision", "comment"),
                                    request.form.get("comment", ""),
                                    request.form.get("field_path", ""))
    except ReviewInputError as exc:
        flash(str(exc))
        return redirect(url_for("plans.show", scenario_id=scenario_id, number=number)
                        + "#review")
    except ValueError as exc:
        abort(400, str(exc))
    decision = review_input.decision
    try:
        with idempotency.transaction() as s:
            if decision == "approve":
                confirm_in(s, revision)
            record_review(s, revision, review_input, scenario_id, number, strategy)
    except ApprovalOverChanges:
        return ask_to_confirm(scenario_id, number)
    flash({"approve": _("Revision %(number)s approved.", number=number),
           "reject": _("Revision %(number)s rejected.", number=number),
           "changes": _("Changes requested on revision %(number)s.", number=number),
           "comment": _("Comment added.")}[decision])
    return redirect(url_for("plans.show", scenario_id=scenario_id, number=number))


class ApprovalOverChanges(Exception):
    """An unconfirmed approval found, in its own transaction, a request for changes."""


def confirm_in(s, revision: Revision) -> None:
    """The "approve over a request for changes" check, in the transaction that writes the
    approval: read before it, two racing reviewers' unconfirmed approval landed after the
    request in 16 of 20 rounds (issue 40). The revision's row is locked (PostgreSQL; SQLite's
    write transaction is already exclusive) and its last decision read again."""
    s.execute(select(Revision.id).where(Revision.id == revision.id).with_for_update())
    last = s.scalar(select(Review.decision).where(Review.revision_id == revision.id,
                                                  Review.decision != "comment")
                    .order_by(Review.id.desc()).limit(1))
    if last == "changes" and request.form.get("confirm_after_changes") != "yes":
        raise ApprovalOverChanges()


def ask_to_confirm(scenario_id: int, number: int):
    flash(_("Changes were requested on revision %(number)s: to approve it anyway, tick "
            "“approve although changes were requested” and approve again.", number=number))
    return redirect(url_for("plans.show", scenario_id=scenario_id, number=number) + "#review")


def record_review(s, revision: Revision, review_input, scenario_id: int, number: int,
                  strategy: str | None = None) -> None:
    """The review row, its audit event and the idempotency key's outcome, in ``s``; an
    approval names the strategy it approves (the baseline of plan against actual)."""
    decision = review_input.decision
    s.add(Review(revision_id=revision.id, revision_hash=revision.content_hash,
                 reviewer_id=g.user.id, decision=decision, comment=review_input.comment,
                 field_path=review_input.field_path, strategy=strategy))
    about = f"[{review_input.field_path}] " if review_input.field_path else ""
    if strategy is not None:
        about = f"[strategy {strategy}] " + about
    audit(s, s.get(User, g.user.id), f"review.{decision}", revision=s.get(Revision,
                                                                        revision.id),
          details=(about + review_input.comment)[:500])
    idempotency.remember(s, location=url_for("plans.show", scenario_id=scenario_id,
                                             number=number))


def confirmed_after_changes(revision: Revision) -> bool:
    """An approval of a revision whose last decision requested changes says it means it
    (``confirm_after_changes=yes``; the page's script asks first, the field serves without
    JavaScript): approving over a request is rarely what a click on Approve intends."""
    return revision.status != "changes requested" or \
        request.form.get("confirm_after_changes") == "yes"


def approved_strategy(document: dict) -> str:
    """The strategy an approval names (form field ``strategy``), by default the plan's
    recommended one; a name the plan does not hold is a 400."""
    name = request.form.get("strategy", "").strip() or document["recommendation"]
    if name not in document["strategies"]:
        abort(400, _("The plan has no strategy %(name)s to approve.", name=repr(name[:40])))
    return name


def approvable(revision: Revision) -> RevisionPlan:
    """The revision's complete plan, else 409 (no usage file, no complete stored plan): an
    approval binds to numbers someone could see."""
    if revision.usage_file_id is None:
        abort(409, _("A revision without a usage file cannot be approved: upload one first."))
    view = read_plan(revision)
    if view.error:
        abort(409, _("A revision without a plan cannot be approved: %(reason)s",
                     reason=view.error))
    if not view.complete:
        abort(409, _("The plan of this revision is still being computed: it can be approved "
                     "once it is complete."))
    return view


@bp.get("/audit")
@login_required
def audit_log():
    query = select(AuditEvent).order_by(AuditEvent.id.desc()).limit(1000)
    if g.user.role == "analyst":  # their own actions and events on their scenarios
        own = select(ScenarioRecord.id).where(ScenarioRecord.owner_id == g.user.id)
        query = query.where(or_(AuditEvent.actor_id == g.user.id,
                                AuditEvent.scenario_id.in_(own)))
    return render_template("plans/audit.html", events=get_session().scalars(query).all())
