"""Words of the owned fleet's FOCUS export (issue 43, item 1): the engine's refusals
(models.owned_focus.MESSAGES, repeated here so that pybabel extracts them; a test keeps the two
lists equal)."""
from __future__ import annotations

from service.i18n import N_

MESSAGES = (
    N_("the strategy %(strategy)s has no owned GPU-hours: there is no owned fleet to export"),
    N_("%(month)s: owned GPU-hours with no server online to carry them"),
    N_("the plan has no exchange rate for %(currency)s in %(month)s"),
)
