"""A mixed-integer program solved by HiGHS through its own Python interface (highspy).

scipy's ``milp`` passes the HiGHS options it does not list on verbatim, warning
``RuntimeWarning: Unrecognized options`` for each; silencing that needs a process-wide warning
filter, and a thread that had set warnings to "error" made solves in other threads fail (issue
28). highspy takes every HiGHS option as it is, with no warning, and its log is turned off
before the model is passed (``output_flag``). One thread per solve (``threads``): solves run in
worker processes beside others.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp




# A bound this close to its solution proves it. HiGHS solves to its own tolerances
# (mip_feasibility_tolerance 1e-6 on each integer, an LP dual tolerance on each bound), so a
# proven optimum's reported bound may sit a fraction of a cent below it, by an amount that
# moves with the processor's floating-point kernels: the robust test's stacked MILP proved on
# one machine and missed by $0.00108 on another of the same kind. Half a cent (a gap that
# rounds to $0.00, said as a proof) or one part in 10^9 of the objective, whichever is larger.
PROOF_CENTS = 0.005
PROOF_RELATIVE = 1e-9


def proof_tolerance(value: float) -> float:
    """How far below a solution's objective a lower bound may sit and still prove it.

    Parameters
    ----------
    value : float
        The solution's objective [currency].

    Returns
    -------
    float
        The tolerance [currency].

    Notes
    -----
    .. math:: tol = \\max(0.005,\\; 10^{-9} |value|)

    Half a cent is the least amount a plan states (a gap that rounds to $0.00 is a proof);
    1e-9 of the objective covers the floating-point error of a sum of thousands of terms.
    """
    return max(PROOF_CENTS, PROOF_RELATIVE * abs(value))


def proves(bound: float, value: float) -> bool:
    """Whether a lower bound proves a solution optimal (:func:`proof_tolerance`).

    Parameters
    ----------
    bound : float
        A lower bound of the objective [currency]; -inf when none is known.
    value : float
        The solution's objective [currency].

    Returns
    -------
    bool
        ``bound >= value - proof_tolerance(value)``.

    Notes
    -----
    proves = (bound is finite) and bound >= v - tol(v), tol of :func:`proof_tolerance` [currency].
    """
    return math.isfinite(bound) and bound >= value - proof_tolerance(value)


def proven_gap(bound: float, value: float) -> float:
    """The distance from a solution to the optimum that a lower bound leaves open.

    Parameters
    ----------
    bound : float
        A lower bound of the objective [currency]; -inf when none is known.
    value : float
        The solution's objective [currency].

    Returns
    -------
    float
        0 when the bound proves the value (:func:`proves`: a gap that rounds to $0.00 is a
        proof, said as one, whichever floating-point path the solve took), else
        ``max(value - bound, 0)`` (inf without a bound).

    Notes
    -----
    .. math:: gap = 0 \\text{ if } bound \\ge value - tol(value), \\text{ else }
              \\max(value - bound, 0)
    """
    return 0.0 if proves(bound, value) else max(value - bound, 0.0)


@dataclass
class MipResult:
    x: np.ndarray | None     # the best solution found, None when HiGHS found none
    optimal: bool            # proven optimal (within mip_rel_gap)
    limited: bool            # a work limit (mip_max_nodes) stopped the search
    bound: float             # HiGHS's lower bound of the objective; -inf when not reported
    status: str              # HiGHS's model status in words
    nodes: int = 0           # branch-and-bound nodes searched


class QuietHighs(highspy.Highs):
    """highspy's Highs with its log off before its constructor's first call into HiGHS:
    highspy 1.16's ``enableCallbacks`` in ``__init__`` wrote the "Running HiGHS" banner to
    the process's stdout before any option could be set (ERGO-Code/HiGHS#2749)."""

    def enableCallbacks(self) -> None:
        """Turn the log off, then enable highspy's callbacks as its constructor does."""
        self.setOptionValue("output_flag", False)
        super().enableCallbacks()


