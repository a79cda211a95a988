"""Usage files -> validated UsageProfile (design 4.1, 7).

``read_usage(data, filename)`` is the upload/API path, ``load_usage(path)`` the CLI path. The
content decides the reader (the extension must agree with it): plain CSV or XLSX usage tables,
FOCUS 1.0-1.3 billing exports, AWS CUR (legacy), Azure cost details and Google Cloud billing
exports, Slurm ``sacct --parsable2`` dumps, and a .zip bundle of a usage file with a GPU
busy-time file. ``read_upload`` also reads a FOCUS 1.3 Contract Commitment dataset, which holds
commitments, not usage, and returns a ``ContractResult``. The downloadable templates are in
``service.ingest.template`` (it loads xlsxwriter, which reading a file does not need).
"""
from __future__ import annotations

import mmap
import re
from pathlib import Path

from service.ingest import (aws_cur, azure, busy, bundle, contract_commitments, focus,
                            focus_columns, gcp, guards, slurm)
from service.ingest import csv as csv_reader
from service.ingest.build import build
from service.ingest.busy_join import join_busy
from service.ingest.commitment_record import (CommitmentError, attach_commitments_to_scenario,
                                              validate_commitment)
from service.ingest.contract_commitments import ContractResult
from service.ingest.core import IngestError, IngestResult, Limits, fail_one
from service.ingest.table import map_columns, normalise, read_table
from service.ingest.xlsx import read_xlsx

__all__ = ["CommitmentError", "ContractResult", "IngestError", "IngestResult", "Limits",
           "attach_commitments_to_scenario", "load_usage", "make_bundle", "read_contracts",
           "read_upload", "read_usage", "rows_before_reading", "validate_commitment"]

TEXT_SUFFIXES = {".csv", ".txt", ".tsv", ".psv", ".out", ".prom", ""}
EXPORTS = {m.FORMAT: m for m in (focus, aws_cur, azure, gcp)}
make_bundle = bundle.make_bundle
CONTRACTS = "contract_commitment"
MAP_FROM = 64_000_000      # bytes: a file this large is mapped from disk, not copied


def load_usage(path: str | Path, limits: Limits | None = None,
               busy_path: str | Path | None = None) -> IngestResult:
    """Read a usage file from disk (its size is checked before it is read), with an optional
    GPU busy-time file beside it."""
    path = Path(path)
    limits = limits or Limits()
    data = _read_file(path, limits)
    if busy_path is None:
        return read_usage(data, path.name, limits)
    busy_path = Path(busy_path)
    name, joined = bundle.make_bundle(path.name, bytes(data), busy_path.name,
                                      bytes(_read_file(busy_path, limits)))
    return read_usage(joined, name, limits)


