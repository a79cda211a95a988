"""The staged and robust MILPs' size, counted before they are built (issue 40, item 2).

A plan's memory and time grow with its MILPs: nine demand scenarios x 240 monthly decisions x
3 server types peaked at 7.2 GB in a job child. The columns and rows of a staged block
(models/staged_problem.py :func:`build_problem`) and of the robust plan's stacked MILP
(models/robust_problem.py :func:`stack`, :func:`extensive`) follow from the scenario and the
plan's context alone (the decision months, the types on sale, the position's servers), so they
are counted here without pricing a column, and a plan whose rows x columns pass
:data:`models.limits.MAX_MILP_CELLS` is refused before any solve, at save time and in the
job.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.limits import MAX_MILP_CELLS
from models.plan_state import PlanState
from models.refusals import Refusal
from models.robust import demand_paths
from models.staged_problem import decision_months


class ProblemTooLarge(Refusal):
    """A plan whose MILP would pass the size bound (:data:`models.limits.MAX_MILP_CELLS`)."""


@dataclass(frozen=True)
class ProblemSize:
    """The largest MILP a plan solves, counted.

    ``columns`` and ``rows`` are the robust plan's stacked MILP's when the plan has demand
    paths, else the staged block's; rows before any tangent (the cutting-plane rounds add
    them) and before the floors (one a path at most).
    """

    @property
    def cells(self) -> int:
        """Rows x columns, what :data:`models.limits.MAX_MILP_CELLS` bounds.

        Notes
        -----
        cells = rows x columns [-].
        """
        return self.columns * self.rows

    paths: int            # demand paths stacked (0: the staged block alone)
    months: int           # decision months
    block_columns: int    # one staged block's columns
    block_rows: int       # one staged block's rows before tangents
    columns: int
    rows: int


def block_size(ctx: PlanState) -> tuple[int, int]:
    """Columns and rows of the staged MILP :func:`models.staged_problem.build_problem`
    declares for ``ctx`` (a schedule, not a fleet's static problem), counted without it.

    Parameters
    ----------
    ctx : PlanState
        The plan's context (decision months, types on sale, the position's servers).

    Returns
    -------
    columns : int
        buy, commit, sell, the epigraphs and the levels.
    rows : int
        budget, servers, power, sale and the level rows; no tangent, and not the few
        integer-hull facets of the budget and power rows (``Problem.hull``, issue 38), which
        like the tangents are added on top. The budget rows are
        counted per calendar year holding a purchase or commitment decision (a year whose
        decisions all pay nothing up front has none in the MILP, so this is an upper bound
        there).

    Notes
    -----
    With D the decision months, H the horizon, T the server types (1 without), O the
    offers, B the (type, month) purchases on sale and S the sales (cohort c at d with
    max(b_c, 0) < d < s_c):

    .. math:: n = |B| + |O||D| + |S| + 4H + 2(T - 1)H

    .. math:: m = Y + H [max\\_servers] + H [max\\_power] + |\\{c : S_c \\ne \\emptyset\\}|
              + 2H + (T - 1)H

    with Y the calendar years holding a decision when ``capital_budget_per_year`` is set.
    """
    s, H = ctx.scenario, ctx.horizon
    months = decision_months(s, H, ctx.calendar.months[0])
    T = len(ctx.merit)
    buys = [(k, d) for k in ctx.fleet for d in months if k.can_buy(d)]
    commits = len(s.commitments) * len(months)
    sold_cohorts, sells = 0, 0
    if s.staging.allow_sales:
        spans = [(c.bought, c.sold) for c in ctx.position.servers]
        spans += [(d, min(d + k.owned.useful_life_months, H)) for k, d in buys]
        for bought, sold in spans:
            n = sum(1 for d in months if max(bought, 0) < d < sold)
            sells += n
            sold_cohorts += n > 0
    columns = len(buys) + commits + sells + 4 * H + 2 * (T - 1) * H
    rows = sold_cohorts + 2 * H + (T - 1) * H
    if s.staging.capital_budget_per_year is not None:
        first = int(ctx.calendar.months[0][:4]) * 12 + int(ctx.calendar.months[0][5:7]) - 1
        decided = [d for _, d in buys] + (list(months) if s.commitments else [])
        rows += len({(first + d) // 12 for d in decided})
    rows += H * (s.staging.max_servers is not None) + H * (s.staging.max_power_kw is not None)
    return columns, rows


def problem_size(ctx: PlanState, from_range: bool = True, robust: bool = True
                 ) -> ProblemSize:
    """The largest MILP the plan of ``ctx`` solves, counted before it is built.

    Parameters
    ----------
    ctx : PlanState
        The plan's context.
    from_range : bool, default True
        Paths from the growth range when the scenario has none
        (:func:`models.robust.demand_paths`).
    robust : bool, default True
        Whether the plan solves the robust plan too (a live preview does not).

    Returns
    -------
    ProblemSize
        The stacked MILP's size with demand paths, else the staged block's.

    Notes
    -----
    With S paths, n and m a block's columns and rows (:func:`block_size`), F the here-and-now
    decisions (those before ``decide_now_months``) and r = 1 when the risk weight is above 0:

    .. math:: N = S n + r (1 + S), \\quad M = S m + (S - 1) |F| + r S
    """
    s = ctx.scenario
    n, m = block_size(ctx)
    paths = len(demand_paths(s, from_range)[0]) if robust else 0
    months = decision_months(s, ctx.horizon, ctx.calendar.months[0])
    if not paths:
        return ProblemSize(0, len(months), n, m, n, m)
    now = s.staging.decide_now_months
    first = sum(1 for k in ctx.fleet for d in months if k.can_buy(d) and d < now)
    first += len(s.commitments) * sum(1 for d in months if d < now)
    if s.staging.allow_sales:
        spans = [(c.bought, c.sold) for c in ctx.position.servers]
        spans += [(d, min(d + k.owned.useful_life_months, ctx.horizon))
                  for k in ctx.fleet for d in months if k.can_buy(d)]
        first += sum(1 for b, e in spans for d in months if max(b, 0) < d < e and d < now)
    risk = s.staging.risk.cvar_weight > 0
    return ProblemSize(paths, len(months), n, m, paths * n + risk * (1 + paths),
                       paths * m + (paths - 1) * first + risk * paths)


def check_size(ctx: PlanState, from_range: bool = True, robust: bool = True
               ) -> ProblemSize:
    """Refuse a plan whose largest MILP's rows x columns would pass
    :data:`models.limits.MAX_MILP_CELLS`.

    Parameters
    ----------
    ctx : PlanState
        The plan's context.
    from_range, robust : bool, default True
        As :func:`problem_size`.

    Returns
    -------
    ProblemSize
        The size, within the bound.

    Raises
    ------
    ProblemTooLarge
        The largest MILP is past the bound; the message says its size and how to shrink it.

    Notes
    -----
    Refused when N x M > C_max, N and M the columns and rows of :func:`problem_size`, C_max =
    :data:`models.limits.MAX_MILP_CELLS`.
    """
    size = problem_size(ctx, from_range, robust)
    if size.cells > MAX_MILP_CELLS:
        raise ProblemTooLarge(
            f"the plan's optimisation would have {size.columns:,} variables x {size.rows:,} "
            f"constraints ({max(size.paths, 1)} demand scenarios x {size.months} decision "
            f"months), more than the {MAX_MILP_CELLS:,} variables x constraints a plan may "
            "have: use fewer demand scenarios, a longer decision interval or a shorter horizon")
    return size
