"""Named blocks of a MILP's columns and rows (issue 36).

HiGHS sees a MILP as arrays indexed 0..n-1. The models that build one (the staged plan's,
models/staged_problem.py; the robust plan's extensive form, models/robust_problem.py) declare
their variables instead as named blocks over labelled axes, the way linopy and PyPSA name
theirs: ``buy`` over (type, month), ``z`` over month, ``cvar_excess`` over path, ``eta`` a
scalar. Each block is a contiguous range of indices in the order the blocks are declared, so a
variable's index is read off its name and labels, ``cols["buy"]["h100", 3]``, and an index
names its variable, ``cols.name(j) -> "buy[h100, 2027-04]"``. Rows are declared the same way,
with their coefficients (:class:`Rows`).

Examples
--------
>>> cols = Index()
>>> buy = cols.add("buy", type=["a100", "h100"], month=range(3))
>>> eta = cols.add("eta")
>>> buy["h100", 2], eta[()], len(cols)
(5, 6, 7)
>>> cols.slice("buy")
slice(0, 6, None)
>>> cols.name(5)
'buy[h100, 2]'
"""
from __future__ import annotations

import itertools
from typing import Callable, Iterable, Iterator, Optional, Sequence, Union

import numpy as np
import scipy.sparse as sp

Key = tuple


class Block:
    """One named block: consecutive indices from ``start``, one per key, in the keys' order.

    A dense block (declared with one sequence of labels per axis) holds every combination of
    its labels in C order, the last axis fastest; a sparse block holds the keys it is given.
    """

    def __init__(self, name: str, start: int, axes: tuple[str, ...], keys: Sequence[Key],
                 labels: Optional[tuple[Sequence, ...]] = None, group: Optional[str] = None):
        """Declare the block (through :meth:`Index.add`).

        Parameters
        ----------
        name : str
            The block's name.
        start : int
            Index of its first entry.
        axes : tuple of str
            The axes' names, one per component of a key.
        keys : sequence of tuple
            Each entry's key, in order; unique.
        labels : tuple of sequence, optional
            A dense block's labels per axis (``keys`` is then their product).
        group : str, optional
            A tag shared by blocks that are read together (:meth:`Index.group`).

        Raises
        ------
        ValueError
            A key repeats, or has another length than ``axes``.
        """
        self.name, self.start, self.axes, self.group = name, int(start), axes, group
        self.keys = tuple(keys)
        self.labels = labels
        self._pos = {k: i for i, k in enumerate(self.keys)}
        if len(self._pos) != len(self.keys):
            raise ValueError(f"block {name}: a key repeats")
        if any(len(k) != len(axes) for k in self.keys):
            raise ValueError(f"block {name}: a key is not one label per axis {axes}")

    @property
    def size(self) -> int:
        """Entries in the block.

        Returns
        -------
        int
            The number of keys.

        Notes
        -----
        s = len(keys); a dense block's size is the product of its axes' lengths, s = prod_a n_a.
        """
        return len(self.keys)

    @property
    def stop(self) -> int:
        """One past the block's last index.

        Returns
        -------
        int
            ``start + size``.

        Notes
        -----
        stop = start + size; the block holds start .. stop - 1.
        """
        return self.start + len(self.keys)

    @property
    def slice(self) -> slice:
        """The block's indices as a slice.

        Returns
        -------
        slice
            ``slice(start, stop)``.

        Notes
        -----
        slice = [start, stop): x[block.slice] are the block's entries of a vector over the index, in
        key order.
        """
        return slice(self.start, self.stop)

    def __len__(self) -> int:
        return len(self.keys)

    def __iter__(self) -> Iterator[Key]:
        return iter(self.keys)

    def __contains__(self, key) -> bool:
        return _as_key(key) in self._pos

    def __getitem__(self, key) -> Union[int, np.ndarray]:
        """The index of the entry ``key``: ``block[label]``, ``block[label_1, label_2]``,
        ``block[()]`` for a scalar. On a dense block whose axes are ranges, labels may be
        arrays (broadcast), giving an array of indices."""
        key = _as_key(key)
        at = self._pos.get(key) if not any(isinstance(v, np.ndarray) for v in key) else None
        if at is not None:
            return self.start + at
        if self.labels is not None and len(key) == len(self.axes) and all(
                isinstance(labels, range) for labels in self.labels):
            pos = [_range_position(np.asarray(v), r, self.name, axis)
                   for v, r, axis in zip(key, self.labels, self.axes)]
            return self.start + np.ravel_multi_index(
                pos, tuple(len(r) for r in self.labels))
        raise KeyError(f"{self.name}{list(key)}: no such entry")

    def within(self, *prefix) -> slice:
        """The indices of a dense block's entries whose first labels are ``prefix``.

        Parameters
        ----------
        *prefix : label
            Labels of the leading axes.

        Returns
        -------
        slice
            Their indices, contiguous (C order).

        Raises
        ------
        ValueError
            The block is sparse.

        Notes
        -----
        With axis sizes n_1 .. n_d and prefix positions i_1 .. i_k: first = start + r x N, r =
        (..((i_1 n_2 + i_2) n_3 + i_3) ..) n_k + i_k (C order), N = prod_{a > k} n_a; the slice is
        [first, first + N).
        """
        if self.labels is None:
            raise ValueError(f"block {self.name} is sparse: no sub-block by prefix")
        k = len(prefix)
        inner = int(np.prod([len(v) for v in self.labels[k:]], dtype=int))
        outer = int(np.ravel_multi_index([labels.index(v) for v, labels in
                                          zip(prefix, self.labels)],
                                         tuple(len(v) for v in self.labels[:k])))
        first = self.start + outer * inner
        return slice(first, first + inner)

    def label(self, at: int, formats: Optional[dict] = None) -> str:
        """The name of the block's entry ``at`` places from its start.

        Parameters
        ----------
        at : int
            Position within the block, 0 <= at < size.
        formats : dict, optional
            Axis name to a function writing one of its labels (default ``str``).

        Returns
        -------
        str
            ``name[label, ...]``; the bare name for a scalar block.

        Notes
        -----
        The key of entry ``at`` is keys[at]; each label is written by its axis's format.
        """
        key = self.keys[at]
        if not key:
            return self.name
        formats = formats or {}
        return f"{self.name}[" + ", ".join(formats.get(axis, str)(v)
                                           for axis, v in zip(self.axes, key)) + "]"


