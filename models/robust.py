"""The robust plan (issue 27): a staged plan whose first decisions hold for every demand path.

``staging.demand_scenarios`` lists paths demand may take (a growth rate and a probability
each). Decisions in the plan's first ``staging.decide_now_months`` months are made now, the
same in every path (non-anticipativity); later decisions adapt to the path that turns out
(recourse). The problem is the extensive form: one staged MILP (models/staged_block.py
:class:`Block`) per path, stacked, with equality rows tying the here-and-now decisions
together, minimising

    (1 - w) E[PV] + w CVaR_alpha(PV),
    CVaR_alpha = min over eta of  eta + 1 / (1 - alpha) sum_s p_s max(PV_s - eta, 0)

(Rockafellar-Uryasev: linear with eta and one u_s >= PV_s - eta, u_s >= 0 a path). It is
solved by branch and bound over the here-and-now decisions alone (:func:`solve_decomposed`,
models/robust_search.py): a box bounded by the extensive form's LP relaxation within it, a
point priced by each path's staged optimum with those decisions held. The stacked MILP with
every path's epigraphs given tangents until each is tight (:func:`solve_extensive`) is the
fallback and the tests' independent check. Either way the result is proven optimal (gap 0)
or states its gap. Reported beside it, each path's own staged optimum
(perfect foresight) gives the EVPI, expected PV of the robust plan minus the
probability-weighted PV of those optima, and the base path's staged plan, its here-and-now
decisions fixed and the rest re-optimised per path, gives the VSS, its expected PV minus the
robust plan's: what planning for the spread of paths saves over planning for the base one.

Modules
-------
This module finds a plan's paths and orchestrates; models/robust_problem.py stacks the
extensive form (its columns and rows named blocks: ``path[path, column]``, ``eta``,
``cvar_excess[path]``, ``nonanticipativity[path, decision]``), models/robust_solve.py holds
both methods, models/robust_alternatives.py the least-capital alternative and the EVPI and VSS,
models/robust_result.py what they return.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.plan_state import PlanState
from models.profile import UsageProfile
from models.robust_alternatives import add_foresight, least_capital
from models.robust_problem import floors
from models.robust_result import RobustResult
from models.robust_solve import solve_decomposed, solve_extensive
from models.scenario import Scenario
from models.scenario_schedule import DemandScenario
from models.staged import solve
from models.staged_block import Block
from models.staged_problem import StagedError
from models.uncertainty import what_if_context

# without demand scenarios of its own, a plan's paths are its demand growth range's ends and
# its own growth, weighted like a three-point estimate (issue 27)
DEFAULT_PATHS = (("low", 0.25), ("likely", 0.5), ("high", 0.25))
GROWTH_RANGE = "profile.growth_annual"


def demand_paths(s: Scenario, from_range: bool = True
                 ) -> tuple[tuple[DemandScenario, ...], bool]:
    """The demand paths of a plan: ``staging.demand_scenarios``, else three from the
    uncertainty section's demand growth range.

    Parameters
    ----------
    s : Scenario
        The scenario.
    from_range : bool, default True
        Whether a scenario without demand scenarios gets the growth range's three
        (:class:`models.plan_options.PlanOptions` ``growth_range_paths``).

    Returns
    -------
    tuple
        (paths, from_range). Without scenarios of its own: ``low`` at the growth plus the
        range's low end, ``likely`` at the growth, ``high`` at the growth plus the high end,
        with probabilities 0.25, 0.5 and 0.25 (ends that coincide are one path with their
        probabilities added; an end beyond a demand scenario's growth bounds, -90 % and
        +1000 % a year, is that bound); none when
        ``staging.scenarios_from_growth_range`` is off or the range has no width (both ends
        0).

    Notes
    -----
    From the range: g_low = clip(g + r_low, lo, hi), g_likely = g, g_high = clip(g + r_high, lo,
    hi), with g the plan's growth, r the range's ends [fraction per year], lo and hi of
    :func:`growth_bounds`; probabilities 0.25, 0.5, 0.25, summed where growths coincide.
    """
    if s.staging.demand_scenarios:
        return s.staging.demand_scenarios, False
    g, r = s.profile.growth_annual, s.uncertainty.ranges[GROWTH_RANGE]
    if not (from_range and s.staging.scenarios_from_growth_range) or (r.low == 0 and
                                                                       r.high == 0):
        return (), True
    low, high = growth_bounds()
    growths = {"low": min(max(g + r.low, low), high), "likely": g,
               "high": min(max(g + r.high, low), high)}
    merged: dict[float, list] = {}
    for name, probability in DEFAULT_PATHS:
        merged.setdefault(growths[name], [name, 0.0])[1] += probability
    return tuple(DemandScenario(name=name, growth_annual=growth, probability=probability)
                 for growth, (name, probability) in merged.items()), True


def growth_bounds() -> tuple[float, float]:
    """A demand scenario's growth bounds, read off its field (one source of truth).

    Returns
    -------
    tuple of float
        (least, greatest) growth_annual [fraction per year].

    Notes
    -----
    (lo, hi) = (``ge``, ``le``) of ``DemandScenario.growth_annual``'s field constraints [fraction
    per year].
    """
    meta = DemandScenario.model_fields["growth_annual"].metadata
    return (next(m.ge for m in meta if getattr(m, "ge", None) is not None),
            next(m.le for m in meta if getattr(m, "le", None) is not None))


def base_path(ctx: PlanState, paths: tuple[DemandScenario, ...]) -> int:
    """The path the plan's own growth describes, else the likeliest (the first of equals).

    Parameters
    ----------
    ctx : PlanState
        The plan's context (its ``profile.growth_annual``).
    paths : tuple of DemandScenario
        The demand paths.

    Returns
    -------
    int
        Index of the base path.

    Notes
    -----
    The first s with g_s = g (the plan's growth), else argmax_s p_s.
    """
    own = ctx.scenario.profile.growth_annual
    for i, p in enumerate(paths):
        if p.growth_annual == own:
            return i
    return int(np.argmax([p.probability for p in paths]))


def path_contexts(ctx: PlanState, paths: tuple[DemandScenario, ...],
                  profile: Optional[UsageProfile] = None) -> list[PlanState]:
    """The engine's context of each path: the plan with the path's growth (and its own
    peak-to-average and interruptible share where it sets them).

    Parameters
    ----------
    ctx : PlanState
        The plan's context.
    paths : tuple of DemandScenario
        The demand paths.
    profile : UsageProfile, optional
        The usage, to lay demand again with each growth (else the plan's demand rescaled).

    Returns
    -------
    list of PlanState
        One per path, in order.

    Raises
    ------
    StagedError
        A path sets its own demand shape and no profile is given.

    Notes
    -----
    Path s's demand is the usage laid again with growth g_s (and its own peak-to-average and
    interruptible share where set), priced by the plan's own price book: ctx_s =
    :func:`models.uncertainty.what_if_context` (ctx, scenario with profile = the path's).
    """
    s = ctx.scenario
    out = []
    for p in paths:
        change = {"growth_annual": p.growth_annual}
        change.update({k: getattr(p, k) for k in ("peak_to_average", "interruptible_share")
                       if getattr(p, k) is not None})
        if len(change) > 1 and profile is None:
            raise StagedError(f"demand scenario {p.name}: its own peak-to-average or "
                              "interruptible share needs the usage profile to lay demand again")
        out.append(what_if_context(ctx, s.with_changes(profile=change), profile))
    return out


def robust_optimum(ctx: PlanState, profile: Optional[UsageProfile] = None,
                   foresight: bool = True, alternative: bool = True,
                   method: str = "decomposition", from_range: bool = True) -> RobustResult:
    """The robust plan over the plan's demand paths (:func:`demand_paths`, module notes),
    with its EVPI and VSS.

    Parameters
    ----------
    ctx : PlanState
        The plan's context: its paths are :func:`demand_paths`'.
    profile : UsageProfile, optional
        The usage (each path's demand is laid from it with the path's growth).
    foresight : bool, default True
        Also report each path's own optimum and the base plan re-optimised (EVPI, VSS);
        False leaves them NaN (the search still solves each path alone: its floors and
        first points; only the stacked MILP then starts cold).
    alternative : bool, default True
        With ``foresight`` and risk weight 0, also the least-capital plan within 2 %
        (:func:`models.robust_alternatives.least_capital`).
    method : {"decomposition", "extensive"}, default "decomposition"
        How the optimum is found: branch and bound over the here-and-now decisions, each
        point priced path by path (:func:`models.robust_solve.solve_decomposed`), where it
        applies; or the stacked MILP of every path
        (:func:`models.robust_solve.solve_extensive`, the fallback, and an independent check
        of the first).
    from_range : bool, default True
        Paths from the growth range when the scenario has none (:func:`demand_paths`).

    Returns
    -------
    RobustResult
        Schedules per path, expected PV, CVaR, EVPI, VSS.

    Raises
    ------
    StagedError
        No demand paths, or the staged method's conditions fail on a path.

    Notes
    -----
    .. math:: \\min_{x_1..x_S} (1 - w) \\sum_s p_s PV_s(x_s) + w\\, CVaR_\\alpha(PV(x))
              \\quad \\text{s.t. } x_{s,j} = x_{1,j} \\text{ for every here-and-now } j

    with spot first, and without spot only when a path's conditions fail with it.
    """
    s = ctx.scenario
    paths, from_range = demand_paths(s, from_range)
    if not paths:
        raise StagedError("no demand scenarios and a demand growth range without width: "
                          "there is no robust plan")
    ctxs = path_contexts(ctx, paths, profile)
    errors = []
    base = base_path(ctx, paths)
    for use_spot in (True, False):
        try:
            blocks = [Block(c, use_spot) for c in ctxs]
        except StagedError as exc:
            errors.append(str(exc))
            continue
        # each path alone first (its foresight optimum, for the EVPI): the tangents it ends
        # with are tight at that path's optimum, near the robust plan's levels, and start the
        # search (bench/robust.py: 30 s -> 13 s); its optimum is a floor under its cost
        alone = ([solve(c, use_spot, block=b, loose=True) for c, b in zip(ctxs, blocks)]
                 if foresight or method == "decomposition" else None)
        result = (solve_decomposed(ctxs, blocks, paths, use_spot, base, alone)
                  if method == "decomposition" else None)
        if result is None:      # not decomposable (module notes of models/robust_search.py)
            result = solve_extensive(ctxs, blocks, paths, use_spot, base,
                                     floors(alone, blocks) if alone is not None else None)
        if alternative and foresight and result.weight == 0 and result.gap == 0:
            least = float(np.dot([q.probability for q in result.paths],
                                 [q.objective for q in result.paths]))
            result.alternative = least_capital(ctxs, blocks, paths, use_spot, least,
                                               start=result.solution)
        break
    else:
        raise StagedError("; ".join(errors))
    if foresight:
        add_foresight(result, ctxs, alone, blocks, base)
    result.contexts, result.from_range = ctxs, from_range
    return result
