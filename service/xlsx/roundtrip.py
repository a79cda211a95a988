"""Restore a scenario from a plan workbook or just its Assumptions sheet (design 6).

The reader looks for the Assumptions sheet (or a single sheet with the same header), takes each
row's Path and Value, rebuilds the scenario document and validates it with the pydantic model.
openpyxl parses the XML through defusedxml when it is installed (a project dependency), so
entity expansion and external entities are refused; the zip container is checked for size
before anything is parsed.
"""
from __future__ import annotations

import io
import logging
import re
import typing
import zipfile
from typing import Any

import openpyxl
from openpyxl.utils.escape import unescape
from pydantic import BaseModel, ValidationError

from models.scenario import Scenario
from service.clip import clip, clip_repr
from service.ingest.guards import unsafe_part_name
from service.xlsx.assumptions import EXACT_COL, HEADERS, SHEET, stored_number
from service.xlsx.names import RANGE_ROW, range_row
from service.i18n import LANGUAGES, translations

MAX_BYTES = 50 * 1024 * 1024            # compressed upload
MAX_UNCOMPRESSED = 500 * 1024 * 1024    # all members together
MAX_RATIO = 200                         # per member: zip bombs compress far better than this
PATH_RE = re.compile(r"^(name|[a-z_]+(\[[A-Za-z0-9_:-]+\])?(\.[a-z_]+(\[[A-Za-z0-9_:-]+\])?)*)$")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


log = logging.getLogger(__name__)


class WorkbookError(ValueError):
    """An uploaded workbook that is not a readable buyrent plan / Assumptions sheet.

    ``problems``: when the sheet's values break the schema, each pydantic error item with the
    cell it came from (``Assumptions!C12``, or None), for a page that names each field by its
    label (service/scenarios/from_file.py); the message says the same in one line.
    """

    def __init__(self, message: str, problems: list[tuple[dict, Any]] | None = None):
        super().__init__(message)
        self.problems = problems or []


def _check_container(data: bytes) -> None:
    if not data:
        raise WorkbookError("the file is empty")
    if len(data) > MAX_BYTES:
        raise WorkbookError(f"the file is {len(data):,} bytes; the limit is {MAX_BYTES:,}")
    if data.startswith(OLE_MAGIC):
        raise WorkbookError("the file is an encrypted workbook or an old .xls file; save it as "
                            "an unencrypted .xlsx")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except Exception:  # BadZipFile, and whatever else a forged directory makes zipfile raise
        raise WorkbookError("the file is not an .xlsx workbook (not a zip container)") from None
    with archive:
        total = 0
        for info in archive.infolist():
            if unsafe_part_name(info.filename):
                raise WorkbookError(f"the workbook has an unsafe part name "
                                    f"{clip_repr(info.filename)}: refused")
            total += info.file_size
            if info.flag_bits & 0x1:
                raise WorkbookError("the workbook is encrypted")
            if info.compress_size and info.file_size / info.compress_size > MAX_RATIO \
                    and info.file_size > 10 * 1024 * 1024:
                raise WorkbookError(f"the workbook member {clip(info.filename)} expands "
                                    f"{info.file_size / info.compress_size:,.0f}-fold: refused")
        if total > MAX_UNCOMPRESSED:
            raise WorkbookError(f"the workbook expands to {total:,} bytes: refused")
        if "[Content_Types].xml" not in archive.namelist():
            raise WorkbookError("the file is a zip archive but not an .xlsx workbook")


def _in_every_language(text: str) -> set[str]:
    """A sheet name or header as any language's workbook writes it."""
    return {text} | {translations(lang).gettext(text) for lang in LANGUAGES}


def _find_sheet(wb):
    names = _in_every_language(SHEET)
    named = [wb[n] for n in wb.sheetnames if n in names]
    candidates = named or list(wb.worksheets)
    headers = [_in_every_language(h) for h in HEADERS[:3]]
    for ws in candidates:
        for r, row in enumerate(ws.iter_rows(min_row=1, max_row=10, values_only=True), start=1):
            cells = [str(v).strip() if v is not None else "" for v in row[:len(HEADERS)]]
            if all(cell in options for cell, options in zip(cells[:3], headers)):
                return ws, r
    raise WorkbookError(f"no {SHEET} sheet with the columns {', '.join(HEADERS[:3])} was found: "
                        "this is not a buyrent plan workbook")


def _set(doc: dict, path: str, value: Any) -> None:
    """Put value at a path like owned.resale_fraction_by_year[2] or commitments[1].id (or
    uncertainty.ranges[owned.pue].low: the key of the ranges mapping is itself a path)."""
    row = RANGE_ROW.match(path)
    if row:
        ranges = doc.setdefault("uncertainty", {}).setdefault("ranges", {})
        ranges.setdefault(row.group("path"), {})[row.group("end")] = value
        return
    node: Any = doc
    parts = path.split(".")
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        m = re.fullmatch(r"([a-z_]+)(?:\[([A-Za-z0-9_:-]+)\])?", part)
        if not m:
            raise WorkbookError(f"unknown path {clip_repr(path)}")
        key, index = m.group(1), m.group(2)
        if index is None:
            if last:
                node[key] = value
            else:
                node = node.setdefault(key, {})
            continue
        container = node.setdefault(key, {})
        if last:
            container[index] = value
        else:
            node = container.setdefault(index, {})


def _table_fields() -> list[tuple[str, str]]:
    """(section, field) of every scenario field that is a tuple of rows (models)."""
    out = []
    for section, info in Scenario.model_fields.items():
        for name, sub in getattr(info.annotation, "model_fields", {}).items():
            args = typing.get_args(sub.annotation)
            if typing.get_origin(sub.annotation) is tuple and args and isinstance(
                    args[0], type) and issubclass(args[0], BaseModel):
                out.append((section, name))
    return out


