"""The order of a plan's strategy cards: the recommended plan first, always (issue 39, item 4).

The plan document keeps its strategies in the engine's order (all on demand, cloud only, buy for
peak, the optimum, the staged plan, ...), in which the recommended one came fourth or fifth: a
reader looked for it along a ragged row. The template (templates/plans/_cards.html) draws the
cards in this order, so the first card element of the page is the recommended one, whatever the
screen width or the stylesheet.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional


def recommended_first(strategies: dict[str, Any], recommendation: Optional[str]
                      ) -> list[tuple[str, Any]]:
    """``strategies`` as (name, entry) pairs, the recommended one first and the others in their
    own order (a recommendation not among them changes nothing)."""
    pairs: Iterable[tuple[str, Any]] = strategies.items()
    return sorted(pairs, key=lambda pair: pair[0] != recommendation)
