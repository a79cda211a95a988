"""service/allocator.py: the glibc settings every buyrent process applies at start keep numpy's
temporary arrays in the heap instead of faulting fresh pages in for each one."""
from __future__ import annotations

import platform
import subprocess
import sys

import pytest

import service.cli.main as cli
from tests.support.paths import ROOT

# 400 arrays of 87 x 500 doubles (348 KB, 85 pages: one Monte Carlo cost line of 500 draws)
# made and freed after a warm-up; prints the page faults they cost
PROBE = r"""
import resource, sys
import numpy as np
if sys.argv[1] == "tuned":
    from service.allocator import tune_allocator
    assert tune_allocator()
x = np.ones((87, 500))
def work():
    for _ in range(200):
        a = x * 2.0
        b = a + x
        del a, b
work()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
work()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def page_faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True,
                         text=True, check=True, timeout=120)
    return int(out.stdout.strip())


def test_the_tuned_allocator_reuses_heap_pages():
    # the machines we run on use glibc; elsewhere tune_allocator changes nothing, and this
    # test says so loudly instead of passing for nothing
    assert platform.libc_ver()[0] == "glibc"
    default, tuned = page_faults("default"), page_faults("tuned")
    # glibc left alone gives the top of its heap back and faults it in again: thousands of
    # faults (about 30,000 here); tuned, the 400 arrays reuse the same pages
    assert default > 5_000
    assert tuned < 200


def test_the_command_line_tunes_the_allocator_before_anything_else(monkeypatch):
    calls = []
    monkeypatch.setattr(cli, "tune_allocator", lambda: calls.append("tuned") or True)
    with pytest.raises(SystemExit):
        cli.main(["--help"])      # argparse exits after printing the help
    assert calls == ["tuned"]
