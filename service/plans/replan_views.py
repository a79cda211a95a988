"""The "Re-plan from actuals" button of the Plan vs actual page (issue 43): a new revision made
from the actuals (service/plans/replan.py), whose plan the job queue computes; the page of
the new revision says what changed against the approved one (the comparison)."""
from __future__ import annotations

from flask import abort, flash, g, redirect, url_for

from models.refusals import Refusal
from service.i18n import _
from service.i18n.ingest_refusals import refusal
from service.plans import bp
from service.plans.actuals import baseline
from service.plans.replan import (ReplanError, build_replan, check_replan, make_replan,
                                  replanned_from, same_replan)
from service.plans.stored import ensure_plan
from service.web import idempotency
from service.web.access import editable_scenario, revision_or_404
from service.web.db import get_session
from service.web.tables import Revision, User
from service.web.users import login_required


def refusal_words(exc: Exception) -> str:
    """Why a re-plan cannot be made, in the reader's language."""
    if isinstance(exc, ReplanError):
        return _(exc.template, **exc.values)
    return _("The engine cannot plan these assumptions: %(reason)s", reason=refusal(str(exc)))


@bp.post("/scenarios/<int:scenario_id>/revisions/<int:number>/replan")
@login_required
@idempotency.idempotent
def replan(scenario_id: int, number: int):
    """A new revision re-planned from the actuals of approved revision ``number`` (its owner
    or an admin): its page, or the Plan vs actual page again saying why not."""
    editable_scenario(g.user, scenario_id)
    revision = revision_or_404(g.user, scenario_id, number)
    base = baseline(revision)
    if base is None:
        abort(404)
    back = url_for("plans.plan_vs_actual", scenario_id=scenario_id, number=number)
    try:
        plan = build_replan(base)
    except ReplanError as exc:
        flash(refusal_words(exc))
        return redirect(back)
    existing = same_replan(base, plan)
    if existing is not None:
        flash(_("Revision %(number)s already is this re-plan.", number=existing.number))
        return redirect(url_for("plans.show", scenario_id=scenario_id,
                                number=existing.number))
    try:
        check_replan(plan)
    except Refusal as exc:
        flash(refusal_words(exc))
        return redirect(back)
    with idempotency.transaction() as s:
        made = make_replan(s, s.get(User, g.user.id), base, plan)
        target = url_for("plans.show", scenario_id=scenario_id, number=made.number)
        idempotency.remember(s, location=target)
    ensure_plan(get_session().get(Revision, made.id))
    flash(_("Saved as revision %(number)s, re-planned from the actuals to %(month)s; its plan "
            "is being computed.", number=made.number, month=plan.last_actual))
    return redirect(target)


@bp.app_template_filter("replanned_from")
def replanned_from_filter(revision: Revision):
    """(approved revision number, last actual month) of a re-plan revision, else None: the
    plan page links the comparison with the approved revision."""
    return replanned_from(revision)
