"""A plan as typed sections (``Plan``): the scenario and usage it was planned from, every
strategy priced, the recommendation, the breakevens, the explanation, the uncertainty, the
ledger and the document built from them, by stage (static, staged, complete).

Separate from the modules that write the document (models.document, strategy_document,
section_documents) because each of them reads it, and models.plan builds it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from models.messages import Message
from models.breakeven import BreakevenSection, Charts
from models.explain import Explanation
from models.ledger import Ledger
from models.profile import PlanCalendar, UsageProfile
from models.scenario import Scenario
from models.strategy_result import StrategyResult
from models.uncertainty import UncertaintySection


@dataclass
class Plan:
    """A plan, or the part of it computed so far (``stage``).

    ``static``: every strategy but the staged schedule, the recommendation among them, the
    breakevens and the explanation; ``staged``: the staged schedule too (the recommendation,
    breakevens and explanation redone); ``complete``: the uncertainty section too, and the
    ledger (models/ledger.py) the workbook is written from.
    """

    scenario: Scenario
    profile: UsageProfile
    calendar: PlanCalendar
    strategies: dict[str, StrategyResult]
    recommendation: str
    warnings: list[Message]
    breakeven: BreakevenSection
    charts: Charts
    explanation: Explanation
    uncertainty: Optional[UncertaintySection] = None
    input_warnings: list[Message] = field(default_factory=list)  # from reading the usage
    robust: Optional[Any] = None    # models.robust.RobustResult (issue 27), with the staged stage
    stage: str = "complete"
    ledger: Optional[Ledger] = None
    document: dict = field(default_factory=dict)   # plan_document(plan): built with the plan

    @property
    def all_warnings(self) -> list[Message]:
        """Warnings from reading the usage, then the engine's."""
        return self.input_warnings + self.warnings
