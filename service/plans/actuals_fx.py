"""The exchange rate a user states with an upload of bills (issue 43, item 2): the form field
and the API part ``fx_rate``, in the plan's reporting currency per unit of its foreign one,
for bills in the foreign currency that give no amount in the reporting currency
(models/variance_fx.py)."""
from __future__ import annotations

import math
from typing import Optional

from service.i18n import _


def stated_rate(text: Optional[str]) -> Optional[float]:
    """The stated rate, None when empty; ValueError (the reader's words) when it is not a
    number above 0."""
    text = (text or "").strip().replace(",", "")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)) or len(text) > 30:
        raise ValueError(_("The exchange rate paid must be a number above 0."))
    return value
