"""The cohort rows of a strategy's ledger sheet (models/ledger.py ``CohortRow``) and its decision
rows (``ScheduleRow``).

Which cohorts a strategy's sheet shows, and where their inputs live:

- servers: the engine's own server cohorts, each with its type and dates: held before the
  plan, a static plan's generations, and a schedule's purchases, one per decision row and type
  (none bought included, so that one can be added), or, when the schedule sells servers, the
  engine's cohorts as the sales split them (their counts are then values, not inputs). A
  scenario without server types is a fleet of one (issue 36), so every plan's servers are
  listed the same way;
- the position's signed contracts, one row each;
- a schedule (the staged plan, a proposed schedule): one commitment cohort per decision row
  and offer (the staged plan's rows are every decision point, so a purchase can be added in
  any of them);
- a static strategy: one commitment cohort per renewal of each offer it commits to.

Each cohort's parameters and monthly columns are the cost kernel's own numbers
(models/server_terms.py, models/cohort_costs.py), so the sum of a strategy's cohorts is its
cost lines.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from models.capacity import CommitmentCohort, ServerCohort, month_index
from models.static_cohorts import commitment_chain
from models.cohort_costs import commitment_schedule, server_schedule
from models.finance import depreciation_by_age, month_hours
from models.fleet import default_type
from models.ledger import CohortRow, ScheduleRow
from models.plan_state import PlanState
from models.prices import UPFRONT_SHARE, PriceBook
from models.scenario_schedule import Decision
from models.server_terms import server_terms
from models.staged_problem import decision_months
from models.strategy_result import StrategyResult

# schedules the engine searched: their sheets list every decision point, where one may be added
SEARCHED = ("staged", "robust")


def schedule_rows(ctx: PlanState, r: StrategyResult) -> list[ScheduleRow]:
    """The decision rows of a schedule: for the staged plan every decision point and every
    month it decided something in; for a proposed schedule its own decisions.

    Parameters
    ----------
    ctx : PlanState
        Context of the plan (first month, decision points).
    r : StrategyResult
        A strategy with a schedule.

    Returns
    -------
    list of ScheduleRow
        Rows in month order; commitments name every offer for the staged plan (a row where an
        offer can be signed), only the offers decided for a proposed schedule.
    """
    first_label = ctx.calendar.months[0]
    first = np.datetime64(first_label, "M")
    by_month = {d.month: d for d in r.schedule}
    offers = [o.id for o in ctx.scenario.commitments]
    searched = r.name in SEARCHED
    if searched:
        months = {str(first + m) for m in decision_months(ctx.scenario, ctx.horizon)}
        months |= set(by_month)
    else:
        months = set(by_month)
    out = []
    for month in sorted(months):
        d = by_month.get(month) or Decision(month=month)
        commit = ({o: int(d.commit.get(o, 0)) for o in offers} if searched
                  else {o: int(v) for o, v in d.commit.items()})
        # the one-type shorthand (buy_servers, sell_servers) is the first type's
        out.append(ScheduleRow(month, month_index(month, first_label), int(d.buy_servers),
                               int(d.sell_servers), commit,
                               buy_by_type=_by_type(d.buy_servers, d.buy, ctx.scenario),
                               sell_by_type=_by_type(d.sell_servers, d.sell, ctx.scenario)))
    return out


def _by_type(shorthand: int, by_type: dict, s) -> dict[str, int]:
    """A fleet decision's servers by type id, every type named (0 where it decides none); the
    one-type shorthand (``buy_servers``, ``sell_servers``) counts for the first type
    (models.schedule_cohorts.schedule_plan)."""
    out = {t.id: int(by_type.get(t.id, 0)) for t in s.server_types}
    out[default_type(s)] += int(shorthand)
    return out


def sells_servers(schedule) -> bool:
    """Whether a schedule sells servers (its sales split the cohorts they take from).

    Parameters
    ----------
    schedule : sequence of models.scenario_schedule.Decision
        The decisions.

    Returns
    -------
    bool
        True when a decision sells servers, by type or with the one-type shorthand.
    """
    return any(d.sell_servers or d.sell for d in schedule)


def strategy_cohorts(ctx: PlanState, r: StrategyResult, rows: int) -> list[CohortRow]:
    """Every cohort row of a strategy's sheet (module docstring: which, and from where).

    Parameters
    ----------
    ctx : PlanState
        Context of the plan.
    r : StrategyResult
        The strategy.
    rows : int
        Months of its sheet [months].

    Returns
    -------
    list of CohortRow
        Server cohorts first, then commitment cohorts.
    """
    s, book, H = ctx.scenario, ctx.book, ctx.horizon
    first = ctx.calendar.months[0]
    servers: list[CohortRow] = []
    commits: list[CohortRow] = []
    offer_index = {offer.id: i for i, offer in enumerate(s.commitments, start=1)}
    position = ctx.position
    # the engine's own server cohorts (each with its type and dates) are the rows: a static
    # strategy's purchases are the generations of its chain, counted by type; a schedule that
    # sells none has one purchase per decision row and type, none bought included, so that a
    # purchase can be added in any row
    by_row = bool(r.schedule) and not sells_servers(r.schedule)
    generation: dict = {}
    bought = {}                     # a schedule's purchases, by type and month
    for c in r.plan.servers:
        held = held_row(s, first, c)
        if r.capacity is not None and held is None:
            generation[c.type] = generation.get(c.type, 0) + 1
            servers.append(server_row(book, "chain", generation[c.type], c, rows))
        elif held is None and by_row:
            bought[(c.type, c.bought)] = c
        else:
            servers.append(server_row(book, "engine", held, c, rows))
    if by_row:
        for row in schedule_rows(ctx, r):
            m = row.index
            for kind in ctx.fleet:
                o = kind.owned
                c = bought.pop((kind.id, m), None) or ServerCohort(
                    0, m, m + o.lead_time_months, min(m + o.useful_life_months, H),
                    type=kind.id)
                if c.count or kind.can_buy(m):
                    servers.append(server_row(book, "decision", row.month, c, rows))
        assert not bought, f"purchases outside the schedule's rows: {sorted(bought)}"
    kept = iter(position.commitments)
    for j, c in enumerate(s.position.commitments, start=1):
        if month_index(c.start, first) + c.term_months <= 0:
            continue
        commits.append(commit_row(book, "position", j, next(kept), rows, offer_index))
    if r.schedule:
        for row in schedule_rows(ctx, r):
            m = row.index
            for offer in s.commitments:
                if offer.id in row.commit:
                    commits.append(commit_row(book, "decision", row.month, CommitmentCohort(
                        offer.id, row.commit[offer.id], m, offer.term_months), rows,
                        offer_index))
    elif r.capacity is not None:
        for offer in s.commitments:
            chain = commitment_chain(s, offer.id, r.capacity.committed.get(offer.id, 0), H)
            for k, c in enumerate(chain, start=1):
                commits.append(commit_row(book, "chain", k, c, rows, offer_index))
    return servers + commits


def held_row(s, first: str, c: ServerCohort) -> Optional[int]:
    """The 1-based ``position.servers`` row a fleet's cohort was held as (a sale may have split
    it), None for a purchase of the plan.

    Parameters
    ----------
    s : Scenario
        The scenario.
    first : str
        The plan's first month, 'YYYY-MM'.
    c : ServerCohort
        A cohort of the engine's plan.

    Returns
    -------
    int or None
        The first row of the same type, purchase month, price and install cost.
    """
    if c.price is None:
        return None
    default = default_type(s)
    for j, h in enumerate(s.position.servers, start=1):
        if ((h.type or default) == c.type and month_index(h.purchased, first) == c.bought
                and h.price == c.price and h.install_cost == c.install):
            return j
    return None


def server_row(book: PriceBook, origin: str, ref, c: ServerCohort, rows: int) -> CohortRow:
    """A server cohort's parameters and monthly columns (for its whole count).

    Parameters
    ----------
    book : PriceBook
        Prices of the plan.
    origin : str
        Where its inputs are (models.ledger.ORIGINS).
    ref : int or str or None
        Its position row, decision month or chain generation.
    c : ServerCohort
        The cohort.
    rows : int
        Months of the sheet [months].

    Returns
    -------
    CohortRow
        Parameters (price, install, basis [currency per server]; months; resale fraction and
        depreciation taken [fraction]; loan principal and level payment [currency per server])
        and monthly columns [servers or currency, (rows,)], priced as the cohort's type (its
        own book in a fleet).

    Notes
    -----
    basis = price + install, principal = basis (1 - down), pmt = the level payment of the
    principal with a loan of the plan, else 0 (:func:`models.server_terms.server_terms`);
    service = max(sold - online, 0), frac = resale fraction at sold - bought, taken = sum of
    :func:`models.finance.depreciation_by_age` over the service months; columns = count x the
    per-server items of :func:`models.cohort_costs.server_schedule`, gain = max(g, 0),
    loss = max(-g, 0) [currency].
    """
    book = book.for_type(c.type)
    s = book.scenario
    o = s.owned
    terms = server_terms(book, c)
    service = max(c.sold - c.online, 0)
    params = {"count": c.count, "bought": c.bought, "online": c.online, "sold": c.sold,
              "price": float(terms.price[0]), "install": float(terms.install),
              "basis": float(terms.basis[0]), "span": c.sold - c.bought,
              "service": service, "frac": float(book.resale_fraction(c.sold - c.bought)[0]),
              "taken": float(depreciation_by_age(s.finance.tax_depreciation,
                                                 o.useful_life_months, service).sum()),
              "principal": float(terms.principal[0]), "pmt": float(terms.payment[0])}
    sch = server_schedule(book, c)
    per = {"online": sch["online"][:, None], "capex": sch["capex"],
           "loan": sch["loan_payment"], "interest": sch["interest"],
           "maint": sch["maintenance"], "dep": sch["depreciation"], "resale": sch["resale"],
           "gain": np.maximum(sch["gain"], 0.0), "loss": np.maximum(-sch["gain"], 0.0)}
    monthly = {k: c.count * np.asarray(v, float)[:rows, 0] for k, v in per.items()}
    return CohortRow("server", origin, ref, params, monthly, type=c.type)


def commit_row(book: PriceBook, origin: str, ref, c: CommitmentCohort, rows: int,
               offer_index: dict[str, int]) -> CohortRow:
    """A commitment cohort's parameters and monthly columns (for all its GPUs).

    Parameters
    ----------
    book : PriceBook
        Prices of the plan.
    origin : str
        Where its inputs are (models.ledger.ORIGINS).
    ref : int or str
        Its position row, decision month or renewal.
    c : CommitmentCohort
        The cohort.
    rows : int
        Months of the sheet [months].
    offer_index : dict of str to int
        1-based position of each offer in the scenario.

    Returns
    -------
    CohortRow
        Parameters (GPUs; start and term [months]; rate [currency per GPU-hour, ex VAT]; upfront
        share [fraction]; term hours [h]; upfront per GPU [currency]; months of the upfront
        counted) and monthly columns [GPUs or currency, (rows,)].

    Notes
    -----
    upfront = u r H_T per GPU, u the upfront share [fraction], r the rate fixed at signing
    [currency per GPU-hour], H_T = sum of the term's month hours [h]; inside = T under
    ``liquidate``, else min(T, H - start) [months]; columns: gpus_m = gpus while active, upfront,
    monthly and prepaid = gpus x the per-GPU items of
    :func:`models.cohort_costs.commitment_schedule` [currency].
    """
    s = book.scenario
    offer = book.offers.get(c.offer)
    rate = float(c.rate) if c.rate is not None else float(book.offer_rate(offer, c.start)[0])
    share = UPFRONT_SHARE[c.payment or offer.payment]
    hours = float(month_hours(book.labels[0], c.start, c.term).sum())
    liquidate = s.finance.horizon_end == "liquidate"
    inside = c.term if liquidate else min(c.term, book.horizon - c.start)
    params = {"gpus": c.gpus, "start": c.start, "term": c.term, "rate": rate, "share": share,
              "hours": hours, "upfront": share * rate * hours, "inside": inside}
    sch = commitment_schedule(book, c)
    active = np.zeros(rows)
    active[max(c.start, 0):max(min(c.start + c.term, book.horizon, rows), 0)] = c.gpus
    monthly = {"gpus": active, "upfront": c.gpus * sch["upfront"][:rows, 0],
               "monthly": c.gpus * sch["monthly"][:rows, 0],
               # a prepayment is deducted over the term only when it was paid in the plan
               # (models/cohort_costs.cohort_items): a contract's upfront paid before is sunk
               "prepaid": c.gpus * sch["prepaid_deduction"][:rows, 0] * bool(
                   sch["upfront"].any())}
    return CohortRow("commitment", origin, ref, params, monthly, offer=c.offer,
                     offer_index=offer_index.get(c.offer))
