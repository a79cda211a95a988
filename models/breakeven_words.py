"""Which side of a breakeven is cheaper, in words: pure data and its sentence, with no engine
state (the service's sentences read it; the workbook writer's import contract is strict,
issue 36). models/breakeven.py finds the breakevens.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.messages import Message


@dataclass(frozen=True)
class Direction:
    """Which side is cheaper on which side of a breakeven."""

    cheaper: str          # "owned", or a cloud option's name
    when: str             # "above" | "below"
    other: str

    def message(self) -> Message:
        """The direction as a sentence.

        Returns
        -------
        Message
            "{cheaper} is cheaper than {other} above (or below) this utilization".
        """
        if self.when == "above":
            return Message("{cheaper} is cheaper than {other} above this utilization",
                           {"cheaper": self.cheaper, "other": self.other})
        return Message("{cheaper} is cheaper than {other} below this utilization",
                       {"cheaper": self.cheaper, "other": self.other})

    def as_json(self) -> dict:
        """JSON-ready form of the direction.

        Returns
        -------
        dict
            ``cheaper``, ``when`` ("above" or "below"), ``other`` and the English ``text``.
        """
        return {"cheaper": self.cheaper, "when": self.when, "other": self.other,
                "text": self.message().text}
