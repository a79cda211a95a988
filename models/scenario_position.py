"""What the team holds when the plan starts: the servers already owned and the commitments
already signed (the ``position`` section). Every strategy starts from it.

Separate from what may be decided (models.scenario_schedule) because it is a fact the plan
costs, not a choice it makes.
"""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, model_validator

from models.fields import field
from models.scenario_types import (CURRENCY_PATTERN, MAX_SERVERS, MONTH_PATTERN, SMALL_UNIT,
                                   TYPE_ID_PATTERN, Section)


class PositionServers(Section):
    """Servers already owned when the plan starts."""

    count: int = field(1, "Servers owned", "servers", guard=("le",), ge=1, le=MAX_SERVERS)
    purchased: str = field("2025-01", "Purchased", "YYYY-MM",
                           "Month of purchase: sets their age (resale value, remaining life, "
                           "depreciation already taken).", pattern=MONTH_PATTERN)
    price: float = field(300_000, "Purchase price", "currency per server", ge=0,
                         le=1e8 * SMALL_UNIT)
    install_cost: float = field(0.0, "Install cost", "currency per server", ge=0,
                                le=1e8 * SMALL_UNIT)
    type: Optional[str] = field(None, "Server type", "type id",
                                "The id of one of the server types; empty = the first type.",
                                pattern=TYPE_ID_PATTERN)


class PositionCommitment(Section):
    """A commitment already signed when the plan starts: paid to its end whatever the plan
    does."""

    id: str = field("signed", "Contract id", "text", pattern=r"^[A-Za-z0-9_.:/-]{1,80}$")
    gpus: int = field(8, "GPUs committed", "GPUs", guard=("le",), ge=1, le=1_000_000)
    start: str = field("2025-01", "Term start", "YYYY-MM", pattern=MONTH_PATTERN)
    term_months: int = field(12, "Term", "months", ge=1, le=120)
    price_per_gpu_hour: float = field(2.0, "Committed price", "currency per GPU-hour",
                                      "As billed (with VAT if cloud prices include it).",
                                      ge=0, le=1000 * SMALL_UNIT)
    payment: Literal["none", "partial", "all"] = field("none", "Upfront payment", "option",
                                                       "What was paid at signing (already "
                                                       "spent before the plan).")
    currency: Optional[str] = field(
        None, "Contract currency", "ISO 4217 code",
        "The currency the contract is billed in, e.g. USD for a dollar contract in a plan in "
        "won: its payments are converted at each month's exchange rate (an upfront one at "
        "the signing month's). Empty = the currency of cloud prices.",
        pattern=CURRENCY_PATTERN)


class Position(Section):
    """What the team holds when the plan starts; every strategy starts from it.

    Checked across fields: the ``count`` of all ``servers`` rows adds up to at most 100,000.
    """

    servers: tuple[PositionServers, ...] = Field(default=(), max_length=50,
                                                 title="Servers owned")
    commitments: tuple[PositionCommitment, ...] = Field(default=(), max_length=50,
                                                        title="Commitments signed")

    @model_validator(mode="after")
    def _fleet_within_limit(self) -> "Position":
        total = sum(c.count for c in self.servers)
        if total > MAX_SERVERS:
            raise ValueError(f"position.servers: {total:,} servers in all; at most "
                             f"{MAX_SERVERS:,}")
        return self
