"""A second revision of the seeded sample scenario, for tests of its plan job."""
from __future__ import annotations

from sqlalchemy import select

from models.scenario import Scenario
from service.plans.revisions import add_revision
from service.web.db import write_session
from service.web.tables import ScenarioRecord, User


def dearer_revision(app, server_price: float) -> tuple[int, int]:
    """Revision 2 of scenario 1 by ana with ``owned.server_price`` changed (its plan job
    written waiting, deferred with the revision): (revision id, ana's user id)."""
    with app.app_context():
        with write_session() as s:
            scenario = s.get(ScenarioRecord, 1)
            ana = s.scalar(select(User).where(User.username == "ana"))
            model = Scenario.model_validate(scenario.latest.assumptions_dict)
            revision = add_revision(s, scenario, ana,
                                    model.with_changes(owned={"server_price": server_price}),
                                    scenario.latest.usage_file)
            return revision.id, ana.id
