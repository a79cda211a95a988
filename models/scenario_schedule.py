"""What may be decided, and the analyst's own decisions: the staged and robust plans' settings
(``staging``: decision interval, sales, budget and hall limits, the demand scenarios and the
weight of risk) and the proposed strategy (``proposed``: servers and commitments held, or a
schedule of decisions month by month).

Separate from the position (what is held) and the prices (what things cost): these fields say
when and how the plan may buy, sell and sign.
"""
from __future__ import annotations

import math
from typing import Literal, Optional

from pydantic import Field, model_validator

from models.fields import field
from models.scenario_types import (MAX_SERVERS, MONTH_PATTERN, SMALL_UNIT, Count, OfferId,
                                   Section, SoldCohort, TypeId, only_pattern_keys)


DEMAND_SCENARIO_PATTERN = r"^[A-Za-z0-9_ .%+-]{1,40}$"


class DemandScenario(Section):
    """One path demand may take (issue 27): its growth and how likely it is."""

    name: str = field("base", "Scenario name", "text", "Names the path in the plan.",
                      pattern=DEMAND_SCENARIO_PATTERN)
    growth_annual: float = field(0.3, "Demand growth", "fraction per year",
                                 "Demand grows like this from the plan's first month if this "
                                 "path turns out.", guard=("le",), ge=-0.9, le=10)
    probability: float = field(1.0, "Probability", "fraction",
                               "How likely this path is; the paths' probabilities add up to 1.",
                               ge=0, le=1)
    peak_to_average: Optional[float] = field(
        None, "Peak-to-average", "ratio", "This path's busiest hour over the average hour of a "
        "day, for daily and monthly usage rows; empty: as the profile section says.",
        ge=1, le=24)
    interruptible_share: Optional[float] = field(
        None, "Interruptible share", "fraction of demand", "This path's share of work that "
        "may be interrupted; empty: as the profile section says.", ge=0, le=1)


class Risk(Section):
    """How the robust plan weighs the dear outcomes against the expected one (issue 27)."""

    cvar_alpha: float = field(0.9, "CVaR level", "fraction",
                              "The CVaR is the mean PV of the dearest (1 - level) share of "
                              "outcomes.", ge=0.5, le=0.99)
    cvar_weight: float = field(0.0, "Risk aversion", "fraction",
                               "0: the least expected PV; 1: the least CVaR of PV; between: "
                               "the blend (1 - w) x expected PV + w x CVaR.",
                               schema={"widget": "slider"}, ge=0, le=1)


class Staging(Section):
    """The staged plan: when to buy servers and sign commitments.

    Checked across fields: demand scenarios' names are unique and their probabilities add
    up to 1.
    """

    decision_interval_months: Literal[1, 3, 6, 12] = field(
        3, "Decision interval", "months",
        "Decisions every this many months from the plan's first month (also at the end of a "
        "useful life and of a commitment term, so that every static plan is a schedule).")
    allow_sales: bool = field(False, "Allow selling servers", "yes/no",
                              "Servers may be sold at resale value at a decision point.")
    capital_budget_per_year: Optional[float] = field(
        None, "Capital budget", "currency per calendar year",
        "Purchases and upfront commitment payments in each calendar year stay within it.",
        ge=0, le=1e11 * SMALL_UNIT)
    max_servers: Optional[int] = field(None, "Hall limit", "servers",
                                       "Servers online at once (space or power).",
                                       guard=("le",), ge=0,
                                       le=MAX_SERVERS)
    max_power_kw: Optional[float] = field(
        None, "Hall power limit", "kW", "Power of the servers online at once at maximum draw "
        "x PUE, every type together.", guard=("le",), ge=0, le=1e9)
    demand_scenarios: tuple[DemandScenario, ...] = Field(
        default=(), max_length=9, title="Demand scenarios",
        description="Paths demand may take, each with its growth and probability: the robust "
                    "plan's first decisions hold for all of them; empty: three, at the demand "
                    "growth range's low end, the plan's own growth and the high end, with "
                    "probabilities 0.25, 0.5 and 0.25 (unless 'Scenarios from the growth "
                    "range' is off, or the growth range has no width: then no robust plan).")
    # issue 27's default, with an opt-out that keeps the growth range in the tornado and the
    # Monte Carlo (a growth range of no width opts out too, but removes that uncertainty)
    scenarios_from_growth_range: bool = field(
        True, "Scenarios from the growth range", "yes/no",
        "Without demand scenarios of its own, the robust plan plans for three from the demand "
        "growth range (its low end, the plan's own growth, its high end). No: a robust plan "
        "only over demand scenarios given here.")
    decide_now_months: int = field(
        12, "Decide now", "months", "Decisions in the plan's first this many months are the "
        "same in every demand scenario; later ones adapt to the path that turns out.",
        ge=1, le=240)
    risk: Risk = Field(default_factory=Risk, title="Risk")

    @model_validator(mode="after")
    def _scenarios_add_up(self) -> "Staging":
        paths = self.demand_scenarios
        if not paths:
            return self
        names = [p.name for p in paths]
        if len(set(names)) != len(names):
            raise ValueError(f"staging.demand_scenarios: names must be unique, got {names}")
        total = math.fsum(p.probability for p in paths)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"staging.demand_scenarios: the probabilities add up to "
                             f"{total:.12g}, not 1 (off by {total - 1.0:+.3g})")
        return self


