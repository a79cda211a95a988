"""models.highs.BoxedLp: one LP re-solved warm with some columns' bounds changed gives what a
cold solve of the same LP gives (scipy's linprog, an independent HiGHS call), box after box,
and prints nothing."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from models.highs import BoxedLp


def test_a_box_by_hand(capfd):
    # min x + 2y s.t. x + y >= 1.5, 0 <= x, y <= 5: x = 1.5, objective 1.5;
    # with x <= 1: x = 1, y = 0.5, objective 2; with 4 <= y <= 5 and x = 0: objective 8;
    # with x + y >= 1.5 and both <= 0.5: infeasible
    lp = BoxedLp(np.array([1.0, 2.0]), np.zeros(2), np.full(2, 5.0),
                 sp.csr_matrix([[1.0, 1.0]]), np.array([1.5]), np.array([np.inf]))
    assert lp.solve([0], [0.0], [5.0]).bound == pytest.approx(1.5)
    assert lp.solve([0], [0.0], [1.0]).bound == pytest.approx(2.0)
    found = lp.solve([0, 1], [0.0, 4.0], [0.0, 5.0])
    assert found.bound == pytest.approx(8.0) and np.allclose(found.x, [0.0, 4.0])
    none = lp.solve([0, 1], [0.0, 0.0], [0.5, 0.5])
    assert none.x is None and none.status == "Infeasible"
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize("seed", range(10))
def test_warm_boxes_equal_cold_solves(seed):
    rng = np.random.default_rng(seed)
    n, m = 8, 6
    A = sp.random(m, n, density=0.6, random_state=seed, format="csr") + sp.eye(m, n)
    cost = rng.uniform(0.5, 3.0, n)
    lower, upper = np.zeros(n), np.full(n, 10.0)
    row_lower = rng.uniform(1.0, 5.0, m)
    lp = BoxedLp(cost, lower, upper, A, row_lower, np.full(m, np.inf))
    cols = [0, 1, 2]
    for _ in range(6):
        lo = rng.integers(0, 4, 3).astype(float)
        hi = lo + rng.integers(0, 4, 3)
        warm = lp.solve(cols, lo, hi)
        bounds = [(lo[cols.index(j)], hi[cols.index(j)]) if j in cols else (0.0, 10.0)
                  for j in range(n)]
        cold = linprog(cost, A_ub=-A.toarray(), b_ub=-row_lower, bounds=bounds,
                       method="highs")
        if cold.status == 2:
            assert warm.x is None
        else:
            assert warm.bound == pytest.approx(cold.fun, rel=1e-9, abs=1e-9)
