"""What the engine refuses to plan: one family, so that the service says it in one place each
for a page, a JSON error and a CLI line (service/refusals.py).

Each kind keeps its own class (callers that handle one kind, e.g. a staged plan that cannot be
proven and becomes a note, catch it by name); everything else catches :class:`Refusal`.
"""
from __future__ import annotations

from typing import Optional


class Refusal(ValueError):
    """A scenario, usage or schedule the engine will not plan, and why.

    Parameters
    ----------
    message : str
        One sentence a person reads (English; the service translates it).
    problems : list of dict, optional
        Problems by place, ``{"row": int | None, "column": str | None, "message": str}``
        (a usage file's rows and columns); empty when the message says it all.
    """

    def __init__(self, message: str, problems: Optional[list[dict]] = None):
        super().__init__(message)
        self.problems = list(problems or [])


class Worded(ValueError):
    """An error said from a fixed English template and its values, so that a caller can say
    it in another language from the same template (the gettext catalog holds each template).

    Parameters
    ----------
    template : str
        One of the raising module's MESSAGES, with ``%(name)s`` placeholders.
    **values
        The placeholders' values.
    """

    def __init__(self, template: str, **values) -> None:
        super().__init__(template % values)
        self.template, self.values = template, values

