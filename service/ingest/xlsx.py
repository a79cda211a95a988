"""XLSX usage workbooks: guarded, then read with python-calamine (what pandas' engine="calamine"
wraps), the sheet named ``usage`` or else the first visible sheet."""
from __future__ import annotations

import datetime as dt
import io
import zipfile
from posixpath import join, normpath

import numpy as np
import pandas as pd
import python_calamine
from defusedxml import DefusedXmlException, ElementTree

from service.clip import clip_repr
from service.ingest import guards
from service.ingest.core import Limits, fail_one

NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
      "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
      "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}


def sheets(archive: zipfile.ZipFile, filename: str) -> list[tuple[str, bool, str]]:
    """(name, visible, part) of every worksheet, in workbook order."""
    try:
        book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except KeyError as exc:
        raise fail_one(filename, f"the workbook is incomplete ({exc.args[0]})") from None
    except DefusedXmlException:
        raise guards.doctype(filename, "xl/workbook.xml or its relationships") from None
    except (ElementTree.ParseError, ValueError) as exc:   # malformed XML
        raise fail_one(filename, f"the workbook structure cannot be read safely ({exc})") from None
    targets = {r.get("Id"): r.get("Target", "") for r in rels.findall("rel:Relationship", NS)}
    out = []
    for sheet in book.findall("m:sheets/m:sheet", NS):
        target = targets.get(sheet.get(f"{{{NS['r']}}}id"), "")
        part = target.lstrip("/") if target.startswith("/") else normpath(join("xl", target))
        out.append((sheet.get("name", ""), sheet.get("state", "visible") == "visible", part))
    return out


def read_xlsx(data: bytes, filename: str, limits: Limits
              ) -> tuple[pd.DataFrame, np.ndarray, list[str]]:
    """The usage sheet as a frame of its columns, the file row of each frame row, warnings."""
    archive = guards.open_zip(data, filename, limits)
    kind = guards.workbook_kind(archive)
    if kind != "xlsx":
        what = {"ods": guards.FORMATS[".ods"], "xlsb": guards.FORMATS[".xlsb"],
                "xlsm": guards.FORMATS[".xlsm"]}.get(kind, "a zip archive, not a workbook")
        raise fail_one(filename, f"this is {what}, which is not read here; {guards.SAVE_AS}")
    found = sheets(archive, filename)
    visible = [s for s in found if s[1]]
    if not visible:
        raise fail_one(filename, "the workbook has no visible worksheet")
    chosen = next((s for s in found if s[0].strip().lower() == "usage"), visible[0])
    warnings = []
    others = [s[0] for s in found if s is not chosen]
    if others:
        warnings.append(f"read sheet {clip_repr(chosen[0])}; ignored the other sheets: "
                        + ", ".join(clip_repr(o) for o in others[:20]))
    rows = guards.scan_parts(archive, filename, chosen[2], limits)
    if rows - 1 > limits.max_rows:
        raise fail_one(filename, f"sheet {clip_repr(chosen[0])} has {rows - 1:,} data rows; "
                       f"the limit is {limits.max_rows:,}")
    try:
        book = python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
        sheet = book.get_sheet_by_name(chosen[0])
        width = sheet.end[1] + 1 if sheet.end else 0   # end is the 0-based last cell
        if width > limits.max_export_columns:   # plain tables: max_columns, once known
            raise fail_one(filename, f"sheet {clip_repr(chosen[0])} has {width} columns; "
                           f"the limit is {limits.max_export_columns}", 1, None)
        values = sheet.to_python(skip_empty_area=False, nrows=limits.max_rows + 2)
    except python_calamine.CalamineError as exc:
        raise fail_one(filename, f"the workbook cannot be read ({exc})") from None
    frame, file_rows = to_frame(values, filename)
    return frame, file_rows, warnings


def to_frame(values: list[list], filename: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows of cells -> a frame of typed columns without its blank rows, and their file rows."""
    if not values or all(v in ("", None) for v in values[0]):
        raise fail_one(filename, "the sheet is empty (or its first row, the header, is)", 1)
    lengths = set(map(len, values))
    width = max(lengths)
    header = list(values[0]) + [None] * (width - len(values[0]))
    body = values[1:]
    if len(lengths) > 1:
        body = [list(r) + [None] * (width - len(r)) for r in body]
    raw = pd.DataFrame(body, columns=range(width))   # pandas infers float columns here
    blank = {j: raw[j].isna().to_numpy() | (raw[j] == "").to_numpy()
             if raw[j].dtype.kind not in "fiu" else raw[j].isna().to_numpy()
             for j in range(width)}
    empty_row = np.logical_and.reduce(list(blank.values())) if body else \
        np.zeros(0, dtype=bool)
    frame, seen = {}, set()
    for j, name in enumerate(header):
        if name in ("", None):
            if not blank[j].all():
                raise fail_one(filename, f"column {_letter(j)} has values but no header", 1,
                               _letter(j))
            continue
        name = str(name).strip()
        if name in seen:
            raise fail_one(filename, f"column {_letter(j)} repeats the header "
                           f"{clip_repr(name)}", 1, name)
        seen.add(name)
        column = raw[j]
        if blank[j].any():
            column = column.mask(blank[j])
        frame[name] = _typed(column[~empty_row].reset_index(drop=True))
    file_rows = np.arange(2, len(body) + 2)[~empty_row]
    return pd.DataFrame(frame), file_rows


def _typed(column: pd.Series) -> pd.Series:
    """Numbers as floats and date cells as datetimes (the fast paths); else as they are."""
    if column.dtype.kind in "fiu" or column.dtype != object:
        return column
    try:
        return column.astype(float)
    except (TypeError, ValueError):
        pass
    present = column.dropna()
    if len(present) and all(isinstance(v, (dt.date, dt.datetime)) for v in present.iloc[:1000]) \
            and pd.api.types.infer_dtype(present) in ("date", "datetime", "mixed"):
        try:
            return pd.to_datetime(column)
        except (TypeError, ValueError):
            pass
    return column


def _letter(j: int) -> str:
    name = ""
    j += 1
    while j:
        j, rem = divmod(j - 1, 26)
        name = chr(65 + rem) + name
    return name
