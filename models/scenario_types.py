"""The vocabulary every section of the scenario is written in: the ``Section`` base (frozen,
no unknown keys), the patterns of months, ids and currencies, the constrained key types of its
mappings, and the bounds shared across sections (the largest fleet, the scale of money bounds).

Separate from the sections themselves so that each section module (owned servers, the cloud,
settings, the position, the schedule) and ``models.scenario`` read one set of patterns and
bounds, and no section module imports another for them.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from models.fields import SECTION_CONFIG

# The largest fleet a scenario can name (owned, proposed, bought in one decision); the optimizers
# stop there too, so that every plan they find can be typed back in as a proposal.
MAX_SERVERS = 100_000
MONTH_PATTERN = r"^\d{4}-(0[1-9]|1[0-2])$"
OFFER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
CURRENCY_PATTERN = r"^[A-Z]{3}$"
# Upper bounds of money fields are written in dollars and scaled by this, so that a currency
# with a small unit fits as well (1 USD is about 1,400 KRW, 150 JPY, 16,000 IDR).
SMALL_UNIT = 20_000


class Section(BaseModel):
    model_config = SECTION_CONFIG


Month = Annotated[str, Field(pattern=MONTH_PATTERN)]
OfferId = Annotated[str, Field(pattern=OFFER_ID_PATTERN)]
Count = Annotated[int, Field(ge=0)]

TYPE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,20}$"
TypeId = Annotated[str, Field(pattern=TYPE_ID_PATTERN)]
# sell_from keys: a purchase month, or type:month in a scenario with server types
SOLD_COHORT_PATTERN = r"^([A-Za-z0-9_-]{1,20}:)?\d{4}-(0[1-9]|1[0-2])$"
SoldCohort = Annotated[str, Field(pattern=SOLD_COHORT_PATTERN)]


def only_pattern_keys(schema: dict) -> None:
    """JSON Schema of a mapping keyed by Month or OfferId: no other key (a callable, so that
    the field stays a plain pydantic Field for models.fields.field_meta).

    Parameters
    ----------
    schema : dict
        The mapping's JSON Schema, changed in place.
    """
    schema["additionalProperties"] = False
