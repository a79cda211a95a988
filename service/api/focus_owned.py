"""API of the owned fleet's FOCUS export (issue 43, item 1):
``GET /api/v1/scenarios/<id>/revisions/<n>/focus-owned.csv[?strategy=S&version=1.3|1.4]``, the
CSV ``buyrent focus-export --plan PLAN.json --strategy S --version V`` writes for the
revision's stored plan (service/plans/focus_owned.py)."""
from __future__ import annotations

from flask import Response, request

from service.api import bp
from service.api.actuals import revision_of
from service.api.openapi import FOCUS_OWNED_RESPONSES, SPEC, FocusOwnedQuery
from service.api.revisions import visible_scenario
from service.plans.focus_owned import FocusOwnedError, focus_owned
from service.web.errors import ApiError


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/focus-owned.csv")
@SPEC.validate(query=FocusOwnedQuery, skip_validation=True, tags=["actuals"],
               operation_id="getFocusOwned", resp=FOCUS_OWNED_RESPONSES)
def get_focus_owned(scenario_id: int, number: int):
    """The owned fleet of a revision's plan as FOCUS rows (CSV)

    One FOCUS 1.3 or 1.4 Cost and Usage row per month (and per server type of a fleet) with
    the owned servers' GPU-hours at the fully loaded internal price per GPU-hour (every owned
    cost of the strategy over its owned GPU-hours), ``SkuPriceDetails`` giving ``GpuCount``.
    ``strategy`` defaults to the approved strategy, else the recommended one; 409 while the
    plan is computed or for a strategy with no owned servers.
    """
    visible_scenario(scenario_id)
    revision = revision_of(scenario_id, number)
    try:
        out = focus_owned(revision, request.args.get("strategy"), request.args.get("version"))
    except FocusOwnedError as exc:
        raise ApiError(exc.status, exc.message) from None
    return Response(out.text, mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{out.filename}"'})