def solve_mip(cost: np.ndarray, integer: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              rows: sp.spmatrix, row_lower: np.ndarray, row_upper: np.ndarray,
              options: dict, start: np.ndarray | None = None) -> MipResult:
    """Minimise ``cost @ x`` subject to ``row_lower <= rows @ x <= row_upper`` and bounds.

    Parameters
    ----------
    cost : numpy.ndarray
        Objective coefficients, one per variable.
    integer : numpy.ndarray
        1 where a variable is integer, 0 where continuous.
    lower, upper : numpy.ndarray
        Variable bounds (``-inf``/``inf`` for none).
    rows : scipy.sparse matrix
        Constraint coefficients, one row per constraint.
    row_lower, row_upper : numpy.ndarray
        Constraint bounds (``-inf``/``inf`` for none).
    options : dict
        HiGHS options by their HiGHS names (``mip_max_nodes``, ``mip_rel_gap`` ...); no
        ``time_limit``: limits are deterministic (:func:`node_limit`).
    start : numpy.ndarray, optional
        A feasible solution HiGHS starts from (its incumbent from the first node).

    Returns
    -------
    MipResult
        The solution and how the search ended.

    Notes
    -----
    min c x subject to l_r <= A x <= u_r, l <= x <= u, x_j integer where ``integer``; bound =
    HiGHS's MIP dual bound (an LP: its optimum) [currency].
    """
    h = _loaded(cost, integer, lower, upper, rows, row_lower, row_upper, options)
    if start is not None:
        given = highspy.HighsSolution()
        given.col_value = np.asarray(start, float).tolist()
        given.value_valid = True
        h.setSolution(given)
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    solved = info.primal_solution_status == 2          # kSolutionStatusFeasible
    x = np.array(h.getSolution().col_value, float) if solved else None
    bound = getattr(info, "mip_dual_bound", -math.inf)
    if not integer.any():                               # an LP: its optimum is its bound
        bound = info.objective_function_value if solved else -math.inf
    limited = status in (highspy.HighsModelStatus.kSolutionLimit,
                         highspy.HighsModelStatus.kTimeLimit)
    return MipResult(x, status == highspy.HighsModelStatus.kOptimal, limited,
                     float(bound) if bound is not None and math.isfinite(bound) else -math.inf,
                     h.modelStatusToString(status), int(getattr(info, "mip_node_count", 0)))


def _loaded(cost: np.ndarray, integer: np.ndarray, lower: np.ndarray, upper: np.ndarray,
            rows: sp.spmatrix, row_lower: np.ndarray, row_upper: np.ndarray,
            options: dict) -> QuietHighs:
    """A one-thread, quiet HiGHS with :func:`solve_mip`'s model and options passed to it."""
    n = len(cost)
    A = sp.csc_matrix(rows, shape=(rows.shape[0], n))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, A.shape[0]
    lp.col_cost_ = np.asarray(cost, float)
    lp.col_lower_ = np.asarray(lower, float)
    lp.col_upper_ = np.asarray(upper, float)
    lp.row_lower_ = np.asarray(row_lower, float)
    lp.row_upper_ = np.asarray(row_upper, float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
    lp.integrality_ = [kinds[int(v != 0)] for v in integer]
    h = QuietHighs()
    h.setOptionValue("threads", 1)
    for name, value in options.items():
        h.setOptionValue(name, value)
    h.passModel(lp)
    return h


class BoxedLp:
    """An LP solved again and again with some columns' bounds changed. HiGHS keeps its basis
    between runs, so each starts warm: the robust plan's search bounds dozens of boxes of one
    relaxation (models/robust_search.py), each a cold solve before (bench/robust.py, 3 paths:
    45 LPs 1.5 s)."""

    def __init__(self, cost: np.ndarray, lower: np.ndarray, upper: np.ndarray,
                 rows: sp.spmatrix, row_lower: np.ndarray, row_upper: np.ndarray):
        """Pass the LP to HiGHS.

        Parameters
        ----------
        cost : numpy.ndarray
            Objective coefficients.
        lower, upper : numpy.ndarray
            Variable bounds.
        rows : scipy.sparse matrix
            Constraint coefficients.
        row_lower, row_upper : numpy.ndarray
            Constraint bounds.
        """
        self.h = _loaded(cost, np.zeros(len(cost)), lower, upper, rows, row_lower, row_upper,
                         {})

    def solve(self, columns: list[int], lower, upper) -> MipResult:
        """Solve with the given columns' bounds changed (they stay so until changed again).

        Parameters
        ----------
        columns : list of int
            Column indices.
        lower, upper : sequence of float
            Their new bounds.

        Returns
        -------
        MipResult
            The optimum (``bound`` its objective), or no ``x`` with HiGHS's status.

        Notes
        -----
        The LP min c x subject to l <= A x <= u with x_j in [lower_j, upper_j] for the given columns
        j; bound = the optimum's objective, -inf when HiGHS finds none [currency].
        """
        h = self.h
        h.changeColsBounds(len(columns), np.asarray(columns, dtype=np.int32),
                           np.asarray(lower, float), np.asarray(upper, float))
        h.run()
        status = h.getModelStatus()
        info = h.getInfo()
        solved = status == highspy.HighsModelStatus.kOptimal
        return MipResult(np.array(h.getSolution().col_value, float) if solved else None,
                         solved, False,
                         float(info.objective_function_value) if solved else -math.inf,
                         h.modelStatusToString(status))