class Decision(Section):
    """One month of a schedule: buy or sell servers, sign commitments (blocks of an offer).

    Checked across fields: ``sell_from``, when given, adds up to ``sell_servers`` (with the
    servers of ``sell``); ``buy``/``sell`` by type are not given beside ``buy_servers``/
    ``sell_servers``; ``commit``
    names offers of the scenario's ``commitments``, each with a multiple of its ``block_gpus``.
    """

    month: str = field("2027-01", "Month", "YYYY-MM", pattern=MONTH_PATTERN)
    buy_servers: int = field(0, "Buy servers", "servers", guard=("le",), ge=0, le=MAX_SERVERS)
    sell_servers: int = field(0, "Sell servers", "servers", guard=("le",), ge=0, le=MAX_SERVERS)
    sell_from: dict[SoldCohort, Count] = Field(
        default_factory=dict, title="Sold servers by purchase month",
        description="Purchase month (YYYY-MM, or type:YYYY-MM with server types) -> servers "
                    "sold from it; empty: oldest first.",
        json_schema_extra=only_pattern_keys)
    buy: dict[TypeId, Count] = Field(default_factory=dict, title="Buy by type",
                                     description="Servers bought per server type id",
                                     json_schema_extra=only_pattern_keys)
    sell: dict[TypeId, Count] = Field(default_factory=dict, title="Sell by type",
                                      description="Servers sold per server type id (oldest "
                                                  "first within a type)",
                                      json_schema_extra=only_pattern_keys)
    commit: dict[OfferId, Count] = Field(default_factory=dict, title="Commit",
                                         description="GPUs committed per offer id this month",
                                         json_schema_extra=only_pattern_keys)


class Proposed(Section):
    """The analyst's own plan, costed as the ``proposed`` strategy.

    Checked across fields: a ``schedule``, or ``servers`` and ``committed_gpus``, not both;
    the schedule has at most one decision a month; ``committed_gpus`` names offers of the
    scenario's ``commitments``, each with a multiple of its ``block_gpus``.
    """

    servers: Optional[int] = field(None, "Proposed servers", "servers", guard=("le",), ge=0,
                                   le=MAX_SERVERS)
    servers_by_type: dict[TypeId, Count] = Field(
        default_factory=dict, title="Proposed servers by type",
        description="Servers per server type id, held for the whole horizon",
        json_schema_extra=only_pattern_keys)
    committed_gpus: dict[OfferId, Count] = Field(default_factory=dict,
                                                 title="Proposed commitments",
                                                 description="GPUs committed per offer id",
                                                 json_schema_extra=only_pattern_keys)
    schedule: tuple[Decision, ...] = Field(
        default=(), max_length=240, title="Proposed schedule",
        description="Decisions by month (months without one omitted); when given, the "
                    "proposed strategy is this schedule from the position.")
    # an empty schedule cannot say "keep what is held": every stored scenario dumps
    # "schedule": [] for "no proposal", so the proposal of no decision is its own field
    # (issue 37, item 5)
    hold_only: bool = field(False, "Propose keeping only what is held", "yes/no",
                            "Cost holding the servers and contracts of 'What you hold today' "
                            "and buying or signing nothing more (work beyond them on demand or "
                            "spot). Not with proposed servers, commitments or a schedule.")
