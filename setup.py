"""The one build step pyproject.toml cannot declare; every piece of metadata lives there.

A wheel must carry what the package reads at run time beside its code (service/paths.py):
the compiled translation catalogs, which are never committed (scripts/bootstrap compiles them
for a checkout), and the templates, static files, migrations and samples kept at the top of
the checkout. Without them an installed web app refused to start (``messages.mo is
missing``) and had no page to serve.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CATALOGS = Path("service") / "translations"
BUNDLED = ("templates", "static", "migrations", "samples")   # -> service/bundled/<name>


def compile_catalogs(source: Path, target: Path) -> None:
    """Each ``<lang>/LC_MESSAGES/<domain>.po`` under ``source`` as a .mo under ``target``, as
    ``pybabel compile`` writes it (fuzzy entries left out)."""
    for po in sorted(source.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as fp:
            catalog = read_po(fp, locale=po.parent.parent.name)
        mo = target / po.relative_to(source).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with mo.open("wb") as fp:
            write_mo(fp, catalog)


class BuildWithData(build_py):
    """build_py, then the catalogs compiled and the checkout's data folders copied into the
    build. An editable install reads the checkout itself and skips both."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        build = Path(self.build_lib)
        compile_catalogs(HERE / CATALOGS, build / CATALOGS)
        for name in BUNDLED:
            target = build / "service" / "bundled" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(HERE / name, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
