"""The PVs a staged MILP's convex functions are built of, and the conditions under which they
are convex (issue 14; with server types, issue 26).

A month's dispatch cost is const + G(L_0) + sum_k (c_k - c_{k+1}) A(L_k) + F(L_T) (module notes
of models/staged.py): its coefficients are the PV of a GPU-hour owned on each type (in merit
order), of interruptible overflow and of on demand, by month. The staged optimum is proven
only where they are ordered so that every function but G is convex.
"""
from __future__ import annotations

import numpy as np

from models.linear_costs import optimizer_state
from models.plan_state import PlanState
from models.staged_problem import StagedError


def month_costs(ctx: PlanState, use_spot: bool) -> tuple[np.ndarray, ...]:
    """PV per demand-unit GPU-hour owned, interruptible overflow and on demand, by month.

    Parameters
    ----------
    ctx : PlanState
        Context whose optimizer coefficients are read.
    use_spot : bool
        Whether spot takes its share of interruptible overflow.

    Returns
    -------
    c_own : numpy.ndarray
        Owned [currency per GPU-hour of demand units, (months,)].
    c_int : numpy.ndarray
        Interruptible overflow: spot for its share, on demand for the rest [currency per
        GPU-hour of demand units, (months,)].
    c_od : numpy.ndarray
        On demand [currency per GPU-hour of demand units, (months,)].

    Notes
    -----
    With a the spot share of interruptible overflow (spot availability, 0 without spot),
    w_s the spot waste and w_f the failure waste:

    .. math:: c_{int} = a \\frac{1 - w_f}{1 - w_s} c_{spot} + (1 - a) c_{od}
    """
    lc, _ = optimizer_state(ctx)
    s = ctx.scenario
    sw, fw = ctx.spot_waste.fraction, ctx.tables_failure_waste
    share = s.spot.availability if (use_spot and sw < 1) else 0.0
    spot_per_left = share * (1.0 - fw) / (1.0 - sw) if share else 0.0
    c_own, c_od = lc.owned_unit_pv, lc.on_demand_unit_pv
    c_int = spot_per_left * lc.spot_unit_pv + (1.0 - share) * c_od
    return c_own, c_int, c_od


def check_convex(c_own, c_int, c_od) -> np.ndarray:
    """The months in which G (the committed level's cost) is concave.

    Parameters
    ----------
    c_own : numpy.ndarray
        PV of an owned GPU-hour by month [currency per GPU-hour].
    c_int : numpy.ndarray
        PV of an interruptible overflow GPU-hour by month [currency per GPU-hour].
    c_od : numpy.ndarray
        PV of an on-demand GPU-hour by month [currency per GPU-hour].

    Returns
    -------
    numpy.ndarray
        True in a month where owned work costs less than nothing (owned data far cheaper than
        cloud data) [bool, (months,)].

    Raises
    ------
    StagedError
        F is not convex: owned work dearer than overflow, or spot dearer than on demand, in some
        month.

    Notes
    -----
    F(x) = (c_own - c_int) A(x) + (c_int - c_od) B(x) with A, B concave is convex when
    c_own <= c_int <= c_od (each within 1e-12 of max |c_od|); G(x) = -c_own A(x) is concave
    where c_own < 0.
    """
    tol = 1e-12 * max(1.0, float(np.max(np.abs(c_od))))
    if (c_own > c_int + tol).any():
        raise StagedError("a busy owned GPU-hour costs more than cloud overflow in some month: "
                          "the staged optimum cannot be proven")
    if (c_int > c_od + tol).any():
        raise StagedError("spot costs more than on demand in some month")
    return c_own < -tol


def type_costs(ctx: PlanState) -> list[np.ndarray]:
    """PV of a GPU-hour of work on each owned type, in the merit order (issue 26).

    Parameters
    ----------
    ctx : PlanState
        Context whose optimizer coefficients are read.

    Returns
    -------
    list of numpy.ndarray
        One array per type, first to take work first [currency per GPU-hour of the reference
        type, (months,)].

    Raises
    ------
    StagedError
        A later type of the merit order costs less than an earlier one in some month (the cost
        of owned work would not be convex in the levels).

    Notes
    -----
    The step between levels k and k + 1 costs (c_k - c_{k+1}) A(L_k), convex only when
    c_1 <= c_2 <= ... <= c_T in every month (within 1e-12 of max |c_od|).
    """
    lc, _ = optimizer_state(ctx)
    out = [lc.owned_unit_pv_by_type[ctx.fleet[i].id] for i in ctx.merit]
    tol = 1e-12 * max(1.0, float(np.max(np.abs(lc.on_demand_unit_pv))))
    for a, b in zip(out, out[1:]):
        if (a > b + tol).any():
            raise StagedError("the server types' costs of a GPU-hour of work cross over the "
                              "months (power prices in two currencies): the staged optimum "
                              "cannot be proven")
    return out
