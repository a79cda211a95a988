"""Named blocks of a MILP's columns (issue 36), and of its rows through models.milp_rows.

HiGHS sees a MILP as arrays indexed 0..n-1. The models that build one (the staged plan's,
models/staged_problem.py; the robust plan's extensive form, models/robust_problem.py) declare
their variables instead as named blocks over labelled axes, the way linopy and PyPSA name
theirs: ``buy`` over (type, month), ``z`` over month, ``cvar_excess`` over path, ``eta`` a
scalar. Each block (models/milp_block.py) is a contiguous range of indices in the order the
blocks are declared, so a variable's index is read off its name and labels,
``cols["buy"]["h100", 3]``, and an index names its variable,
``cols.name(j) -> "buy[h100, 2027-04]"``. Rows are declared the same way, with their
coefficients (:class:`models.milp_rows.Rows`).

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
from typing import Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from models.milp_block import Block, Key


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
