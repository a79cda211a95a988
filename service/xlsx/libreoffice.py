"""Recalculate workbooks with LibreOffice headless, from scratch (tests and checks).

LibreOffice keeps the cached values of an .xlsx unless told otherwise; a private profile whose
registrymodifications.xcu sets OOXMLRecalcMode to 0 ("always recalculate") makes it recompute
every formula on load, so the converted copy holds LibreOffice's own results.
"""
from __future__ import annotations

import html
import io
import pathlib
import re
import shutil
import subprocess
import tempfile
import zipfile
from typing import Optional

RECALC_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
 xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
 <prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
 <prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


class LibreOfficeMissing(RuntimeError):
    pass


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if not exe:
        raise LibreOfficeMissing("LibreOffice (soffice) is not installed: install "
                                 "libreoffice-calc-nogui (scripts/system-packages)")
    return exe


def make_profile(directory: pathlib.Path) -> pathlib.Path:
    """A LibreOffice user profile that recalculates every workbook on load."""
    user = directory / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(RECALC_ALWAYS, encoding="utf-8")
    return directory


def recalculate(files: list[pathlib.Path], outdir: pathlib.Path, timeout: float = 300
                ) -> list[pathlib.Path]:
    """Convert each .xlsx to .xlsx in ``outdir`` with every formula recalculated.

    All files go through one soffice process (start-up dominates the cost).
    """
    return convert(files, outdir, "xlsx:Calc MS Excel 2007 XML", ".xlsx", timeout)


def to_pdf(files: list[pathlib.Path], outdir: pathlib.Path, timeout: float = 300
           ) -> list[pathlib.Path]:
    """Print each workbook to PDF in ``outdir`` (recalculated, with the fonts it needs)."""
    return convert(files, outdir, "pdf", ".pdf", timeout)


def convert(files: list[pathlib.Path], outdir: pathlib.Path, target: str, suffix: str,
            timeout: float = 300) -> list[pathlib.Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as tmp:
        profile = make_profile(pathlib.Path(tmp))
        cmd = [soffice(), f"-env:UserInstallation={profile.as_uri()}", "--headless",
               "--norestore", "--convert-to", target,
               "--outdir", str(outdir), *[str(f) for f in files]]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    out = [outdir / pathlib.Path(f).with_suffix(suffix).name for f in files]
    missing = [p for p in out if not p.exists()]
    if done.returncode != 0 or missing:
        raise RuntimeError(f"LibreOffice failed (exit {done.returncode}): {done.stderr.strip()} "
                           f"{done.stdout.strip()}; missing {missing}")
    return out


SHEET_TAG = re.compile(rb"<sheet\b[^>]*/>")
NAME_ATTR = re.compile(rb'\bname="([^"]*)"')


def only_sheets(xlsx: bytes, keep: set[str]) -> bytes:
    """A copy of a workbook in which every sheet but ``keep`` is hidden (nothing else changes:
    charts, formulas and print setup stay as written). LibreOffice prints no hidden sheet."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xlsx)) as src, zipfile.ZipFile(out, "w",
                                                                    zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/workbook.xml":
                def hide(match: re.Match) -> bytes:
                    tag = match.group(0)
                    name = NAME_ATTR.search(tag)
                    if name and html.unescape(name.group(1).decode()) in keep:
                        return tag
                    return re.sub(rb'\s*state="[^"]*"', b"", tag)[:-2] + b' state="hidden"/>'
                data = SHEET_TAG.sub(hide, data)
                data = drop_print_areas(data, keep)
            dst.writestr(item, data)
    return out.getvalue()


def drop_print_areas(workbook_xml: bytes, keep: set[str]) -> bytes:
    """Remove the print areas of the sheets not kept: LibreOffice prints a hidden sheet that
    has a print area (the Profile sheet has one)."""
    names = [html.unescape(m.group(1).decode()) for tag in SHEET_TAG.findall(workbook_xml)
             for m in [NAME_ATTR.search(tag)] if m]
    hidden = {str(i) for i, name in enumerate(names) if name not in keep}

    def drop(match: re.Match) -> bytes:
        return b"" if match.group(1).decode() in hidden else match.group(0)
    return re.sub(rb'<definedName name="_xlnm\.Print_Area" localSheetId="(\d+)"[^>]*>[^<]*'
                  rb'</definedName>', drop, workbook_xml)


def export_pdf(xlsx: bytes, outdir: pathlib.Path, sheets: Optional[set[str]] = None,
               timeout: float = 300) -> pathlib.Path:
    """LibreOffice's PDF export of a workbook (only ``sheets`` when given), as printed: print
    areas, fit-to-page, repeated rows and footers apply."""
    outdir.mkdir(parents=True, exist_ok=True)
    source = outdir / "workbook.xlsx"
    source.write_bytes(only_sheets(xlsx, sheets) if sheets else xlsx)
    with tempfile.TemporaryDirectory(prefix="lo-profile-") as tmp:
        profile = make_profile(pathlib.Path(tmp))
        cmd = [soffice(), f"-env:UserInstallation={profile.as_uri()}", "--headless",
               "--norestore", "--convert-to", "pdf:calc_pdf_Export", "--outdir", str(outdir),
               str(source)]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    pdf = outdir / "workbook.pdf"
    if done.returncode != 0 or not pdf.exists():
        raise RuntimeError(f"LibreOffice PDF export failed (exit {done.returncode}): "
                           f"{done.stderr.strip()} {done.stdout.strip()}")
    return pdf
