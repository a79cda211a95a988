"""Recalculate workbooks with LibreOffice headless, from scratch (tests and checks).

LibreOffice keeps the cached values of an .xlsx unless told otherwise; a private profile whose
registrymodifications.xcu sets OOXMLRecalcMode to 0 ("always recalculate") makes it recompute
every formula on load, so the converted copy holds LibreOffice's own results.
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess
import tempfile

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