def _as_key(key) -> Key:
    return key if isinstance(key, tuple) else (key,)


def _range_position(v: np.ndarray, r: range, name: str, axis: str) -> np.ndarray:
    pos, off = np.divmod(v - r.start, r.step)
    if np.any(off != 0) or np.any(pos < 0) or np.any(pos >= len(r)):
        raise KeyError(f"{name}: a label of axis {axis} is not in {r}")
    return pos


class Index:
    """Named blocks of consecutive indices covering 0..n-1: the columns, or the rows, of
    one MILP.

    Parameters
    ----------
    formats : dict, optional
        Axis name to a function writing one of its labels in :meth:`name` (a month index as
        ``YYYY-MM``); other labels are written with ``str``.
    """

    def __init__(self, formats: Optional[dict[str, Callable]] = None):
        self.formats = dict(formats or {})
        self._blocks: dict[str, Block] = {}
        self._starts: list[int] = []
        self.size = 0

    def add(self, name: str, keys: Optional[Iterable] = None,
            axes: Optional[Sequence[str]] = None, group: Optional[str] = None,
            **labels) -> Block:
        """Declare a block after the ones declared so far.

        Parameters
        ----------
        name : str
            Its name, unique in the index.
        keys : iterable, optional
            A sparse block: its keys, in order, each a tuple of one label per axis (with one
            axis, the label itself, which is then not a tuple).
        axes : sequence of str, optional
            A sparse block's axis names.
        group : str, optional
            A tag for :meth:`group` (the decisions among the variables).
        **labels : sequence or int
            A dense block: one sequence of labels per axis, in the axes' order (an int n is
            ``range(n)``); none for a scalar.

        Returns
        -------
        Block
            The block, ``start`` at the index's size before it.

        Raises
        ------
        ValueError
            The name is taken, or both ``keys`` and ``labels`` are given.

        Notes
        -----
        A block of size s declared when the index has n entries holds n .. n + s - 1 (start = n),
        and the index then has n + s: the blocks never overlap and cover 0 .. n - 1 in order.
        """
        return self._register(self._block(name, keys, axes, group, labels))

    def _block(self, name: str, keys, axes, group, labels: dict) -> Block:
        if name in self._blocks:
            raise ValueError(f"block {name} declared twice")
        if keys is not None:
            if labels:
                raise ValueError(f"block {name}: keys or labels, not both")
            axes = tuple(axes or ())
            keys = [(k,) if len(axes) == 1 else tuple(k) for k in keys]
            block = Block(name, self.size, axes, keys, group=group)
        else:
            ranges = tuple(range(v) if isinstance(v, (int, np.integer)) else
                           (v if isinstance(v, range) else tuple(v)) for v in labels.values())
            block = Block(name, self.size, tuple(labels), list(itertools.product(*ranges)),
                          ranges, group)
        return block

    def _register(self, block: Block) -> Block:
        self._blocks[block.name] = block
        self._starts.append(block.start)
        self.size = block.stop
        return block

    def __getitem__(self, name: str) -> Block:
        return self._blocks[name]

    def __contains__(self, name: str) -> bool:
        return name in self._blocks

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Block]:
        return iter(self._blocks.values())

    def slice(self, name: str) -> slice:
        """A block's indices.

        Parameters
        ----------
        name : str
            The block.

        Returns
        -------
        slice
            ``slice(start, stop)`` of the block.

        Notes
        -----
        slice = [start, start + size) of the block, the same as ``index[name].slice``.
        """
        return self._blocks[name].slice

    def group(self, tag: str) -> slice:
        """The indices of every block tagged ``tag``, which must be consecutive.

        Parameters
        ----------
        tag : str
            The group.

        Returns
        -------
        slice
            From the first such block's start to the last's stop.

        Raises
        ------
        KeyError
            No block has the tag.
        ValueError
            An untagged block of some size lies between two tagged ones.

        Notes
        -----
        slice = [start_first, stop_last); it holds only the group's entries when every block between
        the first and the last is in the group or empty.
        """
        blocks = list(self._blocks.values())
        at = [i for i, b in enumerate(blocks) if b.group == tag]
        if not at:
            raise KeyError(f"no block in group {tag}")
        if any(b.size and b.group != tag for b in blocks[at[0]:at[-1] + 1]):
            raise ValueError(f"the blocks of group {tag} are not consecutive")
        return slice(blocks[at[0]].start, blocks[at[-1]].stop)

    def locate(self, j: int) -> tuple[Block, Key]:
        """The block and key of one index.

        Parameters
        ----------
        j : int
            An index, 0 <= j < size.

        Returns
        -------
        tuple
            (block, key).

        Raises
        ------
        IndexError
            ``j`` is outside 0 .. size - 1.

        Notes
        -----
        The block is the last one with start <= j (by bisection of the starts); the key is
        its entry j - start.
        """
        j = int(j)
        if not 0 <= j < self.size:
            raise IndexError(f"{j} is outside 0..{self.size - 1}")
        blocks = list(self._blocks.values())
        # the last block starting at or before j: an empty block shares its start with the
        # next, so it is never the last unless it ends the index (then j is past it)
        block = blocks[int(np.searchsorted(self._starts, j, side="right")) - 1]
        return block, block.keys[j - block.start]

    def name(self, j: int) -> str:
        """The name of one index, for a reader: ``"buy[h100, 2027-03]"``.

        Parameters
        ----------
        j : int
            An index.

        Returns
        -------
        str
            Its block's name and its labels (written by ``formats``).

        Notes
        -----
        :meth:`Block.label` of :meth:`locate`'s block and key.
        """
        block, _ = self.locate(j)
        return block.label(int(j) - block.start, self.formats)

    def entries(self) -> list[tuple]:
        """What each index is, in order: its block's name followed by its key's labels.

        Returns
        -------
        list of tuple
            ``(name, *key)`` per index, 0 .. size - 1 (``("buy", "h100", 3)``,
            ``("eta",)``).

        Notes
        -----
        entry_j = (name of the block b with b.start <= j < b.stop, *b.keys[j - b.start]), j = 0 ..
        size - 1: the blocks in order, each its keys in order.
        """
        return [(b.name, *k) for b in self._blocks.values() for k in b.keys]


