"""The robust plan in the plan document (issue 27): ``strategies.robust``.

A strategy of the document describes one schedule on one demand; the robust plan has one
schedule per demand path, each costed on its own demand. Its entry is therefore the
expectation over the paths: every money figure and volume (monthly rows, cash by period, cost
lines, GPU-hours) is the probability-weighted sum of each path's own entry, so ``pv_cost`` is
the expected PV exactly (PV is linear in the cash flows); the ratios (cost per useful
GPU-hour, per job) are ratios of the expectations, not expectations of ratios. Its
``schedule`` and ``purchase_orders`` are the here-and-now decisions, identical on every path
(what is signed now); each path's own schedule is in ``scenarios``. The other strategies plan
for the plan's own growth: ``savings_vs_on_demand`` and ``savings_vs_cloud_only`` of the robust
entry compare it with those static plans held fixed over the same paths (``held_fixed``).
"""
from __future__ import annotations

import math
from typing import Any, Optional

from models.schedule_words import schedule_json

ABSENT = object()    # a key a path's entry does not have: zero of its kind


def weighted(values: list, p: list[float]) -> Any:
    """The probability-weighted combination of same-shaped JSON values.

    Parameters
    ----------
    values : list
        One value per path (numbers, dicts of them, flags, texts; ``ABSENT`` where a path has
        no such key).
    p : list of float
        The paths' probabilities.

    Returns
    -------
    Any
        Numbers: sum p x (an absent one counts 0; None when any is None); dicts: by key;
        flags: whether any path's is set; texts: the first.

    Notes
    -----
    Numbers: E = sum_s p_s v_s (an absent v_s counts 0; None when any v_s is None); dicts key by
    key; flags: any; texts: the first.
    """
    present = [v for v in values if v is not ABSENT]
    first = present[0]
    if isinstance(first, bool):
        return any(present)
    if first is None or isinstance(first, (int, float)):
        if any(v is None for v in present):
            return None
        return math.fsum(q * v for q, v in zip(p, values) if v is not ABSENT)
    if isinstance(first, dict):
        keys = list(dict.fromkeys(k for v in present for k in v))
        return {k: weighted([v.get(k, ABSENT) if v is not ABSENT else ABSENT
                             for v in values], p) for k in keys}
    return first


CARRIED = ("cumulative_cost", "discounted_cumulative_cost")


def padded_rows(rows: list[dict], months: list[str]) -> list[dict]:
    """A path's monthly rows over ``months``: a month after its last payment has no flows and
    carries its cumulative costs forward.

    Parameters
    ----------
    rows : list of dict
        The path's monthly rows (:func:`models.strategy_document.month_rows`).
    months : list of str
        Every path's months, in order ('YYYY-MM').

    Returns
    -------
    list of dict
        One row per month.

    Notes
    -----
    A month after the path's last row: flows = 0, cumulative figures = the last row's [currency].
    """
    by_month = {r["month"]: r for r in rows}
    out, last = [], rows[-1]
    for month in months:
        row = by_month.get(month)
        if row is None:
            row = {k: (v if k in CARRIED or not isinstance(v, (int, float)) or
                       isinstance(v, bool) else 0.0) for k, v in last.items()}
            row["month"] = month
        out.append(row)
        last = row
    return out


def expected_entry(entries: list[dict], p: list[float], results: list) -> dict[str, Any]:
    """The expectation of each path's strategy entry (module notes).

    Parameters
    ----------
    entries : list of dict
        Each path's entry, as :func:`models.strategy_document.strategy_document` writes it on the
        path's own context.
    p : list of float
        The paths' probabilities.
    results : list of StrategyResult
        Each path's costed schedule (its useful GPU-hours and their PV).

    Returns
    -------
    dict
        The entry of the expectation, without ``schedule`` and ``purchase_orders``;
        ``servers`` the most any path holds, ``committed_gpus`` the most GPUs any path signs
        per offer, now and later together [GPUs].

    Notes
    -----
    Each number E = sum_s p_s x_s (:func:`weighted`); cost per useful GPU-hour = E[PV] / sum_s p_s
    U^pv_s and nominal = E[total] / sum_s p_s U_s, U the useful GPU-hours [currency per GPU-hour];
    servers = max_s servers_s; committed GPUs per offer = max_s (GPUs path s signs in all).
    """
    months = list(dict.fromkeys(r["month"] for e in entries for r in e["monthly"]))
    months.sort()
    rows = [padded_rows(e["monthly"], months) for e in entries]
    plain = [{k: v for k, v in e.items() if k not in ("monthly", "schedule", "purchase_orders")}
             for e in entries]
    out = weighted(plain, p)
    out["monthly"] = [weighted([r[m] for r in rows], p) for m in range(len(months))]
    useful = math.fsum(q * r.useful_gpu_hours for q, r in zip(p, results))
    useful_pv = math.fsum(q * r.useful_pv for q, r in zip(p, results))
    out["cost_per_useful_gpu_hour"] = ratio(out["pv_cost"], useful_pv)
    out["cost_per_useful_gpu_hour_nominal"] = ratio(out["total_cost"], useful)
    # holdings: the most any path holds, as a schedule's entry says (not an expectation)
    out["servers"] = max_holding([e["servers"] for e in entries])
    # GPUs: the most any path signs in all, now and later, the quantity the decision's words
    # give per path (issue 37), not the most in one decision of a static strategy's entry
    out["committed_gpus"] = {k: max(signed_in_all(e["schedule"], k) for e in entries)
                             for k in entries[0]["committed_gpus"]}
    if "cost_per_job" in out:
        job = entries[0]["cost_per_job"]["job_gpu_hours"]
        normal = ratio(out["normal_cost_pv"], useful_pv)
        out["cost_per_job"] = {
            "job_gpu_hours": job,
            "levelized": times(job, out["cost_per_useful_gpu_hour"]),
            "nominal": times(job, out["cost_per_useful_gpu_hour_nominal"]),
            "normal_levelized": times(job, normal)}
    return out


