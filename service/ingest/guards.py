"""Hostile or mislabelled files, refused before they cost memory or time.

Every check here reads metadata or streams bounded chunks: the zip central directory (entry
count, declared sizes, compression ratio, names), then each XML part in 1 MB pieces for
DOCTYPE / ENTITY declarations, formula cells without cached values and merged cells.
Nothing here parses XML with entity expansion; openpyxl is never used on uploads (the plan
workbook's round trip, service/xlsx/roundtrip.py, reads through defusedxml, which openpyxl uses
whenever it is installed: tests/io/test_xlsx_roundtrip.py). Nor is it imported here: the usage
readers, and `buyrent plan` with them, do not load it.
"""
from __future__ import annotations

import io
import re
import zipfile
import zlib
from pathlib import PurePosixPath

from service.clip import clip_repr
from service.ingest.core import Limits, fail, fail_one, problem

ZIP = b"PK\x03\x04"
OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
MAGIC = {b"%PDF": "a PDF document", b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image",
         b"\x1f\x8b": "a gzip archive", b"7z\xbc\xaf": "a 7-Zip archive",
         b"Rar!": "a RAR archive", b"PAR1": "a Parquet file", b"{\\rtf": "an RTF document"}
SAVE_AS = "open it in Excel or LibreOffice and save it as .xlsx (Excel Workbook) or .csv (UTF-8)"
FORMATS = {".xls": "an Excel 97-2003 workbook (.xls)", ".xlsb": "an Excel binary workbook (.xlsb)",
           ".xlsm": "a macro-enabled Excel workbook (.xlsm)",
           ".ods": "an OpenDocument spreadsheet (.ods)"}
CHUNK = 1 << 20
DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
CELL = re.compile(rb"<c\b([^>]*?)(?<!/)>(.*?)</c>", re.DOTALL)
REF = re.compile(rb'\br="([A-Z]+[0-9]+)"')
FAR = re.compile(rb' r="(?:[A-Z]{2}|[A-Z]*(?:[2-9][0-9]{5}|[0-9]{7}))')
CELL_REF = re.compile(rb' r="([A-Z]*)([0-9]+)"')
NEAR_ROWS, NEAR_COLUMNS = 200_000, 26
COUNT = re.compile(rb'[cC]ount="([0-9]{7,})"')
MERGE = re.compile(rb'<mergeCell\b[^>]*\bref="([A-Z0-9:$]+)"')


def describe(data: bytes) -> str:
    """What the bytes look like, for 'not what its extension says' messages."""
    head = data[:8]
    if head.startswith(ZIP):
        return "a zip archive"
    if head.startswith(OLE):
        return "an OLE file (Excel 97-2003 or a password-protected workbook)"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "text"   # UTF-16/32 with a byte-order mark: the CSV reader asks for UTF-8
    for magic, name in MAGIC.items():
        if head.startswith(magic):
            return name
    if b"\x00" in data[:4096]:
        return "binary data"
    return "text"


def check_size(data: bytes, filename: str, limits: Limits) -> None:
    if len(data) > limits.max_bytes:
        raise fail_one(filename, f"the file is {len(data):,} bytes; the limit is "
                       f"{limits.max_bytes:,} bytes")
    if not re.search(rb"[^ \t\r\n\xef\xbb\xbf]", data):   # stops at the first character
        raise fail_one(filename, "the file is empty")


def ole_message(data: bytes, filename: str):
    encrypted = "EncryptionInfo".encode("utf-16-le") in data[:2_000_000] or \
        b"E\x00n\x00c\x00r\x00y\x00p\x00t\x00e\x00d\x00P\x00a\x00c\x00k\x00a\x00g\x00e" in data
    if encrypted:
        return fail_one(filename, "the workbook is password-protected (encrypted); remove the "
                        "password (File > Info > Protect Workbook) and save it as .xlsx or .csv")
    return fail_one(filename, f"this is {FORMATS['.xls']}, which is not read here; {SAVE_AS}")


