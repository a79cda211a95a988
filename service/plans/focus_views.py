"""The owned fleet's FOCUS CSV as a download of a revision (issue 43, item 1): linked from the
plan page and the Plan vs actual page; made from the stored plan document in the request
(service/plans/focus_owned.py)."""
from __future__ import annotations

from flask import Response, abort, g, request

from service.plans import bp
from service.plans.focus_owned import (FocusOwnedError, default_strategy, focus_owned,
                                       has_owned_fleet)
from service.plans.views import audit_download
from service.web.access import revision_or_404
from service.web.users import login_required


@bp.app_template_global("owned_export_strategy")
def owned_export_strategy(revision, doc):
    """The strategy the pages' FOCUS link exports (the approved one, else the recommended
    one), or None when it has no owned fleet (no link)."""
    if not doc:
        return None
    name = default_strategy(revision, doc)
    return name if has_owned_fleet(doc, name) else None


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/focus-owned.csv")
@login_required
def download_focus_owned(scenario_id: int, number: int):
    """``?strategy=NAME`` (default: the approved strategy, else the recommended one) and
    ``?version=1.3|1.4`` (default 1.3)."""
    revision = revision_or_404(g.user, scenario_id, number)
    try:
        out = focus_owned(revision, request.args.get("strategy"), request.args.get("version"))
    except FocusOwnedError as exc:
        abort(exc.status, exc.message)
    audit_download(revision, f"focus-owned.csv [strategy {out.strategy}]")
    return Response(out.text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{out.filename}"'})


@bp.app_template_global("has_owned_rows")
def has_owned_rows(monthly) -> bool:
    """Whether a strategy's monthly rows hold owned GPU-hours (the Plan vs actual page's
    FOCUS link shows then)."""
    return any(float(m.get("owned_gpu_hours") or 0.0) > 0 for m in monthly)
