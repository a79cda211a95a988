"""Versions that key stored results: a plan is recomputed when the engine changes, a workbook
when buyrent or the workbook's layout does."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from models.limits import LIMITS_VERSION
from models.ledger import LEDGER_VERSION


def export_version() -> str:
    try:
        return version("buyrent")
    except PackageNotFoundError:  # running from a checkout that is not installed
        return "dev"


EXPORT_VERSION = export_version()
LAYOUT = "report2"  # bumped when the workbook's layout changes without a version change
# (report2: the robust plan prints its decisions that are not zero, issue 39 item 3)
# the engine that computed a stored plan: buyrent's version, the ledger's layout and the
# solvers' work limits
ENGINE_VERSION = f"{EXPORT_VERSION}+l{LEDGER_VERSION}+{LIMITS_VERSION}"
