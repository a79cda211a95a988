"""Nothing a solver's C code prints reaches the CLI's standard output.

HiGHS writes its banner and, in some versions, repair messages to file descriptor 1 from C,
past Python's sys.stdout: `buyrent plan --json` must print JSON and nothing else (issue 28).
While the plan is computed, fd 1 points at /dev/null; Python's own prints are flushed first.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def quiet_stdout() -> Iterator[None]:
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)
