"""JSON numbers as JSON Schema reads them: ``8.0`` is the integer 8.

The API's OpenAPI document says ``"type": "integer"`` for a count of servers; JSON Schema
counts any number whose fractional part is zero as an integer, so ``8.0`` and ``8e0`` are
valid there. pydantic's strict JSON mode (which refuses ``"8"`` and ``true`` for a number, on
purpose) also refused ``8.0``: Schemathesis found the document accepting what the server
refused (issue 40, item 8). A whole number written with a fraction or an exponent is read here
as the integer it is, before the strict validation; every other value is left as written.
"""
from __future__ import annotations

import json
import math


def _number(text: str) -> float | int:
    value = float(text)
    return int(value) if math.isfinite(value) and value.is_integer() else value


def whole_numbers(text: str | bytes) -> str | bytes:
    """JSON text with each whole number written as a float read as the integer it is.

    Parameters
    ----------
    text : str or bytes
        A JSON document as sent.

    Returns
    -------
    str or bytes
        ``text`` with each whole number written as a float (``23795.0``, ``1e3``) written as
        an integer, of the type given; ``text`` itself when there is none, or when it is no
        JSON (the strict validator then says why, as before).
    """
    try:
        changed = False

        def number(token: str) -> float | int:
            nonlocal changed
            value = _number(token)
            changed = changed or isinstance(value, int)
            return value
        value = json.loads(text, parse_float=number)
        if not changed:
            return text
        # a number past a float's range (1e400) stays unwritable: the text as sent, refused
        out = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (ValueError, RecursionError):
        return text
    return out.encode() if isinstance(text, (bytes, bytearray)) else out
