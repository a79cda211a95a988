"""A stored revision's owned fleet as FOCUS rows (issue 43, item 1): the CSV of
service/focus_export.py made from the revision's stored plan document, for the plan page, the
Plan vs actual page (service/plans/focus_views.py) and the API (service/api/focus_owned.py).

Cheap enough for a request: exact arithmetic over the stored strategy's monthly rows, no
solver, no workbook (the demo plan's 60 months: 43-50 ms per CSV, mean of 50, load average 8
on the shared 2 cores while tests ran).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from models.owned_focus import OwnedExportError
from service.focus_export import VERSIONS, focus_csv
from service.i18n import _
from service.i18n.labels import strategy_label
from service.plans.stored import read_plan
from service.web.tables import Revision
from service.xlsx.export import safe_download_name


class FocusOwnedError(Exception):
    """A request for the export that cannot be answered: ``status`` and the reader's words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


@dataclass
class FocusOwned:
    filename: str
    text: str
    strategy: str


def default_strategy(revision: Revision, doc: Mapping[str, Any]) -> str:
    """The strategy an approval in force approved (the baseline), else the recommended one."""
    approval = revision.approval
    if approval is not None and approval.strategy in doc["strategies"]:
        return approval.strategy
    return doc["recommendation"]


def has_owned_fleet(doc: Optional[Mapping[str, Any]], strategy: Optional[str]) -> bool:
    """Whether a strategy of a document has owned GPU-hours to export (the links show then)."""
    if not doc or strategy not in doc.get("strategies", {}):
        return False
    return any(float(m.get("owned_gpu_hours") or 0.0) > 0
               for m in doc["strategies"][strategy]["monthly"])


def focus_owned(revision: Revision, strategy: Optional[str], version: Optional[str]
                ) -> FocusOwned:
    """The CSV of the revision's complete plan; FocusOwnedError 409 while the plan is not
    complete, 404 for a strategy it lacks, 400 for a version other than 1.3 or 1.4, 409 for a
    strategy with no owned fleet."""
    version = version or "1.3"
    if version not in VERSIONS:
        raise FocusOwnedError(400, _("FOCUS version %(version)s: this export writes 1.3 or "
                                     "1.4.", version=version))
    view = read_plan(revision, start=False)
    if not view.complete or view.document is None:
        raise FocusOwnedError(409, _("The plan of this revision is still being computed; try "
                                     "again when the plan page shows it complete."))
    doc = view.document
    name = strategy or default_strategy(revision, doc)
    if name not in doc["strategies"]:
        raise FocusOwnedError(404, _("The plan has no strategy %(name)s.", name=name[:40]))
    try:
        text = focus_csv(doc, name, version, account_id=f"scenario-{revision.scenario_id}",
                         account_name=revision.scenario.name)
    except OwnedExportError as exc:
        values = dict(exc.values)
        if "strategy" in values:        # a strategy as the reader's language names it
            values["strategy"] = strategy_label(values["strategy"])
        raise FocusOwnedError(409, _(exc.template, **values)) from None
    stem = safe_download_name(revision.scenario.name, revision.number).removesuffix(".xlsx")
    return FocusOwned(f"{stem}-{name}-focus-{version}-owned.csv", text, name)
