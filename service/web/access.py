"""Object-level access rules, in one place.

- analysts see and edit their own scenarios; other analysts' scenarios do not exist for them (404)
- reviewers and admins see every scenario (read); reviewers may also build their own
- only the owner (or an admin) creates revisions of a scenario
- reviewers and admins review, never a revision they authored
"""
from __future__ import annotations

from flask import abort
from sqlalchemy import select

from service.i18n import _
from service.web.tables import Revision, ScenarioRecord, User
from service.web.db import get_session

MAX_ID = 1_999_999_999   # Integer columns are int4 on PostgreSQL (2**31 - 1); SQLite overflows
                         # past 2**63. app.RowId's pattern allows exactly up to this.


def id_or_404(text: object) -> int:
    """A row id or revision number given as text (a query argument): digits only, in range."""
    value = str(text)
    if not value.isascii() or not value.isdigit() or len(value) > 10 or int(value) > MAX_ID:
        abort(404)
    return int(value)


def can_view(user: User, scenario: ScenarioRecord) -> bool:
    return scenario.owner_id == user.id or user.role in ("reviewer", "admin")


def can_edit(user: User, scenario: ScenarioRecord) -> bool:
    return scenario.owner_id == user.id or user.role == "admin"


def can_review(user: User, revision: Revision) -> bool:
    return user.can_review and revision.author_id != user.id


def visible_scenarios(user: User):
    query = select(ScenarioRecord).order_by(ScenarioRecord.id.desc())
    if user.role == "analyst":
        query = query.where(ScenarioRecord.owner_id == user.id)
    return get_session().scalars(query).all()


def scenario_or_404(user: User, scenario_id: int) -> ScenarioRecord:
    scenario = get_session().get(ScenarioRecord, scenario_id)
    if scenario is None or not can_view(user, scenario):
        abort(404)
    return scenario


def editable_scenario(user: User, scenario_id: int) -> ScenarioRecord:
    scenario = scenario_or_404(user, scenario_id)
    if not can_edit(user, scenario):
        abort(403, _("Only the scenario's owner can change it."))
    return scenario


def revision_or_404(user: User, scenario_id: int, number: int) -> Revision:
    scenario = scenario_or_404(user, scenario_id)
    revision = get_session().scalar(select(Revision).where(
        Revision.scenario_id == scenario.id, Revision.number == number))
    if revision is None:
        abort(404)
    return revision
