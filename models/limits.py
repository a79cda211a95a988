"""The solvers' work limits: deterministic, never wall time (issue 37).

A solve stops after a number of branch-and-bound nodes, boxes or points, never at a
wall-clock time, so the same input gives the same plan on a quiet machine and at load 8, from
the CLI and from any worker. Kept apart from models/highs.py so that the plan's key
(service/plans/jobs/versions.py) names them without importing a solver.
"""
from __future__ import annotations

# Deterministic work limits (issue 37): a solve stops after a number of branch-and-bound
# nodes, never at a wall-clock time, so the same input gives the same plan on a quiet machine
# and at load 8, from the CLI and from any worker. A node's LP grows with the problem, so the
# budget is in nodes x columns. Measured over the engine tests and the samples (2026-12-07):
# every MILP that proves its optimum does so in at most 2,720 nodes (300 columns, 1.2 s);
# the property tests' pathological input (prices 10^12 apart, 282 columns) searched
# 86,000-114,000 nodes in its former 20 s and now stops at 21,000 (about 4 s) with its gap
# stated; the generations sample's stacked MILP (2,379 columns) 2,500 nodes (about 25 s).
# The limits are part of what computed a stored plan: LIMITS_VERSION names them in the plan's
# engine version, so a plan stored under wall-clock limits is computed again.
# n2 (issue 38): the staged MILP's budget and power rows carry their knapsacks' integer-hull
# facets (models/staged_hull.py); the optimum is unchanged, but a solve that met a node limit
# under n1 now proves its optimum, and among tied optima HiGHS may return another schedule.
LIMITS_VERSION = "n2"
MILP_WORK = 6_000_000     # nodes x columns that one MILP may search
MIN_NODES = 500           # at least this many nodes, however large the MILP
LOOP_MILPS = 2            # a cutting-plane loop's nodes, over all its rounds: this many MILPs'
# The robust plan's search (models/robust_search.py): boxes bounded and points priced (each a
# staged solve per path). Measured: 3 paths 45 boxes and 4 points, 9 paths 97 boxes and 6
# points. At a limit the best point priced is kept and the plan states its gap to the least
# bound left open.
SEARCH_BOXES = 2_000
SEARCH_POINTS = 60
# The largest MILP a plan may solve, in rows x columns before tangents (issue 40, item 2;
# models/problem_size.py): a dense copy of a block's rows, and HiGHS's work per node, grow with
# it. Nine demand paths x 240 monthly decisions x 3 types, the robust plan's stacked MILP of
# 28,026 columns x 9,072 rows (254 million; 359,703 x 16,744 with sales), ran 547 s at a
# 7.2 GB peak. Counted (2026-12-07): the samples' largest, the generations sample's stacked
# MILP, is 2,379 x 699 (1.7 million); the suite's cases are smaller. 25 million (a dense
# float64 copy of 200 MB) keeps every sample and test case with room to spare and refuses the
# issue's case by tenfold, before any solve. A plan past it is refused, never computed, so no
# stored plan changes and LIMITS_VERSION stays.
MAX_MILP_CELLS = 25_000_000


def node_limit(columns: int, work: float = MILP_WORK) -> int:
    """The branch-and-bound nodes one MILP of ``columns`` variables may search.

    Parameters
    ----------
    columns : int
        The MILP's variables.
    work : float, default MILP_WORK
        The budget [nodes x columns].

    Returns
    -------
    int
        HiGHS's ``mip_max_nodes``.

    Notes
    -----
    .. math:: N = \\max(N_{min},\\; \\lfloor W / n \\rfloor)

    with W the work budget and n the columns: a node's LP grows with n.
    """
    return max(MIN_NODES, int(work // max(int(columns), 1)))