class Rows:
    """Named blocks of constraint rows with their coefficients: lower <= A x <= upper, A of
    ``ncols`` columns, the blocks' rows stacked in the order they are declared.

    Parameters
    ----------
    ncols : int
        Columns of the MILP the rows constrain.
    formats : dict, optional
        As :class:`Index`'s, for :meth:`Index.name` of ``index``.
    """

    def __init__(self, ncols: int, formats: Optional[dict[str, Callable]] = None):
        self.ncols = int(ncols)
        self.index = Index(formats)
        self._parts: list[tuple[sp.csr_matrix, np.ndarray, np.ndarray]] = []

    def add(self, name: str, coef, lower, upper, keys: Optional[Iterable] = None,
            axes: Optional[Sequence[str]] = None, **labels) -> Block:
        """Declare a block of rows with their coefficients and bounds.

        Parameters
        ----------
        name : str
            The block's name.
        coef : numpy.ndarray or scipy.sparse matrix
            Its coefficients: (rows, ncols), or (ncols,) for a block of one row.
        lower, upper : float or numpy.ndarray
            Each row's bounds (a float for all; ``-inf``/``inf`` for none).
        keys : iterable, optional
            A sparse block's keys (:meth:`Index.add`).
        axes : sequence of str, optional
            A sparse block's axis names.
        **labels : sequence or int
            A dense block's labels per axis.

        Returns
        -------
        Block
            The rows' block in ``index``.

        Raises
        ------
        ValueError
            The coefficients do not have one row per key and ``ncols`` columns.

        Notes
        -----
        Row i of the block is lower_i <= sum_j coef_ij x_j <= upper_i; the block's rows
        follow the rows declared before it.
        """
        if not sp.issparse(coef) and np.ndim(coef) == 1:
            coef = np.reshape(coef, (1, -1))
        coef = sp.csr_matrix(coef)
        block = self.index._block(name, keys, axes, None, labels)
        if coef.shape != (block.size, self.ncols):
            raise ValueError(f"rows {name}: coefficients {coef.shape}, expected "
                             f"{(block.size, self.ncols)}")
        self.index._register(block)
        self._parts.append((coef, np.broadcast_to(np.asarray(lower, float), (block.size,)),
                            np.broadcast_to(np.asarray(upper, float), (block.size,))))
        return block

    def __len__(self) -> int:
        return self.index.size

    def matrix(self) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """Every row, stacked.

        Returns
        -------
        rows : scipy.sparse.csr_matrix
            (len(self), ncols) coefficients.
        lower, upper : numpy.ndarray
            Each row's bounds.

        Notes
        -----
        A = vstack(A_1, .., A_B), l = concat(l_1, .., l_B), u = concat(u_1, .., u_B): the blocks'
        rows in declaration order, l <= A x <= u.
        """
        if not self._parts:
            return (sp.csr_matrix((0, self.ncols)), np.zeros(0), np.zeros(0))
        return (sp.vstack([a for a, _, _ in self._parts], format="csr"),
                np.concatenate([lo for _, lo, _ in self._parts]),
                np.concatenate([hi for _, _, hi in self._parts]))

    def parts(self) -> list[tuple[sp.csr_matrix, np.ndarray, np.ndarray]]:
        """Each block's (coefficients, lower, upper), in order.

        Returns
        -------
        list of tuple
            One (csr (rows, ncols), lower, upper) per block.

        Notes
        -----
        :meth:`matrix` = vstack of these parts, (A_b, l_b, u_b) with l_b <= A_b x <= u_b.
        """
        return list(self._parts)
