"""One named block of a MILP's columns or rows (issue 36): consecutive indices over labelled axes,
dense (every combination of its labels, the last axis fastest) or sparse (the keys it is
given), looked up by label, by a prefix of labels, or as a slice, and named back from an index.

Separate from the registry of blocks (models.milp_index) and from the rows with their
coefficients (models.milp_rows), which both hold blocks of this kind.
"""
from __future__ import annotations

from typing import Iterator, Optional, Sequence, Union

import numpy as np


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
