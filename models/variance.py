"""Plan against actual (issue 43): a month's variance of one strategy's plan,
split into named parts that add up to the total to the cent.

The baseline is one strategy's monthly rows of a plan document (``doc["strategies"][name]
["monthly"]``, made by models.strategy_document.month_rows). Actuals give per month the cost
lines and GPU-hours by source that were read (bills give the cloud lines, storage, egress and
support among them; the owned fleet's actuals the owned lines); a line or source the actuals
do not give is taken as planned and listed in ``as_planned``, so it adds nothing to the
variance.

Sources and their lines
-----------------------
=============  ========================  ===================================================
source         GPU-hours field           cost line
=============  ========================  ===================================================
on_demand      on_demand_gpu_hours       on_demand
spot           spot_gpu_hours            spot
committed      committed_gpu_hours       commitment (used part; the unused part is idle)
owned          owned_gpu_hours           none: owned costs are fixed in a month (below)
=============  ========================  ===================================================

Parts (all in the plan's reporting currency; positive = more spent than planned)
----------------------------------------------------------------------------------
``volume``            more or less work (total GPU-hours over all four sources) at the plan's
                      average rate.
``mix``               work on another source than planned, at the plan's rates.
``price``             the rate paid against the plan's rate, on the actual GPU-hours (and any
                      cost of a source read with no GPU-hours).
``idle_commitments``  committed GPU-hours paid and not used, against the plan's own idle ones.
``idle_servers``      owned capacity the plan counted on that was online and did no work, at
                      its cost share (from the owned fleet's actuals: models/owned_variance.py).
``fx``                what the exchange rate actually paid added to bills in the plan's
                      foreign currency over the plan's rate of their month
                      (models/variance_fx.py; the cost lines hold those bills at the plan's
                      rate).
``timing.<line>``     one-off lines paid on a schedule: capex, commitment_upfront,
                      cloud_setup, tax_on_resale, resale_credit (a purchase, contract or sale
                      earlier or later than planned shows here); ``timing.delivery``: the
                      work of servers online later (or earlier) than planned, bought
                      elsewhere at the plan's on-demand rate (models/owned_variance.py).
``other.<line>``      recurring lines with no GPU-hour quantity: loan_payment, energy, space,
                      maintenance, staff, owned_storage, owned_network, storage, egress,
                      cloud_support, tax_shield; and a quantity line's plan cost that the plan
                      gives without GPU-hours.

Credit lines (resale_credit, tax_shield) count negatively, as in the plan's total.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping, Optional, Sequence

from models.lines import COST_LINES, CREDIT_LINES
from models.owned_variance import owned_parts, owned_split
from models.refusals import Worded

# source -> (GPU-hours field of a plan row, its cost line or None)
SOURCES = {"on_demand": ("on_demand_gpu_hours", "on_demand"),
           "spot": ("spot_gpu_hours", "spot"),
           "committed": ("committed_gpu_hours", "commitment"),
           "owned": ("owned_gpu_hours", None)}
QUANTITY_LINES = ("on_demand", "spot", "commitment")
TIMING_LINES = ("capex", "commitment_upfront", "cloud_setup", "tax_on_resale", "resale_credit")
OTHER_LINES = tuple(n for n in COST_LINES + CREDIT_LINES
                    if n not in QUANTITY_LINES and n not in TIMING_LINES)
PART_ORDER = (("volume", "mix", "price", "idle_commitments", "idle_servers", "fx")
              + tuple(f"timing.{n}" for n in TIMING_LINES) + ("timing.delivery",)
              + tuple(f"other.{n}" for n in OTHER_LINES))


class VarianceError(Worded):
    """Actuals that cannot be set against the plan (a month outside it, a bad figure).

    ``template`` is one of MESSAGES and ``values`` its placeholders, so that a caller can say
    it in another language (service/i18n/variance_words.py).
    """


MESSAGES = (
    "%(month)s: GPU-hours of %(source)s must be 0 or more",
    "%(month)s: GPU-hours of %(source)s are given without the cost of %(line)s or a rate",
    "%(month)s: %(line)s is not a cost line",
    "%(month)s: %(line)s is not a number",
    "%(month)s: the idle commitment cost is not within the commitment line",
    "the parts do not add up to the total",
    "%(month)s is not a month of the plan (%(first)s to %(last)s)",
    "%(month)s is given twice",
    "no month of actuals was given",
)


@dataclass
class MonthActuals:
    """What was spent and used in one month (currency of the plan; GPU-hours).

    ``costs`` by cost line, ``gpu_hours`` by source (on_demand, spot, committed, owned),
    ``idle_commitment_cost`` the part of the commitment line paid for unused commitments,
    ``rates`` the rate paid per GPU-hour by source, used for a source whose cost line is not
    given (cost = rate x GPU-hours); ``fx_cost`` what was paid over the cost lines, which hold
    bills in the plan's foreign currency at the plan's rate (models/variance_fx.py).
    ``owned``, from the owned fleet's actuals (models/owned_actuals.py): ``gpus_online``,
    ``gpus_per_server`` by type and ``busy_gpu_hours`` (or None), read by
    models/owned_variance.py.
    """

    month: str
    costs: dict[str, float] = field(default_factory=dict)
    gpu_hours: dict[str, float] = field(default_factory=dict)
    idle_commitment_cost: float = 0.0
    rates: dict[str, float] = field(default_factory=dict)
    owned: Optional[dict[str, Any]] = None
    fx_cost: float = 0.0


def _q(x: float) -> Fraction:
    return Fraction(x)          # exact: a float is a binary fraction


def _round_half_even(x: Fraction) -> int:
    floor = x.numerator // x.denominator
    rest = x - floor
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and floor % 2 == 1):
        return floor + 1
    return floor


def round_parts(parts: Mapping[str, Fraction], total: Fraction) -> tuple[dict[str, int], int]:
    """Exact parts and total rounded to whole cents so that the cents add up.

    Parameters
    ----------
    parts : mapping of str to Fraction
        Exact parts, in their reporting order; they sum exactly to ``total``.
    total : Fraction
        Exact total.

    Returns
    -------
    parts : dict of str to int
        Each part in cents.
    total : int
        The total in cents.

    Notes
    -----
    Cumulative rounding: with :math:`S_k = \\sum_{j \\le k} p_j` (exact), part :math:`k` is
    :math:`[S_k] - [S_{k-1}]` where :math:`[x]` is x rounded to the cent, halves to even. The
    rounded parts telescope to :math:`[S_n] = [\\text{total}]`, and each is within one cent of
    its exact value, so no part takes a residual.
    """
    if sum(parts.values(), Fraction(0)) != total:
        raise VarianceError(MESSAGES[5])
    out, before, running = {}, 0, Fraction(0)
    for name, value in parts.items():
        running += value
        now = _round_half_even(running * 100)
        out[name] = now - before
        before = now
    return out, _round_half_even(total * 100)


def _plan_total(row: Mapping[str, Any]) -> Fraction:
    return (sum((_q(float(row.get(n, 0.0))) for n in COST_LINES), Fraction(0))
            - sum((_q(float(row.get(n, 0.0))) for n in CREDIT_LINES), Fraction(0)))


def month_variance(plan_row: Mapping[str, Any], actual: MonthActuals) -> dict[str, Any]:
    """Variance of one month: actual against the plan row, split into exact parts.

    Parameters
    ----------
    plan_row : mapping
        The plan's row of the month (models.strategy_document.month_rows): GPU-hours by
        source [GPU-h], ``committed_gpus`` [GPUs], ``hours`` [h] and every cost and credit
        line [currency].
    actual : MonthActuals
        What was spent and used; lines and sources not given are taken as planned.

    Returns
    -------
    dict
        ``month``; ``plan`` and ``actual`` totals, ``total`` = actual - plan and ``parts`` by
        name, all exact Fractions [currency]; ``as_planned``: the lines and sources not given;
        ``basis``: the exact figures the parts are computed from (the lines and GPU-hours of
        plan and actual, the plan's rates, idle commitments, Q, Q', the mean rate ..., the
        month's ``fx_cost`` and ``owned``, the owned split of
        models.owned_variance.owned_split or None without the owned fleet's actuals).

    Notes
    -----
    For source :math:`s` the plan gives GPU-hours :math:`q_s` and the actuals :math:`a_s`.
    The plan's rate is :math:`p_s = C_s / q_s` (:math:`C_s` its cost line) for on demand and
    spot; for commitments :math:`p_c = K / \\max(G h, q_c)` with :math:`K` the commitment
    line, :math:`G` committed GPUs and :math:`h` the month's hours, so the plan's own idle
    commitments cost :math:`I = K - q_c p_c`. Owned GPU-hours have rate 0: their costs are
    fixed in the month and read line by line. A source the plan does not use
    (:math:`q_s = 0`) takes the rate paid, :math:`p_s = A_s / a_s` (0 without GPU-hours).
    With :math:`Q = \\sum q_s`, :math:`Q' = \\sum a_s` and the plan's average rate
    :math:`\\bar p = \\sum q_s p_s / Q`:

    .. math::

        \\text{volume} &= (Q' - Q)\\,\\bar p \\\\
        \\text{mix} &= \\sum_s a_s p_s - Q' \\bar p \\\\
        \\text{price} &= \\sum_s (A_s - a_s p_s) \\\\
        \\text{idle} &= I' - I

    where :math:`A_s` is the actual cost of source s's use (for commitments the line less the
    idle cost :math:`I'`), bills in the plan's foreign currency at the plan's rate of the month;
    fx = :math:`F`, the actuals' ``fx_cost`` (what the rate paid added over that,
    models/variance_fx.py), counts in the actual total. Then volume + mix + price =
    :math:`\\sum_s A_s - \\sum_s q_s p_s` and with idle and fx, the quantity lines' plan cost
    :math:`C_s - q_s p_s` left when :math:`q_s = 0` (in ``other.<line>``), and every other
    line's actual - plan (credits negated) the parts sum exactly to actual - plan. With no
    planned work (:math:`Q = 0`) volume is 0 and mix is :math:`\\sum_s a_s p_s`. With the
    owned fleet's actuals (``actual.owned``) the owned GPU-hours are theirs and two parts are
    taken out of mix: idle servers :math:`I p_o` and late deliveries :math:`L p_{od}`
    (models.owned_variance.owned_split and owned_parts give L, I and :math:`p_o`), so the sum
    is unchanged. All of it is computed in exact rational arithmetic on the floats given.
    """
    given_lines = dict(actual.costs)
    hours = {s: _q(float(plan_row.get(f, 0.0))) for s, (f, _) in SOURCES.items()}
    as_planned: list[str] = []
    act_hours: dict[str, Fraction] = {}
    split = None
    if actual.owned is not None:      # the owned fleet's actuals give the owned GPU-hours
        split = owned_split(plan_row, actual.owned["gpus_online"],
                            actual.owned["gpus_per_server"], actual.owned.get("busy_gpu_hours"))
    for s in SOURCES:
        if s == "owned" and split is not None:
            act_hours[s] = split.gpu_hours
        elif s in actual.gpu_hours:
            value = float(actual.gpu_hours[s])
            if not value >= 0:
                raise VarianceError(MESSAGES[0], month=actual.month, source=s)
            act_hours[s] = _q(value)
        else:
            act_hours[s] = hours[s]
            as_planned.append(f"gpu_hours.{s}")
    for s, (_, line) in SOURCES.items():
        if line is None or line in given_lines:
            continue
        if s in actual.rates and s in actual.gpu_hours:
            given_lines[line] = float(actual.rates[s]) * float(actual.gpu_hours[s])
        elif s in actual.gpu_hours and line in QUANTITY_LINES:
            raise VarianceError(MESSAGES[1], month=actual.month, source=s, line=line)
    for name, value in given_lines.items():
        if name not in COST_LINES + CREDIT_LINES:
            raise VarianceError(MESSAGES[2], month=actual.month, line=name)
        if value != value or value in (float("inf"), float("-inf")):
            raise VarianceError(MESSAGES[3], month=actual.month, line=name)
    fx_paid = float(actual.fx_cost)
    if fx_paid != fx_paid or fx_paid in (float("inf"), float("-inf")):
        raise VarianceError(MESSAGES[3], month=actual.month, line="fx")
    plan_line = {n: _q(float(plan_row.get(n, 0.0))) for n in COST_LINES + CREDIT_LINES}
    act_line = {}
    for n in COST_LINES + CREDIT_LINES:
        if n in given_lines:
            act_line[n] = _q(float(given_lines[n]))
        else:
            act_line[n] = plan_line[n]
            as_planned.append(n)
    idle_actual = _q(float(actual.idle_commitment_cost)) if "commitment" in given_lines \
        else None
    if idle_actual is not None and not 0 <= idle_actual <= max(act_line["commitment"], 0):
        raise VarianceError(MESSAGES[4], month=actual.month)

    # the plan's rates and its own idle commitments
    capacity = _q(float(plan_row.get("committed_gpus", 0.0))) * _q(float(plan_row.get("hours",
                                                                                      0.0)))
    K = plan_line["commitment"]
    base = max(capacity, hours["committed"])
    rate: dict[str, Fraction] = {"owned": Fraction(0)}
    plan_idle = Fraction(0)
    leftover = {n: Fraction(0) for n in QUANTITY_LINES}   # plan cost with no GPU-hours
    if base > 0:
        rate["committed"] = K / base
        plan_idle = K - hours["committed"] * rate["committed"]
    else:
        plan_idle = K
    act_idle = idle_actual if idle_actual is not None else plan_idle
    act_used = {"on_demand": act_line["on_demand"], "spot": act_line["spot"],
                "committed": act_line["commitment"] - act_idle, "owned": Fraction(0)}
    for s in ("on_demand", "spot"):
        line = SOURCES[s][1]
        if hours[s] > 0:
            rate[s] = plan_line[line] / hours[s]
        else:
            leftover[line] = plan_line[line]
    for s in ("on_demand", "spot", "committed"):
        if s not in rate:
            rate[s] = act_used[s] / act_hours[s] if act_hours[s] > 0 else Fraction(0)

    Q = sum(hours.values(), Fraction(0))
    Qa = sum(act_hours.values(), Fraction(0))
    planned_cost = sum((hours[s] * rate[s] for s in SOURCES), Fraction(0))
    mean = planned_cost / Q if Q > 0 else Fraction(0)
    at_plan_rates = sum((act_hours[s] * rate[s] for s in SOURCES), Fraction(0))
    parts: dict[str, Fraction] = {
        "volume": (Qa - Q) * mean,
        "mix": at_plan_rates - Qa * mean,
        "price": sum((act_used[s] - act_hours[s] * rate[s] for s in SOURCES), Fraction(0)),
        "idle_commitments": act_idle - plan_idle,
        "fx": _q(fx_paid),
    }
    if Q == 0:          # no planned work: all of the work at plan rates is mix, none volume
        parts["volume"] = Fraction(0)
        parts["mix"] = at_plan_rates
    if split is not None:       # idle servers and late deliveries, taken out of mix
        for name, value in owned_parts(split, rate["on_demand"]).items():
            parts[name] = parts.get(name, Fraction(0)) + value
    for n in TIMING_LINES:
        sign = -1 if n in CREDIT_LINES else 1
        parts[f"timing.{n}"] = sign * (act_line[n] - plan_line[n])
    for n in OTHER_LINES:
        sign = -1 if n in CREDIT_LINES else 1
        parts[f"other.{n}"] = sign * (act_line[n] - plan_line[n])
    for n in QUANTITY_LINES:
        parts[f"other.{n}"] = -leftover[n]
    plan_total = _plan_total(plan_row)
    actual_total = (sum((act_line[n] for n in COST_LINES), Fraction(0))
                    - sum((act_line[n] for n in CREDIT_LINES), Fraction(0)) + _q(fx_paid))
    ordered = {k: parts.get(k, Fraction(0)) for k in PART_ORDER}
    ordered.update({k: v for k, v in parts.items() if k not in ordered})
    return {"month": actual.month, "plan": plan_total, "actual": actual_total,
            "total": actual_total - plan_total, "parts": ordered, "as_planned": as_planned,
            "gpu_hours": {"plan": {s: float(hours[s]) for s in SOURCES},
                          "actual": {s: float(act_hours[s]) for s in SOURCES}},
            # what the parts were computed from, exact (service/xlsx/variance_sheet.py writes
            # them as the sheet's inputs and its formulas' cached values)
            "basis": {"plan_lines": plan_line, "actual_lines": act_line, "hours": hours,
                      "actual_hours": act_hours, "rates": rate, "capacity": base,
                      "capacity_gpus": _q(float(plan_row.get("committed_gpus", 0.0))),
                      "month_hours": _q(float(plan_row.get("hours", 0.0))),
                      "plan_idle": plan_idle, "actual_idle": act_idle, "used": act_used,
                      "Q": Q, "actual_Q": Qa, "planned_cost": planned_cost, "mean": mean,
                      "at_plan_rates": at_plan_rates, "leftover": leftover,
                      "given_lines": sorted(given_lines), "idle_given": idle_actual is not None,
                      "fx_cost": _q(fx_paid), "owned": split}}


def _money(value: int) -> str:
    return str(Decimal(value).scaleb(-2).quantize(Decimal("0.01")))


def _rounded(entry: dict[str, Any]) -> dict[str, Any]:
    """A month or a year to date with every amount in cents (int) and as decimal text."""
    parts, total = round_parts(entry["parts"], entry["total"])
    nonzero = {k: v for k, v in parts.items() if v != 0 or k in PART_ORDER[:4]}
    return {"total_cents": total, "total": _money(total),
            "plan": _money(_round_half_even(entry["plan"] * 100)),
            "actual": _money(_round_half_even(entry["actual"] * 100)),
            "parts_cents": nonzero, "parts": {k: _money(v) for k, v in nonzero.items()}}


def variance(monthly: Sequence[Mapping[str, Any]], actuals: Sequence[MonthActuals]
             ) -> dict[str, Any]:
    """Variance of a plan's months against actuals, by month and year to date.

    Parameters
    ----------
    monthly : sequence of mapping
        One strategy's monthly rows of a plan document (``month`` ``YYYY-MM`` and the fields
        of models.strategy_document.month_rows).
    actuals : sequence of MonthActuals
        One per month, each a month of the plan, none twice.

    Returns
    -------
    dict
        ``months``: per month of the actuals (in calendar order) ``month``, ``plan``,
        ``actual``, ``total`` and ``parts`` as decimal text in the plan's currency with
        ``total_cents`` and ``parts_cents`` as whole cents, ``as_planned`` and ``gpu_hours``;
        ``ytd``: the same over the months of the last actual month's calendar year, with
        ``from`` and ``to``.

    Notes
    -----
    Each month is :func:`month_variance`, rounded by :func:`round_parts`. The year to date is
    the exact sum of its months' exact parts, rounded once, so its cents add up to its total;
    it may differ by a cent from the sum of the months' rounded parts.
    """
    rows = {str(r["month"]): r for r in monthly}
    seen: set[str] = set()
    exact = []
    for a in sorted(actuals, key=lambda x: x.month):
        if a.month not in rows:
            raise VarianceError(MESSAGES[6], month=a.month, first=next(iter(rows), "?"),
                                last=list(rows)[-1] if rows else "?")
        if a.month in seen:
            raise VarianceError(MESSAGES[7], month=a.month)
        seen.add(a.month)
        exact.append(month_variance(rows[a.month], a))
    if not exact:
        raise VarianceError(MESSAGES[8])
    year = exact[-1]["month"][:4]
    in_year = [e for e in exact if e["month"][:4] == year]
    ytd = {"plan": sum((e["plan"] for e in in_year), Fraction(0)),
           "actual": sum((e["actual"] for e in in_year), Fraction(0)),
           "total": sum((e["total"] for e in in_year), Fraction(0)),
           "parts": {k: sum((e["parts"][k] for e in in_year), Fraction(0))
                     for k in exact[-1]["parts"]}}
    months = []
    for e in exact:
        out = {"month": e["month"], **_rounded(e), "as_planned": e["as_planned"],
               "gpu_hours": e["gpu_hours"]}
        months.append(out)
    return {"months": months,
            "ytd": {"from": in_year[0]["month"], "to": in_year[-1]["month"], **_rounded(ytd)}}
