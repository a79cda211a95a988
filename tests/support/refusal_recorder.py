"""Every refusal and warning the usage readers write while a set of tests runs (issue 24).

A pytest plugin object: it wraps the constructors of the readers' errors and results, so
whatever test builds a broken, hostile or wrong-period file, its messages are recorded: the
test that walks the Korean flow then reads each of them in Korean.
"""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import pytest

from models.plan_state import PlanError
from models.profile import ProfileError
from service.ingest import CommitmentError, ContractResult, IngestError, IngestResult
from tests.support.paths import ROOT


class Recorder:
    """Records (kind, English text) pairs; ``problems`` keeps each refusal's rows."""

    def __init__(self):
        self.refusals: list[tuple[str, list[dict]]] = []
        self.errors: list[str] = []
        self.results: list = []
        self._undo: list = []

    def _wrap(self, cls, record):
        original = cls.__init__

        @functools.wraps(original)
        def init(obj, *args, **kwargs):
            original(obj, *args, **kwargs)
            record(obj)
        cls.__init__ = init
        self._undo.append((cls, original))

    def pytest_sessionstart(self, session):
        self._wrap(IngestError, lambda e: self.refusals.append((str(e), list(e.problems))))
        for cls in (ProfileError, PlanError, CommitmentError):
            self._wrap(cls, lambda e: self.errors.append(str(e)))
        for cls in (IngestResult, ContractResult):
            self._wrap(cls, self.results.append)

    def pytest_sessionfinish(self, session, exitstatus):
        for cls, original in reversed(self._undo):
            cls.__init__ = original
        self._undo.clear()

    def warnings(self) -> set[str]:
        return {w for r in self.results for w in r.warnings}

    def skip_reasons(self) -> set[str]:
        return {s["reason"] for r in self.results if isinstance(r, ContractResult)
                for s in r.skipped}


# The tests whose files are broken, hostile, mislabelled or of the wrong period.
SUITE = ("tests/io/test_ingest_*.py", "tests/web/test_hostile_upload.py",
         "tests/web/test_ingest_upload.py", "tests/system/test_hostile_records.py",
         "tests/web/test_bad_inputs.py", "tests/web/test_start_month.py")


def record(out: str) -> int:
    """Run SUITE with a recorder and write what it heard to ``out`` (JSON)."""
    recorder = Recorder()
    files = sorted(str(p.relative_to(ROOT)) for pattern in SUITE for p in ROOT.glob(pattern))
    status = pytest.main(["-q", "-n", "0", "-p", "no:cacheprovider", "--no-header",
                          "-o", "addopts=", *files], plugins=[recorder])
    Path(out).write_text(json.dumps({
        "status": int(status),
        "refusals": [{"message": m, "problems": p} for m, p in recorder.refusals],
        "errors": sorted(set(recorder.errors)), "warnings": sorted(recorder.warnings()),
        "skip_reasons": sorted(recorder.skip_reasons())}, ensure_ascii=False))
    return int(status)


if __name__ == "__main__":
    sys.exit(record(sys.argv[1]))
