"""models/dispatch.py (design 4.3, 4.4): sorted monthly demand, sum(min(demand, capacity)) and
the monthly volumes by source, checked by hand on one month of February 2027 (672 hours)."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from models.dispatch import DemandTables, MonthlySorted, allocate, dispatch, rows_searchsorted
from models.profile import PlanDemand, plan_calendar

FEBRUARY = plan_calendar("2027-02", 1)          # 28 days = 672 hours
HALF = 336


def half_and_half(high: float, low: float) -> np.ndarray:
    """``high`` GPUs in the first 336 hours of February, ``low`` in the last 336."""
    return np.concatenate([np.full(HALF, high), np.full(HALF, low)])


def test_rows_searchsorted_searches_each_row_at_once():
    rows = np.array([[1.0, 2.0, 3.0], [5.0, 6.0, 7.0]])
    # row 0: 2.5 goes after 1 and 2 (index 2); row 1: 5 goes before 5 (side left, index 0)
    assert rows_searchsorted(rows, np.array([[2.5], [5.0]])).tolist() == [[2], [0]]
    # levels past the top of a row go to its end (3); below its bottom to 0
    assert rows_searchsorted(rows, np.array([[99.0, 0.0], [8.0, 4.0]])).tolist() == \
        [[3, 0], [3, 0]]


@pytest.mark.parametrize("level, expected", [
    (0.0, 0.0),
    (2.0, 672 * 2.0),             # under both halves: 672 h x 2
    (6.0, HALF * 6.0 + HALF * 2),  # cuts the 10s, keeps the 2s: 2,016 + 672 = 2,688
    (20.0, HALF * 10.0 + HALF * 2),  # over both: the month's total, 4,032
    (-5.0, 0.0),                  # a negative level counts as zero
])
def test_sum_min_of_one_month(level, expected):
    table = MonthlySorted(half_and_half(10.0, 2.0), FEBRUARY)
    assert table.totals.tolist() == [4032.0] and table.peak.tolist() == [10.0]
    assert table.sum_min(np.array([level])) == pytest.approx([expected])
    # several candidate levels at once (shape (months, k)) give the same sums
    assert_allclose(table.sum_min(np.array([[level, 6.0]])), [[expected, 2688.0]], rtol=1e-12)


def test_short_months_pad_with_zeros_that_add_nothing():
    calendar = plan_calendar("2027-02", 2)      # 672 and 744 hours
    table = MonthlySorted(np.ones(672 + 744), calendar)
    assert table.sum_min(np.array([5.0, 5.0])).tolist() == [672.0, 744.0]
    assert table.sum_min(np.array([0.5, 0.5])).tolist() == [336.0, 372.0]


# One month: steady 4 GPUs every hour; interruptible 4 GPUs in the first half, 0 after.
# Committed C = 2, owned K = 4; no failure waste; spot waste 0.5, spot share 0.5.
#   gross demand: 8 GPUs x 336 h + 4 x 336 h            D = 4,032    steady S = 2,688
#   A(2) = 2 x 672 = 1,344 (committed)   A(6) = 6 x 336 + 4 x 336 = 3,360
#   owned = A(6) - A(2) = 2,016          B(6) = 4 x 672 = 2,688, leftover steady 0
#   leftover interruptible = (4,032 - 3,360) - 0 = 672
#   spot useful = 0.5 x 672 = 336, billed 336 / (1 - 0.5) = 672, on demand 0.5 x 672 = 336
#   overhead = spot billed - useful = 336 (no failures); interruptible on owned =
#   2,016 - (B(6) - B(2)) = 2,016 - 1,344 = 672 GPU-hours, with no overhead at fw = 0
WORKED = {"committed": 1344.0, "owned": 2016.0, "spot": 672.0, "on_demand": 336.0,
          "overhead": 336.0, "spot_useful": 336.0, "gross": 4032.0}


def worked_tables(failure_waste: float = 0.0) -> DemandTables:
    demand = PlanDemand(np.full(672, 4.0), half_and_half(4.0, 0.0), 672, 0)
    return DemandTables.build(demand, FEBRUARY, failure_waste)


def test_dispatch_of_the_worked_month():
    volumes = dispatch(worked_tables(), np.array([2.0]), np.array([4.0]), failure_waste=0.0,
                       spot_waste=0.5, spot_share=0.5)
    for name, expected in WORKED.items():
        assert getattr(volumes, name).tolist() == pytest.approx([expected]), name
    # with no failure waste every GPU-hour is served once: committed + owned + on demand +
    # spot useful = D
    served = volumes.committed + volumes.owned + volumes.on_demand + volumes.spot_useful
    assert served.tolist() == pytest.approx(volumes.gross.tolist())


def test_spot_waste_of_one_sends_the_leftover_on_demand():
    volumes = dispatch(worked_tables(), np.array([2.0]), np.array([4.0]), failure_waste=0.0,
                       spot_waste=1.0, spot_share=0.5)
    assert volumes.spot.tolist() == [0.0] and volumes.spot_useful.tolist() == [0.0]
    assert volumes.on_demand.tolist() == pytest.approx([672.0])   # 0 steady + 672 interruptible
    assert volumes.overhead.tolist() == [0.0]


def test_failure_waste_inflates_interruptible_work_on_every_source_but_spot():
    # fw = 0.2: interruptible gross = 4 / 0.8 = 5 GPUs in the first half, so gross demand is
    # 9 x 336 + 4 x 336 = 4,368; A(2) = 1,344; A(6) = 6 x 336 + 4 x 336 = 3,360; owned 2,016;
    # leftover interruptible gross = 4,368 - 3,360 = 1,008; spot useful = 0.5 x 1,008 x 0.8
    # = 403.2, billed 806.4; on demand 504; overhead = (0 + 672 + 504) x 0.2 + 403.2 = 638.4
    volumes = dispatch(worked_tables(0.2), np.array([2.0]), np.array([4.0]), failure_waste=0.2,
                       spot_waste=0.5, spot_share=0.5)
    assert_allclose([volumes.gross[0], volumes.committed[0], volumes.owned[0], volumes.spot[0],
                     volumes.spot_useful[0], volumes.on_demand[0], volumes.overhead[0]],
                    [4368.0, 1344.0, 2016.0, 806.4, 403.2, 504.0, 638.4], rtol=1e-12)


def test_allocate_takes_wastes_over_a_draws_axis():
    # the worked month's sum-mins, with two draws of the spot waste (0.5 and 1.0)
    volumes = allocate(np.array([[1344.0]]), np.array([[3360.0]]), np.array([[1344.0]]),
                       np.array([[2688.0]]), np.array([[4032.0]]), np.array([[2688.0]]),
                       failure_waste=0.0, spot_waste=np.array([0.5, 1.0]), spot_share=0.5)
    assert volumes.spot.tolist() == [[672.0, 0.0]]
    assert volumes.on_demand.tolist() == [[336.0, 672.0]]
