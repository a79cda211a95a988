"""Solvers print nothing to stdout: a JSON answer on stdout stays JSON (issue 28)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from models.highs import solve_mip


def test_a_mip_solve_writes_nothing_to_the_process_stdout(capfd):
    # min x + 2y s.t. x + y >= 1.5, x, y integer in [0, 5]: x = 2, y = 0, objective 2.
    # Before: highspy's constructor wrote "Running HiGHS 1.16.0 ..." to file descriptor 1.
    result = solve_mip(np.array([1.0, 2.0]), np.array([1, 1]), np.zeros(2), np.full(2, 5.0),
                       sp.csc_matrix([[1.0, 1.0]]), np.array([1.5]), np.array([np.inf]),
                       {"mip_max_nodes": 100})
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert np.allclose(result.x, [2.0, 0.0])
