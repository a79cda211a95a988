"""The Plan vs actual workbook of an approved revision (issue 43): written by a job
(service/plans/jobs/compute.py run_variance, service/xlsx/variance_sheet.py), never in a
request, and downloaded from the Plan vs actual page.

One job per revision, language and set of actuals: its key hashes the monthly actuals it
holds, the approved strategy and the workbook's layout, so an upload that changes a month
writes a new workbook and the same actuals are written once however many people download them.
"""
from __future__ import annotations

import hashlib
import json

from flask import Response, abort, g

from service.actuals import to_json
from service.i18n import _, current_locale, normalize
from service.plans import bp
from service.plans.actuals import Baseline, baseline, scenario_actuals
from service.plans.jobs import records
from service.plans.jobs.versions import ENGINE_VERSION, EXPORT_VERSION
from service.plans.stored import owner_key
from service.plans.views import XLSX, audit_download, download_stem, file_pending
from service.web.access import revision_or_404
from service.web.tables import PlanJob
from service.web.users import login_required

SHEET_LAYOUT = "variance1"      # bumped when the Variance sheet's layout changes


def variance_job(base: Baseline, lang: str | None = None) -> PlanJob | None:
    """The job writing the Plan vs actual workbook of ``base`` against the scenario's actuals
    within its plan, in ``lang``; None when there are no such actuals."""
    lang = normalize(lang or current_locale())
    revision = base.revision
    plan_months = {str(r["month"]) for r in base.monthly}
    inside = [m for m, _u in scenario_actuals(revision.scenario_id).values()
              if m.month in plan_months]
    if not inside:
        return None
    spec = {"strategy": base.strategy, "currency": base.currency, "lang": lang,
            "label": _("%(name)s, revision %(number)s", name=revision.scenario.name,
                       number=revision.number),
            "actuals": to_json(inside)}
    digest = hashlib.sha256(json.dumps(
        [spec, revision.content_hash, EXPORT_VERSION, SHEET_LAYOUT, ENGINE_VERSION],
        sort_keys=True, allow_nan=False).encode()).hexdigest()
    return records.request("variance", f"r{revision.id}:{lang}:{digest}", spec, owner_key(),
                           ENGINE_VERSION, revision_id=revision.id)


@bp.get("/scenarios/<int:scenario_id>/revisions/<int:number>/plan-vs-actual.xlsx")
@login_required
def download_variance_xlsx(scenario_id: int, number: int):
    """The Plan vs actual workbook (its Variance sheet) of an approved revision: 404 without an
    approval in force or without actuals within its plan, 202 while its job writes it."""
    revision = revision_or_404(g.user, scenario_id, number)
    base = baseline(revision)
    if base is None:
        abort(404)
    job = variance_job(base)
    if job is None:
        abort(404)
    if job.state != "done":
        return file_pending(job, revision)
    audit_download(revision, "plan-vs-actual.xlsx")
    stem = download_stem(revision)
    return Response(job.result, mimetype=XLSX, headers={
        "Content-Disposition": f'attachment; filename="{stem}-plan-vs-actual.xlsx"'})