def _read_file(path: Path, limits: Limits) -> bytes | mmap.mmap:
    """The file's bytes; a large one (a billing export) mapped read-only instead of copied."""
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise fail_one(path.name, f"the file is {size:,} bytes; the limit is "
                       f"{limits.max_bytes:,} bytes")
    if size < MAP_FROM:
        return path.read_bytes()
    with open(path, "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def read_usage(data: bytes, filename: str, limits: Limits | None = None) -> IngestResult:
    """Parse an uploaded usage file: its bytes and the name the user gave it."""
    result = read_upload(data, filename, limits)
    if isinstance(result, ContractResult):
        raise fail_one(_name(filename), "this is a FOCUS 1.3 Contract Commitment dataset: the "
                       "commitments a company holds, not usage. Upload it on the usage page to "
                       "see its GPU commitments; plan with a usage file")
    return result


def read_contracts(data: bytes, filename: str, limits: Limits | None = None) -> ContractResult:
    """Parse a FOCUS 1.3 Contract Commitment dataset (CSV or xlsx) into commitment records."""
    result = read_upload(data, filename, limits)
    if not isinstance(result, ContractResult):
        raise fail_one(_name(filename), "not a FOCUS 1.3 Contract Commitment dataset: its "
                       "header lacks ContractCommitmentId and ContractCommitmentPeriodStart", 1)
    return result


def _name(filename: str) -> str:
    return re.split(r"[\\/]", filename)[-1] or "upload"   # browsers may send C:\...\x.csv


def read_upload(data: bytes, filename: str, limits: Limits | None = None
                ) -> IngestResult | ContractResult:
    """A usage file (IngestResult) or a Contract Commitment dataset (ContractResult)."""
    limits = limits or Limits()
    name = _name(filename)
    suffix = Path(name).suffix.lower()
    guards.check_size(data, name, limits)
    looks = guards.describe(data)
    if suffix in guards.FORMATS:
        if looks.startswith("an OLE"):
            raise guards.ole_message(data, name)
        raise fail_one(name, f"this is {guards.FORMATS[suffix]}, which is not read here; "
                       f"{guards.SAVE_AS}")
    if looks.startswith("an OLE"):
        raise guards.ole_message(data, name)
    if not isinstance(data, bytes) and (suffix in (bundle.SUFFIX, ".xlsx")
                                        or looks != "text"):
        data = bytes(data)          # only wide text exports are read from a mapped file
    if suffix == bundle.SUFFIX:
        if looks != "a zip archive":
            raise fail_one(name, f"the file is named .zip but is {looks}")
        return _bundle(data, name, limits)
    if suffix == ".xlsx":
        if looks != "a zip archive":
            raise fail_one(name, f"the file is named .xlsx but is {looks}, not an Excel "
                           "workbook; save it from Excel as .xlsx, or rename it to .csv if "
                           "it is CSV text")
        return _xlsx(data, name, limits)
    if looks == "a zip archive":
        raise fail_one(name, f"the file is named {suffix or 'without an extension'} but is a "
                       "zip archive: name it .xlsx if it is a workbook, or .zip if it holds a "
                       "usage file and a GPU busy-time file")
    if looks != "text":
        raise fail_one(name, f"the file is {looks}, not CSV text or an xlsx workbook")
    if suffix not in TEXT_SUFFIXES:
        raise fail_one(name, f"unsupported file type {suffix!r}; upload .csv, .xlsx, a Slurm "
                       "sacct .txt dump, or a .zip of a usage file and a GPU busy-time file")
    return _text(data, name, limits)


def rows_before_reading(data: bytes, filename: str, limits: Limits | None = None) -> int:
    """How many data rows a usage file in text holds, counted by its line breaks without
    reading it (20 MB in about 10 ms); 0 for what is not text (a workbook, a zip bundle: their
    sheets' cells are bounded by the guards instead), what cannot be read at all (the reader
    says why), a GPU busy-time file (refused alone, at once) and a Contract Commitment file
    (its reader refuses one of more than ``commitments.MAX_ROWS`` rows, 0.5 s for 60,000).

    A web upload past ``UPLOAD_JOB_ROWS`` of these is read by a job, not in its request
    (service.scenarios.upload_jobs).

    Raises
    ------
    IngestError
        The file is larger than the readers take (bytes or rows), or empty: refused before
        it is stored.
    """
    name = _name(filename)
    limits = limits or Limits()
    guards.check_size(data, name, limits)
    if Path(name).suffix.lower() not in TEXT_SUFFIXES or guards.describe(data) != "text":
        return 0
    try:
        line = csv_reader.first_line(csv_reader.head_text(data, name))
        headers, _ = csv_reader.header(line, name)
    except IngestError:
        return 0
    if _kind(headers) == CONTRACTS or busy.recognise(line):   # refused at once when alone
        return 0
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    rows = max(lines - 1, 0)       # the header is no data row
    if rows > limits.max_rows:     # the readers' own bound (service.ingest.csv), said at once
        raise fail_one(name, f"the file has {rows:,} data rows; the limit is "
                       f"{limits.max_rows:,}")
    return rows


def _kind(headers: list) -> str:
    names = {normalise(h) for h in headers}
    if focus_columns.CONTRACT_HEADERS <= names:
        return CONTRACTS
    for module in (focus, aws_cur, azure, gcp, slurm):
        if module.HEADERS <= names:
            return module.FORMAT
    return "csv"


def _text(data: bytes, name: str, limits: Limits):
    line = csv_reader.first_line(csv_reader.head_text(data, name))
    headers, sep = csv_reader.header(line, name)
    kind = _kind(headers)
    if kind in EXPORTS:          # wide and possibly large: read without decoding it whole
        return EXPORTS[kind].read(data, headers, sep, name, limits)
    if kind == CONTRACTS:
        return contract_commitments.read(data, headers, sep, name, limits)
    if busy.recognise(line):
        raise fail_one(name, "this is a GPU busy-time file; upload it beside a usage file (the "
                       "upload form's second field, the API's 'busy' part, the CLI's --busy) "
                       "or zip the two files together")
    data = bytes(data)
    text = csv_reader.text_of(data, name)
    if kind == "slurm":
        return slurm.read(data, text, headers, sep, name, limits)
    csv_reader.check_shape(text, headers, sep, name, limits, limits.max_columns)
    columns = map_columns(headers, name)
    dtypes = {columns[k]: "category" for k in ("workload", "interruptible", "team")
              if k in columns}
    frame, rows = csv_reader.read_frame(data, name, sep, limits, dtype=dtypes,
                                        parse_dates=[columns["timestamp"]],
                                        date_format="ISO8601")
    records = read_table(frame, name, rows,
                         raw=lambda col: csv_reader.raw_column(data, sep, col, rows))
    return build(records, name, "csv")


def _xlsx(data: bytes, name: str, limits: Limits):
    frame, rows, warnings = read_xlsx(data, name, limits)
    kind = _kind(list(frame.columns))
    if kind in EXPORTS:
        return EXPORTS[kind].from_frame(frame, rows, name, limits, warnings)
    if kind == CONTRACTS:
        return contract_commitments.from_frame(frame, rows, name, limits, warnings)
    if len(frame.columns) > limits.max_columns:
        raise fail_one(name, f"the sheet has {len(frame.columns)} columns; the limit is "
                       f"{limits.max_columns}", 1)
    records = read_table(frame, name, rows)
    return build(records, name, "xlsx", warnings=warnings)


def _bundle(data: bytes, name: str, limits: Limits) -> IngestResult:
    usage, busy_file = bundle.split(bundle.members(data, name, limits), name)
    result = read_upload(usage[1], usage[0], limits)
    if isinstance(result, ContractResult):
        raise fail_one(name, f"{usage[0]} is a Contract Commitment dataset, not usage; busy "
                       "time is compared with a usage file")
    busy_time = busy.read_busy(busy_file[1], busy_file[0], limits)
    return join_busy(result, busy_time, busy_file[0])
