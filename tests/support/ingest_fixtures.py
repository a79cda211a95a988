"""Helpers for the ingest tests: workbooks built part by part, so hostile ones can be made."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import xlsxwriter

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    '</Types>')
ROOT_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
    '</Relationships>')
WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="usage" sheetId="1" r:id="rId1"/></sheets></workbook>')
WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>'
    '</Relationships>')
SHEET_HEAD = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
              '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">')


def cell(ref: str, value) -> str:
    if isinstance(value, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>'
    return f'<c r="{ref}"><v>{value}</v></c>'


def sheet_xml(rows: list[list], extra_cells: dict[int, str] | None = None, tail: str = "",
              prologue: str = "") -> str:
    """A worksheet part; ``extra_cells`` maps a row number to raw XML appended to that row."""
    body = []
    for r, values in enumerate(rows, start=1):
        cells = "".join(cell(f"{chr(65 + j)}{r}", v) for j, v in enumerate(values))
        cells += (extra_cells or {}).get(r, "")
        body.append(f'<row r="{r}">{cells}</row>')
    head = SHEET_HEAD if not prologue else SHEET_HEAD.replace("\n", "\n" + prologue, 1)
    return head + "<sheetData>" + "".join(body) + "</sheetData>" + tail + "</worksheet>"


def raw_xlsx(sheet: str, parts: dict[str, bytes | str] | None = None) -> bytes:
    """A minimal xlsx with the given sheet1.xml (and extra or replaced parts)."""
    files = {"[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": ROOT_RELS,
             "xl/workbook.xml": WORKBOOK, "xl/_rels/workbook.xml.rels": WORKBOOK_RELS,
             "xl/worksheets/sheet1.xml": sheet}
    files.update(parts or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return out.getvalue()


def xlsx(sheets: dict[str, list[list]], hidden: tuple[str, ...] = (), date_columns=()) -> bytes:
    """A real workbook written by XlsxWriter: {sheet name: rows (first = header)}."""
    out = io.BytesIO()
    book = xlsxwriter.Workbook(out, {"in_memory": True})
    date = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, values in enumerate(rows):
            for c, value in enumerate(values):
                if c in date_columns and r > 0 and hasattr(value, "year"):
                    sheet.write_datetime(r, c, value, date)
                elif value is not None:
                    sheet.write(r, c, value)
    for sheet in book.worksheets():
        if sheet.name in hidden:
            sheet.hide()
    visible = [s for s in book.worksheets() if s.name not in hidden]
    if hidden and visible:
        visible[0].activate()   # XlsxWriter cannot hide the active sheet
    book.close()
    return out.getvalue()


def csv_bytes(*lines: str, newline: str = "\n") -> bytes:
    return (newline.join(lines) + newline).encode("utf-8")


def _local_and_central(name: bytes, method: int, crc: int, csize: int, usize: int,
                       offset: int) -> tuple[bytes, bytes]:
    import struct
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, csize, usize,
                        len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0x21, crc,
                          csize, usize, len(name), 0, 0, 0, 0, 0, offset) + name
    return local, central


N_ROWS = 2   # one repeated row: 1.33 MB on disk for 383 MB of sheet XML


def zip_bomb(path: Path, sheet_bytes: int = 384_000_000, declared: int | None = None) -> None:
    """An xlsx whose sheet part inflates to ``sheet_bytes`` (about 1.3 MB on disk at the default).

    The sheet is one deflate segment, flushed so that it can be repeated, written many times:
    building it costs seconds, not the minutes compressing 384 MB would. ``declared`` writes a
    lying uncompressed size into the zip headers.
    """
    import struct
    import zlib
    pattern = "".join(f'<row r="{i}"><c r="A{i}"><v>46023.{i}</v></c><c r="B{i}"><v>{i % 7}'
                      f'</v></c></row>' for i in range(1, N_ROWS)).encode()
    segment_plain = pattern * (1_000_000 // len(pattern))
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = packer.compress(segment_plain) + packer.flush(zlib.Z_FULL_FLUSH)
    head = (SHEET_HEAD + "<sheetData>").encode()
    tail = b"</sheetData></worksheet>"
    repeats = max(1, (sheet_bytes - len(head) - len(tail)) // len(segment_plain))
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    last = packer.compress(tail) + packer.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(repeats):
        crc = zlib.crc32(segment_plain, crc)
    crc = zlib.crc32(tail, crc)
    usize = len(head) + repeats * len(segment_plain) + len(tail)
    csize = len(first) + repeats * len(segment) + len(last)
    with open(path, "wb") as out:
        centrals = []
        for name, content in {"[Content_Types].xml": CONTENT_TYPES, "_rels/.rels": ROOT_RELS,
                              "xl/workbook.xml": WORKBOOK,
                              "xl/_rels/workbook.xml.rels": WORKBOOK_RELS}.items():
            data = content.encode()
            local, central = _local_and_central(name.encode(), 0, zlib.crc32(data), len(data),
                                                len(data), out.tell())
            out.write(local + data)
            centrals.append(central)
        size = usize if declared is None else declared
        local, central = _local_and_central(b"xl/worksheets/sheet1.xml", 8, crc, csize, size,
                                            out.tell())
        out.write(local + first)
        for _ in range(repeats):
            out.write(segment)
        out.write(last)
        centrals.append(central)
        start = out.tell()
        directory = b"".join(centrals)
        out.write(directory)
        out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(centrals), len(centrals),
                              len(directory), start, 0))
