"""Named blocks of a MILP's constraint rows with their coefficients (issue 36): lower <= A x <=
upper, the blocks' rows stacked in the order they are declared, as one sparse matrix or by
part.

Separate from the column registry (models.milp_index) because rows carry coefficients and
bounds; their names are kept in an Index of their own.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence

import numpy as np
import scipy.sparse as sp

from models.milp_block import Block
from models.milp_index import Index


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