TABLE_FIELDS = _table_fields()


def _row_number(key: str) -> int:
    if not key.isdigit() or len(key) > 6:
        raise WorkbookError(f"row number {clip_repr(key)} is not a row number")
    return int(key)


def _listify(doc: dict) -> dict:
    """Numbered dict items back to lists (commitments, resale fractions)."""
    owned = doc.get("owned", {})
    if "resale_fraction_by_year" in owned:
        items = owned["resale_fraction_by_year"]
        owned["resale_fraction_by_year"] = [items[k] for k in sorted(items, key=_row_number)]
    offers = doc.get("commitments", {})
    doc["commitments"] = [offers[k] for k in sorted(offers, key=_row_number)]
    types = doc.get("server_types", {})   # issue 26: rows per type, a type's resale by year
    doc["server_types"] = [types[k] for k in sorted(types, key=_row_number)]
    for kind in doc["server_types"]:
        if isinstance(kind.get("resale_fraction_by_year"), dict):
            items = kind["resale_fraction_by_year"]
            kind["resale_fraction_by_year"] = [items[k] for k in sorted(items, key=_row_number)]
    for section, field in TABLE_FIELDS:   # position.servers[1].count ... back to lists
        node = doc.get(section, {})
        if isinstance(node.get(field), dict):
            rows = node[field]
            node[field] = [rows[k] for k in sorted(rows, key=_row_number)]
    financing = owned.get("financing")
    if financing and financing.get("kind") == "cash":
        owned["financing"] = {"kind": "cash"}
    doc.setdefault("proposed", {}).setdefault("committed_gpus", {})
    return doc


def _cell_value(value: Any) -> Any:
    """Blank cells are None (optional fields); numbers and text as read."""
    if isinstance(value, str):
        # OOXML escapes control characters as _xHHHH_ (CR -> _x000D_); openpyxl keeps them
        return unescape(value) if value.strip() else None
    return value


def _read_rows(data: bytes) -> tuple[dict[str, Any], dict[str, str]]:
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        ws, header_row = _find_sheet(wb)
        doc: dict[str, Any] = {}
        where: dict[str, str] = {}
        for r, row in enumerate(ws.iter_rows(min_row=header_row + 1, values_only=True),
                                start=header_row + 1):
            if not row or row[0] is None or not str(row[0]).strip():
                continue
            path = str(row[0]).strip()
            if not PATH_RE.match(path) and not RANGE_ROW.match(path):
                raise WorkbookError(f"{clip(ws.title)}!A{r}: {clip_repr(path)} is not a "
                                    "scenario field path")
            value = row[2] if len(row) > 2 else None
            if isinstance(value, str) and value.startswith("#"):
                raise WorkbookError(f"{clip(ws.title)}!C{r} ({clip(path)}) holds an error "
                                    f"value {clip(value)}")
            exact = row[EXACT_COL] if len(row) > EXACT_COL else None
            _set(doc, path, _exact(_cell_value(value), exact))
            where[path] = f"{ws.title}!C{r}"
        return doc, where
    finally:
        wb.close()


def _exact(value: Any, exact: Any) -> Any:
    """The full-precision float of an unedited cell (see assumptions.needs_exact)."""
    if not isinstance(exact, str) or isinstance(value, bool) \
            or not isinstance(value, (int, float)):
        return value
    try:
        full = float(exact)
    except ValueError:
        return value
    return full if stored_number(full) == value else value


def scenario_from_xlsx(data: bytes) -> Scenario:
    """The scenario of a plan workbook (or of a workbook holding just its Assumptions sheet);
    the one server type ``owned`` that a workbook shows for a scenario without server types
    reads back as that scenario (models.scenario.Scenario.as_written)."""
    _check_container(data)
    try:
        doc, where = _read_rows(data)
    except WorkbookError:
        raise
    except Exception:  # openpyxl and defusedxml raise many types for damaged files
        # their text names library internals (and sometimes quotes the file): logged, not shown
        log.warning("unreadable workbook import", exc_info=True)
        raise WorkbookError("the workbook cannot be read: it is damaged or not an .xlsx "
                            "saved by Excel, LibreOffice or buyrent") from None
    if not where:
        raise WorkbookError(f"the {SHEET} sheet has no scenario rows")
    try:
        return Scenario.model_validate(_listify(doc)).as_written()
    except ValidationError as exc:
        items = exc.errors()[:20]
        raise WorkbookError("; ".join(_message(item, where) for item in items),
                            [(item, where.get(_sheet_path(item))) for item in items]) from None
    except (TypeError, ValueError, KeyError, AttributeError):
        # e.g. rows "owned" and "owned.pue" (a value and a section at one path)
        raise WorkbookError(f"the {SHEET} sheet's paths do not form a scenario (a path is "
                            "both a value and a section, or an index is not a number)") from None


def _message(item: dict, where: dict[str, str]) -> str:
    path = _sheet_path(item)
    cell = where.get(path)
    return f"{cell + ' ' if cell else ''}({clip(path) or 'scenario'}): {item['msg']}"


def _sheet_path(item: dict) -> str:
    """The Path column's spelling of a pydantic error's field (rows numbered from 1)."""
    path = ""
    loc = item["loc"]
    if tuple(loc[:2]) == ("uncertainty", "ranges") and len(loc) == 4:
        loc, path = (), range_row(str(loc[2]), str(loc[3]))   # the sheet's path of that end
    for part in loc:
        if isinstance(part, int):
            path += f"[{part + 1}]"
        elif part in ("cash", "loan") and path.endswith("financing"):
            continue
        else:
            path += ("." if path else "") + str(part)
    return path
