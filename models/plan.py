"""compute_plan: scenario + usage profile -> every strategy, breakevens, recommendation.

A :class:`Plan` holds typed sections; models/document.py turns it into the plan document
(design 9.3), the contract every view (CLI, pages, API, xlsx) reads.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from models.breakeven import breakeven_section
from models.capacity import Capacity
from models.schedule_cohorts import ScheduleError, schedule_plan
from models.static_cohorts import static_plan
from models.document import build_document
from models.plan_sections import Plan
from models.explain import explanation
from models.ledger_build import plan_ledger
from models.messages import Message, Money
from models.optimize import find_optimal
from models.plan_limits import breaches
from models.plan_warnings import plan_warnings
from models.plan_options import PlanOptions
from models.plan_state import PlanError, PlanState
from models.profile import (UsageProfile, check_peak, demand_for,
                            plan_calendar)
from models.scenario import Scenario
from models.scenario_schedule import Decision
from models.problem_size import ProblemSize, check_size
from models.robust import demand_paths, robust_optimum
from models.staged import fleet_optimal, staged_optimum
from models.staged_problem import StagedError
from models.start import plan_start_month, start_warnings
from models.strategies import (buy_for_peak_capacity, never_beaten, on_demand_capacity,
                               proposed_capacity)
from models.strategy_result import StrategyResult
from models.uncertainty import uncertainty_section

STRATEGY_ORDER = ("on_demand", "cloud_only", "buy_for_peak", "optimal", "staged", "proposed")

# what a plan holds as its job goes on; "repriced": a live preview's, whose staged schedule
# is the last one solved, priced under the edited assumptions until a job re-optimizes it
STAGES = ("static", "repriced", "staged", "complete")


def build_state(scenario: Scenario, profile: UsageProfile,
                  current_month: Optional[str] = None) -> PlanState:
    """Everything a plan's strategies share: calendar, demand, prices, wastes.

    Parameters
    ----------
    scenario : Scenario
        Scenario: calendar, profile options, prices.
    profile : UsageProfile
        Usage to lay over the plan.
    current_month : str, optional
        The current month, ``'YYYY-MM'``, given by the caller (the engine reads no clock).

    Returns
    -------
    PlanState
        The plan state, from ``finance.start_month`` (or the month after the later of the usage
        and ``current_month``: models/start.py) for ``finance.horizon_months``.

    Raises
    ------
    PlanError
        Interruptible gang jobs that hardware failures alone stop from finishing.
    ProfileError
        Demand that needs more than ``models.profile.MAX_GPUS`` in some hour.

    Notes
    -----
    calendar = :func:`models.profile.plan_calendar` (start, H), start =
    :func:`models.start.plan_start_month`, H = ``finance.horizon_months``; demand =
    :func:`models.profile.demand_for` over sum_m hours_m plan hours, checked by
    :func:`models.profile.check_peak`.
    """
    f, p = scenario.finance, scenario.profile
    calendar = plan_calendar(plan_start_month(scenario, profile, current_month),
                             f.horizon_months)
    demand = demand_for(p, profile, calendar.total_hours)
    check_peak(demand, p.growth_annual)
    return PlanState.build(scenario, calendar, demand)


def recommend(results: dict[str, StrategyResult]) -> str:
    """The cheapest strategy within the scenario's limits by PV cost; ties go to the smaller
    capital outlay.

    Parameters
    ----------
    results : dict of str to StrategyResult
        Strategies priced, by name, their ``breaches`` found (models/plan_limits.py).

    Returns
    -------
    str
        Name of the recommended strategy: never one that breaks a limit (all on demand keeps
        every limit the position does, so one always qualifies; were none to, the cheapest).

    Notes
    -----
    chosen = argmin over the strategies without a breach (all of them when none is without) of
    (round(PV, 6), capital outlay) [currency].
    """
    kept = [n for n in results if not results[n].breaches] or list(results)
    return min(kept, key=lambda n: results[n].rank())


class Planner:
    """A plan computed stage by stage (``STAGES``), as a plan job shows it: the static
    strategies first (the issue-11 budget), then the staged schedule, then the uncertainty
    section and the ledger. :func:`compute_plan` runs every stage at once.

    Parameters
    ----------
    scenario : Scenario
        Every assumption of the plan.
    profile : UsageProfile
        Usage, as read from the file.
    input_warnings : sequence of Message, optional
        What reading the usage warned about; the plan's warnings start with them.
    current_month : str, optional
        The current month, ``'YYYY-MM'`` (see :func:`compute_plan`).
    options : PlanOptions, optional
        Settings beyond the scenario (models/plan_options.py); the defaults when None.

    Raises
    ------
    PlanError
        A scenario and profile that cannot be planned.
    """

    def __init__(self, scenario: Scenario, profile: UsageProfile,
                 input_warnings: Sequence[Message] = (), current_month: Optional[str] = None,
                 options: Optional[PlanOptions] = None):
        self.scenario, self.profile = scenario, profile
        self.options = options or PlanOptions()
        self.input_warnings = list(input_warnings)
        self.context = build_state(scenario, profile, current_month)
        self.results: dict[str, StrategyResult] = {}
        self.notes = start_warnings(scenario, self.context.calendar.months[0], current_month)
        self.robust = None      # models.robust.RobustResult, when the scenario has paths

    def add_static(self, known: Optional[dict[str, Capacity]] = None) -> bool:
        """Price on demand, buying for the peak, the best static plans and the proposal.

        Parameters
        ----------
        known : dict of str to Capacity, optional
            The decisions of ``cloud_only`` and ``optimal`` solved before (a live preview's:
            the edited assumptions' own optima come from a job): priced as they are instead of
            searched, when every offer they commit to is still offered.

        Returns
        -------
        bool
            True when the static optima are the ``known`` decisions re-priced.

        Raises
        ------
        PlanError
            A proposed schedule that cannot be carried out.
        """
        ctx = self.context
        self.results["on_demand"] = ctx.evaluate("on_demand", on_demand_capacity())
        self.results["buy_for_peak"] = ctx.evaluate("buy_for_peak", buy_for_peak_capacity(ctx))
        offers = {o.id for o in ctx.scenario.commitments}
        types = {k.id for k in ctx.fleet}
        repriced = bool(known) and set(known) == {"cloud_only", "optimal"} and \
            all(set(c.committed) <= offers and set(c.servers_by_type) <= types
                for c in known.values())
        if repriced:
            self.results.update({name: ctx.evaluate(name, known[name])
                                 for name in ("cloud_only", "optimal")})
        else:
            # the grid of the first type's servers and the commitments prices every candidate
            # with every charge (exact for one type); the MILP optimizes every type but only
            # the terms linear in the capacity: the cheaper of the two is the optimum
            grid = find_optimal(ctx)
            try:
                found = fleet_optimal(ctx)
            except StagedError as exc:
                # the MILP's method does not hold (owned work dearer than cloud overflow)
                found = grid
                if len(ctx.fleet) > 1:
                    self.notes.append(Message(
                        "The best static plans hold servers of the first type only, {type}: "
                        "{why}.", {"type": ctx.fleet[0].id, "why": str(exc)}))
            self.results.update({name: min((found[name], grid[name]), key=StrategyResult.rank)
                                 for name in ("cloud_only", "optimal")})
        proposed = proposed_strategy(ctx)
        if proposed is not None:
            self.results["proposed"] = proposed
        for name, rivals in (("cloud_only", ("on_demand",)),
                             ("optimal", ("cloud_only", "buy_for_peak", "proposed"))):
            note = never_beaten(ctx, self.results, name, rivals)
            if note is not None:
                self.notes.append(note)
        return repriced

    def check_size(self, robust: bool = True) -> ProblemSize:
        """Refuse, before any MILP is built, a plan whose staged or robust MILP would pass
        ``models.limits.MAX_MILP_COLUMNS`` (models/problem_size.py).

        Parameters
        ----------
        robust : bool, default True
            Whether the robust plan's stacked MILP is to be solved too.

        Returns
        -------
        ProblemSize
            The largest MILP's size.

        Raises
        ------
        ProblemTooLarge
            Past the bound; the message says the size and how to shrink it.
        """
        return check_size(self.context, self.options.growth_range_paths, robust)

    def add_staged(self, robust: bool = True) -> None:
        """Search the staged schedule (a MILP, models/staged.py) and price it; with
        ``robust``, the robust plan over the demand paths too (models/robust.py: the demand
        scenarios, else three from the demand growth range).

        Parameters
        ----------
        robust : bool, default True
            Also the robust plan when the scenario has demand paths (a live preview leaves it
            out).

        Raises
        ------
        ProblemTooLarge
            The MILPs would pass the size bound (:meth:`check_size`).
        """
        self.check_size(robust)
        staged = staged_strategy(self.context, self.results["optimal"], self.notes)
        if staged is not None:
            self.results["staged"] = staged
        if robust:
            self.add_robust()

    def add_robust(self) -> None:
        """The robust plan over the demand paths (issue 27), when the plan has paths: the
        demand scenarios, else three from the demand growth range (models/robust.py); a plan
        it cannot be made for says why in a note; one past the size bound is refused
        (:meth:`check_size`)."""
        self.check_size()
        from_range = self.options.growth_range_paths
        if demand_paths(self.scenario, from_range)[0]:
            try:
                robust = robust_optimum(self.context, self.profile, from_range=from_range)
            except StagedError as exc:
                self.notes.append(Message("No robust plan: {why}.", {"why": str(exc)}))
                return
            # the robust plan's savings: the static plans decided now, over the same paths
            robust.held_fixed = {name: robust.expected_pv_held_fixed(self.results[name].plan)
                                 for name in ("on_demand", "cloud_only") if name in self.results}
            self.robust = robust

    def add_repriced(self, schedule: Sequence[Decision]) -> bool:
        """Price a staged schedule solved before (a live preview's: the edited assumptions'
        own schedule comes from a job) as the staged strategy.

        Parameters
        ----------
        schedule : sequence of Decision
            The schedule, as the stored plan document of the latest revision gives it.

        Returns
        -------
        bool
            False, pricing nothing, when the schedule cannot be carried out under these
            assumptions (an offer it signs is gone, a sale of servers not held).
        """
        ctx = self.context
        decisions = tuple(sorted(schedule, key=lambda d: d.month))
        try:
            plan = schedule_plan(ctx.scenario, decisions, ctx.calendar.months[0],
                                 ctx.horizon, ctx.position)
        except ScheduleError:
            return False
        result = ctx.evaluate("staged", plan)
        result.schedule = decisions
        self.results["staged"] = result
        return True

    def plan(self, stage: str, uncertainty: bool = False) -> Plan:
        """The plan of the strategies priced so far.

        Parameters
        ----------
        stage : str
            The stage it is, one of ``STAGES``.
        uncertainty : bool, default False
            Add the tornado and the Monte Carlo (when ``uncertainty.draws`` > 0) and the
            ledger.

        Returns
        -------
        Plan
            Strategies in ``STRATEGY_ORDER``, the recommendation, warnings, breakevens, charts
            and the explanation. Money is in the reporting currency, costs positive (see
            :mod:`models`).
        """
        ctx = self.context
        ordered = {name: self.results[name] for name in STRATEGY_ORDER if name in self.results}
        for r in ordered.values():
            r.breaches = breaches(ctx, r)
        chosen = recommend(ordered)
        breakeven, charts = breakeven_section(ctx, ordered, chosen)
        section = None
        if uncertainty and self.scenario.uncertainty.draws > 0:
            section = uncertainty_section(ctx, ordered, self.profile, chosen)
        text = explanation(ctx, ordered, chosen, breakeven.payback_month.get(chosen), section)
        plan = Plan(self.scenario, self.profile, ctx.calendar, ordered, chosen,
                    self.notes + plan_warnings(ctx, ordered), breakeven, charts, text, section,
                    list(self.input_warnings), stage=stage, robust=self.robust)
        if uncertainty:
            plan.ledger = plan_ledger(ctx, ordered, self.profile, self.robust)
        plan.document = build_document(plan, ctx)
        return plan


def compute_plan(scenario: Scenario, profile: UsageProfile,
                 input_warnings: Sequence[Message] = (), *,
                 current_month: Optional[str] = None,
                 options: Optional[PlanOptions] = None) -> Plan:
    """Every strategy of the design (5.1) for a scenario and a usage profile.

    Parameters
    ----------
    scenario : Scenario
        Every assumption of the plan.
    profile : UsageProfile
        Usage, as read from the file.
    input_warnings : sequence of Message, optional
        What reading the usage warned about; the plan's warnings start with them.
    current_month : str, optional
        The current month, ``'YYYY-MM'`` (the service and the CLI give it; models read no
        clock): a default start is the month after the later of the usage's end and it, and
        an explicit start before it is warned about. None: the month after the usage.
    options : PlanOptions, optional
        Settings beyond the scenario (models/plan_options.py); the defaults when None.

    Returns
    -------
    Plan
        The complete plan: strategies in ``STRATEGY_ORDER``, the recommendation, warnings,
        breakevens, charts, the explanation, the tornado and Monte Carlo when
        ``uncertainty.draws`` > 0, and the ledger. Money is in the reporting currency, costs
        positive (see :mod:`models`).

    Raises
    ------
    PlanError
        A scenario and profile that cannot be planned (including a proposed schedule that
        cannot be carried out).
    """
    planner = Planner(scenario, profile, input_warnings, current_month, options)
    planner.add_static()
    planner.add_staged()
    return planner.plan("complete", uncertainty=True)


def staged_strategy(ctx: PlanState, optimal: StrategyResult, notes: list[Message]
                    ) -> Optional[StrategyResult]:
    """The staged optimum (models/staged.py) costed by the engine.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (limits of ``staging``).
    optimal : StrategyResult
        The best static plan.
    notes : list of Message
        Warnings so far; a note is appended when the staged plan is missing, follows the best
        static plan, or is not proven optimal.

    Returns
    -------
    StrategyResult or None
        The staged plan with its schedule; None, with a note, when its optimum cannot be
        proven. A staged plan dearer than the best static plan is impossible when proven (a
        static plan is a schedule) and is replaced by it.

    Notes
    -----
    Without limits, when PV(staged) > PV(optimal) + tol, tol = 1e-9 x max(1, |PV(optimal)|), the
    static optimum is priced as the staged plan instead [currency]; a note says the gap when
    gap > 1e-9 x max(1, |objective|).
    """
    try:
        found = staged_optimum(ctx)
    except StagedError as exc:
        notes.append(Message("No staged plan: {why}.", {"why": str(exc)}))
        return None
    result = ctx.evaluate("staged", found.plan)
    result.schedule = found.decisions
    cur = ctx.scenario.finance.currency
    limits = ctx.scenario.staging
    unlimited = limits.capital_budget_per_year is None and limits.max_servers is None
    if unlimited and result.pv_cost > optimal.pv_cost + 1e-9 * max(1.0, abs(optimal.pv_cost)):
        # a static plan is a schedule: the non-linear terms the optimum leaves out (setup fee,
        # support minimum, data of months with no work) or an unproven optimum made it dearer
        notes.append(Message("The staged plan follows the best static plan: the schedule "
                             "found cost {more} more once every charge was counted.",
                             {"more": Money(result.pv_cost - optimal.pv_cost, cur)}))
        result = ctx.evaluate("staged", optimal.plan)
        result.schedule = static_schedule(ctx, optimal.capacity)
    elif found.limited:
        notes.append(Message("The staged optimizer stopped at its work limit; the schedule "
                             "found is within {gap} of the cheapest.",
                             {"gap": Money(found.gap, cur)}))
    elif found.gap > 1e-9 * max(1.0, abs(found.objective)):
        notes.append(Message("The staged plan is within {gap} of the cheapest schedule but not "
                             "proven the cheapest: owned data is so much cheaper than cloud data "
                             "that a commitment's cost is not convex in its size.",
                             {"gap": Money(found.gap, cur)}))
    return result


def static_schedule(ctx: PlanState, capacity) -> tuple:
    """A static decision as a schedule.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (first month, horizon).
    capacity : Capacity
        The static decision: servers, and committed GPUs per offer, held for the whole
        horizon (replaced and renewed as they end).

    Returns
    -------
    tuple of models.scenario.Decision
        Servers bought at each generation's start, commitments signed at each term's start.

    Notes
    -----
    Decisions in month m: buy = sum of the counts of the server cohorts bought in m, commit = sum
    of the GPUs of the commitment cohorts starting in m, from :func:`models.capacity.static_plan`.
    """
    s, H = ctx.scenario, ctx.horizon
    plan = static_plan(s, capacity, H, first_month=ctx.calendar.months[0])
    first = np.datetime64(ctx.calendar.months[0], "M")
    by_month: dict[int, dict] = {}
    for c in plan.servers:
        buy = by_month.setdefault(c.bought, {"buy": {}, "commit": {}})["buy"]
        buy[c.type] = buy.get(c.type, 0) + c.count
    for c in plan.commitments:
        entry = by_month.setdefault(c.start, {"buy": {}, "commit": {}})
        entry["commit"][c.offer] = entry["commit"].get(c.offer, 0) + c.gpus
    return tuple(Decision(month=str(first + m), buy=e["buy"], commit=e["commit"])
                 for m, e in sorted(by_month.items()))


def proposed_strategy(ctx: PlanState) -> Optional[StrategyResult]:
    """The analyst's capacity: a schedule from the position, or static servers and GPUs.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (``proposed`` and the position).

    Returns
    -------
    StrategyResult or None
        The ``proposed`` strategy; None when the scenario proposes nothing.

    Raises
    ------
    PlanError
        A proposed schedule that cannot be carried out.
    """
    s = ctx.scenario
    if s.proposed.schedule or s.proposed.hold_only:
        try:
            plan = schedule_plan(s, s.proposed.schedule, ctx.calendar.months[0], ctx.horizon,
                                 ctx.position)
        except ScheduleError as exc:
            raise PlanError(f"proposed.schedule: {exc}") from None
        result = ctx.evaluate("proposed", plan)
        result.schedule = tuple(sorted(s.proposed.schedule, key=lambda d: d.month))
        return result
    capacity = proposed_capacity(s)
    return None if capacity is None else ctx.evaluate("proposed", capacity)
