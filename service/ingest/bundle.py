"""A usage file and a GPU busy-time file travel together as one zip (a "bundle").

The web form's second file field, the API's ``busy`` multipart part and the CLI's ``--busy``
option all make one with ``make_bundle``; a user may also zip the two files themselves. The
bundle is stored as the revision's usage file, so a revision keeps both files, its content hash
covers both, and every later plan reads them again the same way. Which member is the busy-time
file is recognised by its content (busy_formats.recognise), never by its name.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

from service.clip import clip, clip_repr
from service.ingest import busy_formats
from service.ingest import csv as csv_reader
from service.ingest.core import IngestError, Limits, fail_one

SUFFIX = ".zip"


def make_bundle(usage_name: str, usage_data: bytes, busy_name: str, busy_data: bytes
                ) -> tuple[str, bytes]:
    """(file name, zip bytes) holding both files under their own base names."""
    usage_base, busy_base = _base(usage_name, "usage.csv"), _base(busy_name, "busy.csv")
    if usage_base == busy_base:
        busy_base = "busy-" + busy_base
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(usage_base, usage_data)
        archive.writestr(busy_base, busy_data)
    return f"{PurePosixPath(usage_base).stem}+busy{SUFFIX}", out.getvalue()


def _base(name: str, default: str) -> str:
    return name.replace("\\", "/").split("/")[-1] or default


def members(data: bytes, filename: str, limits: Limits) -> list[tuple[str, bytes]]:
    """The bundle's files (name, bytes), checked from the zip directory before any is read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise fail_one(filename, f"the file is not a valid zip ({exc})") from None
    files = [i for i in archive.infolist() if not i.is_dir()
             and not i.filename.startswith("__MACOSX/")]
    if len(files) != 2:
        raise fail_one(filename, "a .zip upload holds exactly two files, a usage file and a GPU "
                       f"busy-time file; this one holds {len(files)}")
    out = []
    for info in files:
        if info.flag_bits & 0x1:
            raise fail_one(filename, f"{clip_repr(info.filename)} is encrypted; zip it without a "
                           "password")
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > limits.max_bytes or (info.file_size > 1 << 20 and
                                                 ratio > limits.max_zip_ratio):
            raise fail_one(filename, f"{clip_repr(info.filename)} unpacks to {info.file_size:,} bytes "
                           f"({ratio:,.0f}:1); the limit is {limits.max_bytes:,} bytes per file")
        try:
            with archive.open(info) as member:
                content = member.read(limits.max_bytes + 1)
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise fail_one(filename, f"{clip_repr(info.filename)} cannot be unpacked "
                           f"({clip(exc)})") from None
        if len(content) > limits.max_bytes:
            raise fail_one(filename, f"{clip_repr(info.filename)} is larger than its zip entry says: "
                           "refused")
        out.append((_base(info.filename, "file"), content))
    return out


def split(files: list[tuple[str, bytes]], filename: str) -> tuple[tuple[str, bytes],
                                                                  tuple[str, bytes]]:
    """(usage file, busy-time file) of a bundle's two files."""
    busy = []
    for name, content in files:
        try:
            line = csv_reader.first_line(csv_reader.head_text(content, name))
        except IngestError:
            continue                                  # binary (an xlsx) or not UTF-8
        if busy_formats.recognise(line):
            busy.append((name, content))
    if len(busy) != 1:
        names = ", ".join(n for n, _ in files)
        raise fail_one(filename, f"of its two files ({names}), {len(busy)} are GPU busy-time "
                       "files; a bundle holds one usage file and one busy-time file (DCGM "
                       "Prometheus text, DCGM CSV or nvidia-smi CSV)")
    usage = next(f for f in files if f is not busy[0])
    if usage[0].lower().endswith(SUFFIX):
        raise fail_one(filename, "a bundle cannot hold another .zip")
    return usage, busy[0]
