"""The registry of a MILP's named columns and rows (models/milp_index.py, issue 36): blocks
never overlap and cover 0..n-1 in the order declared, a dense block's indices are numpy's own
C order of its shape, and every index names its variable."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from models.milp_index import Index
from models.milp_rows import Rows


def random_index(seed: int) -> tuple[Index, list[tuple[str, int]]]:
    """An index of random dense, sparse, scalar and empty blocks; each block's declared
    size."""
    rng = np.random.default_rng(seed)
    cols, sizes = Index(), []
    for b in range(int(rng.integers(1, 9))):
        kind = rng.integers(0, 4)
        name = f"b{b}"
        if kind == 0:
            shape = tuple(int(v) for v in rng.integers(0, 4, rng.integers(1, 4)))
            cols.add(name, **{f"a{i}": n for i, n in enumerate(shape)})
            sizes.append((name, int(np.prod(shape))))
        elif kind == 1:
            keys = sorted({(int(a), int(m)) for a, m in rng.integers(0, 5, (int(rng.integers(0, 6)), 2))})
            cols.add(name, keys=keys, axes=("type", "month"))
            sizes.append((name, len(keys)))
        elif kind == 2:
            cols.add(name)
            sizes.append((name, 1))
        else:
            cols.add(name, keys=[], axes=("x",))
            sizes.append((name, 0))
    return cols, sizes


@pytest.mark.parametrize("seed", range(40))
def test_blocks_do_not_overlap_and_cover_every_index_once(seed):
    cols, sizes = random_index(seed)
    assert len(cols) == sum(n for _, n in sizes)
    seen = np.zeros(len(cols), int)
    at = 0
    for (name, n), block in zip(sizes, cols):
        assert block.name == name and block.size == n
        assert block.start == at                     # declared order, no gap
        at = block.stop
        for key in block:
            seen[block[key]] += 1
        assert cols.slice(name) == slice(block.start, block.start + n)
    assert np.all(seen == 1)                         # each index exactly once
    # each index locates back to its block and key, and the listing agrees
    entries = cols.entries()
    assert len(entries) == len(cols)
    for j in range(len(cols)):
        block, key = cols.locate(j)
        assert block[key] == j
        assert entries[j] == (block.name, *key)


def test_a_dense_block_is_numpys_c_order_of_its_shape():
    cols = Index()
    cols.add("before", keys=["x", "y"], axes=("k",))
    buy = cols.add("buy", type=["a100", "h100", "b200"], month=range(4), slot=range(1, 3))
    expected = 2 + np.arange(3 * 4 * 2).reshape(3, 4, 2)   # independent: numpy's C order
    for i, t in enumerate(["a100", "h100", "b200"]):
        for m in range(4):
            for s in (1, 2):
                assert buy[t, m, s] == expected[i, m, s - 1]
        assert buy.within(t) == slice(int(expected[i].min()), int(expected[i].max()) + 1)
        assert buy.within(t, 2) == slice(int(expected[i, 2].min()),
                                         int(expected[i, 2].max()) + 1)
    assert buy.within() == buy.slice == slice(2, 26)


def test_integer_axes_take_arrays_of_labels():
    cols = Index()
    cols.add("decision", keys=[("buy", 0)], axes=("kind", "month"))
    z = cols.add("z", month=12)
    y = cols.add("y", level=range(1, 4), month=range(12))
    months = np.array([0, 3, 11])
    assert list(z[months]) == [1, 4, 12]
    assert list(y[2, months]) == [13 + 12 + m for m in months]
    assert list(y[np.array([1, 3]), np.array([5, 6])]) == [13 + 5, 13 + 24 + 6]
    with pytest.raises(KeyError):
        z[np.array([12])]                        # past the axis
    with pytest.raises(KeyError):
        y[0, months]                             # level 0 is not on the axis


def test_an_index_names_its_variables():
    first = np.datetime64("2027-01", "M")
    cols = Index({"month": lambda m: str(first + m)})
    cols.add("buy", keys=[("h100", 2), ("b200", 5)], axes=("type", "month"))
    cols.add("cvar_excess", path=["low", "likely", "high"])
    cols.add("eta")
    assert [cols.name(j) for j in range(len(cols))] == [
        "buy[h100, 2027-03]", "buy[b200, 2027-06]",
        "cvar_excess[low]", "cvar_excess[likely]", "cvar_excess[high]", "eta"]
    with pytest.raises(IndexError):
        cols.name(6)


def test_groups_and_misuse():
    cols = Index()
    cols.add("buy", keys=[("a", 0)], axes=("type", "month"), group="decision")
    cols.add("commit", keys=[], axes=("offer", "month"), group="decision")
    cols.add("sell", keys=[("a", 1)], axes=("type", "month"), group="decision")
    cols.add("z", month=3)
    assert cols.group("decision") == slice(0, 2)
    with pytest.raises(KeyError):
        cols.group("none")
    cols.add("late", keys=[("b", 0)], axes=("type", "month"), group="decision")
    with pytest.raises(ValueError):
        cols.group("decision")                   # z lies between
    with pytest.raises(ValueError):
        cols.add("z", month=2)                   # declared twice
    with pytest.raises(ValueError):
        cols.add("twice", keys=[1, 1], axes=("k",))
    with pytest.raises(KeyError):
        cols["buy"]["a", 7]
    assert ("a", 0) in cols["buy"] and ("a", 7) not in cols["buy"]


def test_rows_stack_their_blocks_in_order():
    rows = Rows(4, {"month": lambda m: f"m{m}"})
    rows.add("budget", np.array([1.0, 2.0, 0.0, 0.0]), -np.inf, 10.0, keys=[2027], axes=("year",))
    level = sp.csr_matrix(np.array([[1.0, 0, -1, 0], [0, 1.0, 0, -1]]))
    rows.add("level", level, np.array([3.0, 4.0]), np.array([3.0, 4.0]), month=2)
    a, lo, hi = rows.matrix()
    assert a.toarray().tolist() == [[1, 2, 0, 0], [1, 0, -1, 0], [0, 1, 0, -1]]
    assert lo.tolist() == [-np.inf, 3.0, 4.0] and hi.tolist() == [10.0, 3.0, 4.0]
    assert [rows.index.name(i) for i in range(len(rows))] == ["budget[2027]", "level[m0]",
                                                             "level[m1]"]
    with pytest.raises(ValueError):
        rows.add("wrong", np.ones((2, 4)), 0.0, 1.0, month=3)   # 2 rows for 3 keys
    empty = Rows(3)
    a, lo, hi = empty.matrix()
    assert a.shape == (0, 3) and lo.size == 0 and hi.size == 0