def open_zip(data: bytes, filename: str, limits: Limits) -> zipfile.ZipFile:
    """The workbook as a zip, after checking its central directory only."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise fail_one(filename, f"the file is not a valid xlsx (broken zip: {exc})") from None
    infos = archive.infolist()
    if len(infos) > limits.max_zip_entries:
        raise fail_one(filename, f"the workbook holds {len(infos):,} parts; the limit is "
                       f"{limits.max_zip_entries:,} (not a normal spreadsheet)")
    total = 0
    for info in infos:
        name = info.filename
        if unsafe_part_name(name):
            raise fail_one(filename, f"the workbook has an unsafe part name {clip_repr(name)}")
        if info.flag_bits & 0x1:
            raise fail_one(filename, "the workbook has encrypted parts; remove the password "
                           "and save it as .xlsx or .csv")
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > CHUNK and ratio > limits.max_zip_ratio:
            raise fail_one(filename, f"part {name!r} expands {ratio:,.0f}:1 (limit "
                           f"{limits.max_zip_ratio:,.0f}:1): refused as a likely zip bomb")
    if total > limits.max_unzipped_bytes:
        raise fail_one(filename, f"the workbook unpacks to {total:,} bytes; the limit is "
                       f"{limits.max_unzipped_bytes:,}")
    return archive


def unsafe_part_name(name: str) -> bool:
    """A zip part that would leave the archive's root if unpacked (``../x.xml``, ``/etc/x``,
    ``C:x``): no workbook has one, so a file that does is refused whatever reads it."""
    path = PurePosixPath(name.replace("\\", "/"))
    return path.is_absolute() or ".." in path.parts or bool(re.match(r"^[A-Za-z]:", name))


def workbook_kind(archive: zipfile.ZipFile) -> str:
    """xlsx, or the other zip formats users upload by mistake."""
    names = set(archive.namelist())
    if "mimetype" in names:
        kind = archive.read("mimetype")[:100]
        return "ods" if b"opendocument" in kind else "zip"
    if "xl/workbook.bin" in names:
        return "xlsb"
    if "[Content_Types].xml" not in names or "xl/workbook.xml" not in names:
        return "zip"
    if "xl/vbaProject.bin" in names or b"macroEnabled" in archive.read("[Content_Types].xml"):
        return "xlsm"
    return "xlsx"


def scan_parts(archive: zipfile.ZipFile, filename: str, sheet_part: str, limits: Limits
               ) -> int:
    """Refuse DOCTYPE/ENTITY in any XML part; in the sheet part refuse formula cells without a
    cached value and merged cells. Returns the number of <row> elements of the sheet."""
    try:
        return _scan_parts(archive, filename, sheet_part, limits)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise fail_one(filename, f"the workbook is corrupt or its sizes lie ({exc}): refused"
                       ) from None


def _scan_parts(archive: zipfile.ZipFile, filename: str, sheet_part: str, limits: Limits
                ) -> int:
    rows = 0
    for info in archive.infolist():
        name = info.filename
        if not name.endswith((".xml", ".rels", ".vml")):
            continue
        with archive.open(info) as part:
            if name == sheet_part:
                rows = _scan_sheet(part, filename, limits, info.file_size)
                continue
            tail = b""
            while chunk := part.read(CHUNK):
                if b"!" in tail + chunk and DOCTYPE.search(tail + chunk):
                    raise doctype(filename, name)
                _check_counts(tail + chunk, filename, name, limits)
                tail = chunk[-32:]
    return rows


def doctype(filename: str, name: str):
    return fail_one(filename, f"part {name!r} declares a DOCTYPE or ENTITY (an XML bomb or "
                    "external entity attempt): refused")


def _scan_sheet(part, filename: str, limits: Limits, size: int) -> int:
    rows = cells = 0
    far_row = far_col = 0   # the farthest cell reference, looked for only past A..Z / row 199,999
    count_cells = size > 4 * limits.max_cells
    carry = b""
    problems = []
    merged = []
    while True:
        chunk = part.read(CHUNK)
        data = carry + chunk
        if not chunk:
            carry = b""
        else:
            # cut after the last whole cell or row, so no <c>...</c> straddles two pieces
            cut = max(data.rfind(b"</c>") + 4, data.rfind(b"</row>") + 6, 0)
            data, carry = data[:cut], data[cut:]
            if len(carry) > limits.max_cell_bytes:
                raise fail_one(filename, "the sheet has an element over "
                               f"{limits.max_cell_bytes:,} bytes: refused")
        if b"!" in data and DOCTYPE.search(data):   # one memchr pass; '<' is everywhere
            raise doctype(filename, part.name)
        _check_counts(data, filename, part.name, limits)
        rows += data.count(b"</row>")
        if count_cells:   # every cell is 4 bytes or more, so small sheets cannot exceed it
            cells += data.count(b"<c")
        if FAR.search(data):
            for letters, number in CELL_REF.findall(data):
                far_row = max(far_row, int(number))
                far_col = max(far_col, column_number(letters))
        if b"<f" in data:
            problems += _formulas(data, filename)
            if len(problems) > 100:
                break
        if b"<mergeCell " in data:
            merged += MERGE.findall(data)
        if not chunk:
            break
    _check_area(filename, limits, rows, cells, far_row, far_col)
    if merged:
        problems += [problem(_first_row(ref), None, f"merged cells {ref.decode()}: unmerge "
                             "them (one value per cell) and save again") for ref in merged]
    if problems:
        raise fail(filename, problems)
    return rows


def _check_counts(data: bytes, filename: str, name: str, limits: Limits) -> None:
    """calamine reserves memory from count attributes (<sst uniqueCount=...>): a 4e9 there made
    it allocate 96 GB and abort the process, so no count may exceed the cell limit."""
    if b'ount="' not in data:
        return
    for number in COUNT.findall(data):
        if int(number) > limits.max_cells:
            raise fail_one(filename, f"part {name!r} declares a count of {int(number):,} "
                           f"(limit {limits.max_cells:,}): refused")


def column_number(letters: bytes) -> int:
    """A=1 ... Z=26, AA=27 ... XFD=16384 (0 for no letters)."""
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def _check_area(filename: str, limits: Limits, rows: int, cells: int, far_row: int,
                far_col: int) -> None:
    """calamine allocates the sheet as a dense rectangle up to its farthest cell: two cells at
    A1 and XFD1048576 would ask for 17 billion cells (the process aborts), so bound it first."""
    if cells > limits.max_cells:
        raise fail_one(filename, f"the sheet holds {cells:,} cells; the limit is "
                       f"{limits.max_cells:,}")
    # without a FAR match every reference is within A..Z and rows < 200,000
    height = max(far_row, rows) if far_row else max(rows, NEAR_ROWS)
    width = max(far_col, NEAR_COLUMNS) if far_row or far_col else NEAR_COLUMNS
    if (far_row or far_col or limits.max_cells < NEAR_ROWS * NEAR_COLUMNS) and \
            height * width > limits.max_cells:
        raise fail_one(filename, f"the sheet spans {height:,} rows x {width:,} columns up to "
                       f"its farthest cell; the limit is {limits.max_cells:,} cells")


def _first_row(ref: bytes):
    digits = re.search(rb"\d+", ref)
    return int(digits.group()) if digits else None


def _formulas(data: bytes, filename: str) -> list[dict]:
    """Formula cells with no cached value (<f> without <v>): the file was never recalculated."""
    found = []
    for match in CELL.finditer(data):
        body = match.group(2)
        if b"<f" in body and b"<v" not in body:
            ref = REF.search(match.group(1))
            cell = ref.group(1).decode() if ref else "?"
            column = re.sub(r"\d", "", cell)
            row = int(re.sub(r"\D", "", cell) or 0) or None
            found.append(problem(row, column, f"cell {cell} holds a formula with no saved value; "
                                 "open the file in Excel or LibreOffice, let it recalculate, "
                                 "and save again (or paste values)"))
    return found
