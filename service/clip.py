"""How much of a user's value an error message repeats.

A message that quotes what the user sent helps them find it, but an upload with one 15 MB cell
or a form field of 500 KB must not come back whole (a 31 MB error page). Every quoted value
goes through :func:`clip`: up to about 80 characters, then its full length.
"""
from __future__ import annotations

import numbers

SHOWN = 80          # characters of a value quoted in a message
MESSAGE = 2_000     # characters of one problem message, whatever it quotes


def clip(value: object, limit: int = SHOWN) -> str:
    """``value`` as text, cut to ``limit`` characters with its length when longer."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def number_text(value: numbers.Real) -> str:
    """A number as people write it: 5 for 5.0, 0.1, inf; numpy's own numbers too, never as
    their repr (``np.float64(-5.0)``)."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    x = float(value)
    return str(int(x)) if x.is_integer() else repr(x)


def clip_repr(value: object, limit: int = SHOWN) -> str:
    """``repr`` of a value, a text cut like :func:`clip` (quotes kept, its length after); a
    number as :func:`number_text` writes it."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return clip(number_text(value), limit)
    if not isinstance(value, str):
        return clip(repr(value), limit)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


def clip_message(text: str, limit: int = MESSAGE) -> str:
    """A whole message, bounded (a safety net behind the per-value cuts)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (message cut at {limit:,} of {len(text):,} characters)"


NAME = 40           # characters of a scenario name where a label has little room
_OPENING = {"(": ")", "[": "]", "（": "）"}
_TRAILING = " ,;:-–—/·"


def short_name(name: str, limit: int = NAME) -> str:
    """``name`` within ``limit`` characters for a label with little room (a chart legend, a
    table header): cut at the last word boundary that fits, never inside a parenthesis (the cut
    moves before its opening bracket), then "…". Pages put the whole name in a ``title``
    attribute beside it. A first word longer than ``limit`` is cut inside the word."""
    text = " ".join(str(name).split())
    if len(text) <= limit:
        return text
    room = limit - 1                       # the ellipsis takes one character
    space = text.rfind(" ", 0, room + 1)
    cut = text[:space] if space > 0 else text[:room]
    outside = _outside_brackets(cut)
    if outside.strip(_TRAILING):
        cut = outside
    return cut.rstrip(_TRAILING) + "…"


def _outside_brackets(text: str) -> str:
    """``text`` up to the first bracket it opens and does not close."""
    opened: list[tuple[int, str]] = []
    for i, char in enumerate(text):
        if char in _OPENING:
            opened.append((i, _OPENING[char]))
        elif opened and char == opened[-1][1]:
            opened.pop()
    return text[:opened[0][0]] if opened else text
