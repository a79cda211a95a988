"""Review decisions and the review queues of the scenarios page.

Every comment and decision is a new ``reviews`` row (never an update): the status of a
revision is its last decision. A decision may point at one assumption (``field_path``, a
dotted path of the revision's scenario such as ``owned.server_price``); an approval must say
why (its comment is the reason), and a request for changes must say what.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from service.web.tables import DECISIONS, Revision, ScenarioRecord, User
from service.forms.scenario import flatten, label_for
from service.i18n import N_, _

MAX_COMMENT = 5000
# English, marked for the catalogs; shown through _() in the reader's language
DONE = {"approve": N_("approved"), "reject": N_("rejected"),
        "changes": N_("requested changes to"), "comment": N_("commented on")}
NEEDS_TEXT = {"approve": N_("An approval names its reason: write why you approve."),
              "changes": N_("Say what should change (and pick the assumption if it is one)."),
              "reject": N_("Say why you reject this revision."),
              "comment": N_("Write a comment, or choose a decision.")}


class ReviewInputError(ValueError):
    """A review the form cannot take (shown to the reviewer; nothing is saved)."""


@dataclass(frozen=True)
class ReviewInput:
    decision: str
    comment: str
    field_path: Optional[str]


def assumption_choices(revision: Revision) -> list[tuple[str, str]]:
    """(path, label) of every assumption of the revision, in schema order."""
    return [(path, label_for(path)) for path in flatten(revision.assumptions_dict)]


def parse_review(revision: Revision, decision: str, comment: str,
                 field_path: str) -> ReviewInput:
    if decision not in DECISIONS:
        raise ValueError(f"decision must be one of {', '.join(DECISIONS)}")
    comment = comment.strip()[:MAX_COMMENT]
    field_path = field_path.strip() or None
    if field_path is not None and field_path not in flatten(revision.assumptions_dict):
        raise ReviewInputError(_("%(path)r is not an assumption of this revision.",
                                 path=field_path))
    if not comment:
        raise ReviewInputError(_(NEEDS_TEXT[decision]))
    return ReviewInput(decision, comment, field_path)


def awaiting_review(user: User, scenarios: list[ScenarioRecord]) -> list[Revision]:
    """Latest revisions with a plan that nobody has decided on and that ``user`` may review."""
    if not user.can_review:
        return []
    out = []
    for scenario in scenarios:
        latest = scenario.latest
        if (latest is not None and latest.usage_file_id is not None
                and latest.author_id != user.id and latest.status == "unreviewed"):
            out.append(latest)
    return out


def changes_requested(user: User, scenarios: list[ScenarioRecord]) -> list[tuple[Revision, list]]:
    """The user's own scenarios whose latest revision has changes requested, with the
    requests (newest last)."""
    out = []
    for scenario in scenarios:
        latest = scenario.latest
        if scenario.owner_id == user.id and latest is not None and \
                latest.status == "changes requested":
            out.append((latest, [r for r in latest.reviews if r.decision == "changes"]))
    return out
