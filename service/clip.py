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