def signed_in_all(schedule: list[dict], offer: str) -> int:
    """GPUs of an offer a path's schedule signs, every decision together.

    Parameters
    ----------
    schedule : list of dict
        The path's schedule (models/schedules.py schedule_json).
    offer : str
        The commitment offer's id.

    Returns
    -------
    int
        sum over the decisions of ``commit[offer]`` [GPUs].

    Notes
    -----
    G = sum_d commit_d[offer] over the schedule's decisions d [GPUs].
    """
    return sum(d["commit"].get(offer, 0) for d in schedule)


def ratio(a: float, b: float) -> Optional[float]:
    """a / b, None without a denominator.

    Parameters
    ----------
    a, b : float
        Numerator and denominator.

    Returns
    -------
    float or None
        a / b when b > 0.

    Notes
    -----
    r = a / b when b > 0, else None.
    """
    return a / b if b > 0 else None


def times(job: float, per_hour: Optional[float]) -> Optional[float]:
    """A job's cost from a cost per GPU-hour, None when that is undefined.

    Parameters
    ----------
    job : float
        GPU-hours of one job [GPU-h].
    per_hour : float or None
        Cost per useful GPU-hour [currency / GPU-h].

    Returns
    -------
    float or None
        job x per_hour [currency].

    Notes
    -----
    cost = job x per_hour [currency], job in GPU-hours, per_hour in currency per GPU-hour.
    """
    return None if per_hour is None else job * per_hour


def max_holding(values: list) -> Any:
    """The most servers any path holds (by type id for a fleet).

    Parameters
    ----------
    values : list
        Each path's ``servers`` (a count, or counts by type id).

    Returns
    -------
    int or dict
        The greatest, by type for a fleet [servers].

    Notes
    -----
    N = max_s N_s over paths s (per type for a fleet) [servers].
    """
    if isinstance(values[0], dict):
        return {k: max(v.get(k, 0) for v in values) for k in values[0]}
    return max(values)


def robust_fields(r) -> dict[str, Any]:
    """What the robust plan adds to its strategy entry.

    Parameters
    ----------
    r : models.robust.RobustResult
        The robust plan.

    Returns
    -------
    dict
        ``expected_pv`` (sum of each path's probability x PV, the entry's ``pv_cost``),
        ``cvar`` at ``cvar_alpha``, ``cvar_weight``, ``evpi``, ``vss`` [currency], ``base``
        (the path VSS plans for), ``decide_now_months``, ``decide_now_until`` ('YYYY-MM'),
        ``common`` (the here-and-now decisions), ``gap`` [currency; 0: proven], ``notes``,
        ``scenarios_from_range`` (the paths are the demand growth range's, none being given),
        ``held_fixed`` (the expected PV over the paths of ``on_demand`` and ``cloud_only`` as
        decided now) and ``scenarios``: ``name``, ``probability``, ``growth_annual``,
        ``pv_cost``, ``foresight_pv`` (its own staged optimum), ``fixed_first_pv`` (the base
        plan's first decisions kept) [currency], ``schedule`` in the staged plan's shape, and
        by month ``capacity`` (committed plus owned) and the path's ``demand_peak`` and
        ``demand_mean`` [GPUs of the reference type]; ``alternative``: the plan within
        ``within`` of the least expected PV with the least ``year_one_capital`` (purchases
        and upfront payments in the first 12 months, expected) [currency], its
        ``expected_pv`` and each scenario's ``schedule``; None when not computed (a risk
        weight above 0, an unproven robust plan).

    Notes
    -----
    expected_pv = sum_s p_s PV_s, p_s the path's probability, PV_s its PV cost [currency]; the other
    figures as the robust result holds them (:class:`models.robust_result.RobustResult`).
    """
    def num(x: float) -> Optional[float]:
        return float(x) if math.isfinite(x) else None

    return {"expected_pv": r.expected_pv, "cvar": r.cvar, "cvar_alpha": r.alpha,
            "cvar_weight": r.weight, "evpi": num(r.evpi), "vss": num(r.vss), "base": r.base,
            "decide_now_months": r.decide_now_months, "decide_now_until": r.decide_now_until,
            "common": schedule_json(r.common), "gap": r.gap, "use_spot": r.use_spot,
            "notes": list(r.notes), "scenarios_from_range": r.from_range,
            "held_fixed": dict(r.held_fixed),
            "scenarios": [{"name": q.name, "probability": q.probability,
                           "growth_annual": q.growth_annual, "pv_cost": q.pv_cost,
                           "foresight_pv": num(q.foresight_pv),
                           "fixed_first_pv": num(q.fixed_first_pv),
                           "schedule": schedule_json(q.decisions),
                           "capacity": [float(v) for v in q.capacity],
                           "demand_peak": [float(v) for v in q.demand_peak],
                           "demand_mean": [float(v) for v in q.demand_mean]}
                          for q in r.paths],
            "alternative": None if r.alternative is None else {
                "within": r.alternative.within, "expected_pv": r.alternative.expected_pv,
                "year_one_capital": r.alternative.year_one_capital,
                "scenarios": [{"name": q.name, "pv_cost": q.pv_cost,
                               "schedule": schedule_json(q.decisions)}
                              for q in r.alternative.paths]}}
