"""The ingest contract: errors with row/column problems, limits, and the result."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from models.profile import UsageProfile
from models.refusals import Refusal
from service.clip import clip, clip_message

MAX_PROBLEMS = 20


class IngestError(Refusal):
    """A usage file that cannot be read.

    ``str(exc)`` is one message naming the file; ``problems`` lists the first 20 problems as
    ``{"row": int | None, "column": str | None, "message": str}`` (row 1 is the header row),
    followed by one ``{"row": None, "column": None, "message": "... N more problems"}`` entry
    when there were more.
    """



def problem(row: int | None, column: str | None, message: str) -> dict:
    """One problem; a column name from the file is cut (service.clip), and so is a message
    that quotes more than it should (each quoted value is cut where it is written)."""
    return {"row": None if row is None else int(row),
            "column": None if column is None else clip(column),
            "message": clip_message(message)}


def where(item: dict) -> str:
    parts = []
    if item["row"] is not None:
        parts.append(f"row {item['row']}")
    if item["column"] is not None:
        parts.append(f"column {item['column']!r}")
    return ", ".join(parts)


def fail(filename: str, problems: list[dict]) -> IngestError:
    """One IngestError for ``problems`` (the first 20 kept, then a count)."""
    total = len(problems)
    shown = [dict(p) for p in problems[:MAX_PROBLEMS]]
    texts = [f"{where(p)}: {p['message']}" if where(p) else p["message"] for p in shown]
    message = f"{clip(filename)}: " + "; ".join(texts)
    if total > MAX_PROBLEMS:
        more = f"... and {total - MAX_PROBLEMS} more problems ({total} in all)"
        message += f"; {more}"
        shown.append(problem(None, None, more))
    return IngestError(message, shown)


def fail_one(filename: str, message: str, row: int | None = None,
             column: str | None = None) -> IngestError:
    return fail(filename, [problem(row, column, message)])


def to_float(cell) -> float:
    """One cell as a float: NaN when it is no number, infinite past float's range.

    Python reads a decimal text of 400 digits as infinite, but an integer object of 400 digits
    (what the CSV reader gives for such a cell, and JSON for such a number) raises
    OverflowError; here it is infinite too, so the reader refuses it by row and column.
    """
    if isinstance(cell, str) and "_" in cell:   # float() takes "1_000"; pandas does not
        return math.nan
    try:
        return float(cell)
    except (TypeError, ValueError):
        return math.nan
    except OverflowError:
        return math.inf if cell > 0 else -math.inf


def to_floats(cells) -> np.ndarray:
    """Cells as floats, NaN where a cell is no number (``pandas.to_numeric``, coerced).

    pandas raises OverflowError, whatever ``errors`` says, on an integer past float's range;
    then the cells are read one by one (:func:`to_float`), which only such a file pays for.
    """
    try:
        return pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float)
    except OverflowError:
        return np.array([to_float(c) for c in cells], dtype=float)


@dataclass(frozen=True)
class Limits:
    """What an upload may cost before it is refused (all configurable)."""

    max_bytes: int = 20_000_000              # the file as uploaded [bytes]
    max_rows: int = 500_000                  # data rows (sacct: job lines)
    max_columns: int = 50                    # plain usage tables
    max_export_columns: int = 1_000          # billing exports (FOCUS ~45-60, CUR 100-300)
    max_zip_entries: int = 1_000             # parts inside an xlsx
    max_unzipped_bytes: int = 100_000_000    # declared uncompressed size of all parts [bytes]
    max_zip_ratio: float = 100.0             # uncompressed / compressed, per part over 1 MB
    max_cell_bytes: int = 1_000_000          # one cell of sheet XML [bytes]
    max_cells: int = 6_000_000               # sheet cells, and the rectangle up to the farthest


@dataclass
class IngestResult:
    """A validated profile, what the user should know about it, and a JSON-ready preview."""

    profile: UsageProfile
    warnings: list[str] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    team_periods: dict | None = None     # team -> GPU-hours per profile period (when teams)
