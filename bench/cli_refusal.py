"""How fast `buyrent plan` refuses a bad file: the answer a person waits for (issue 23).

    python bench/cli_refusal.py [--runs 9]

Runs ``python -m service.cli.main plan bad.csv`` (a header and one row whose GPU-hours are not
a number) as a fresh process, interleaved with a bare ``python -c pass``, and prints the best
and median wall time of each (and the refusal's best CPU time), then the same command under ``-X importtime``: its imports in
all and the packages that cost most. Target: the refusal in under 1 s. Each run must answer
exit code 2 and one line on stderr naming the row and column.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAD = "timestamp,gpu_hours\n2026-01,abc\n"


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(args: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall time and CPU time [s] of one run; the CPU time moves less with the machine's load."""
    start, cpu = time.perf_counter(), cpu_of_children()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=120)
    return time.perf_counter() - start, cpu_of_children() - cpu, done


def import_costs(args: list[str]) -> tuple[float, Counter]:
    """Total import time [s] and self time by top-level package [s] (``-X importtime``)."""
    done = subprocess.run([args[0], "-X", "importtime", *args[1:]], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    by_package: Counter = Counter()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _cumulative, name = line.removeprefix("import time:").split("|")
            by_package[name.strip().split(".")[0]] += int(self_us) / 1e6
    return sum(by_package.values()), by_package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "bad.csv"
        bad.write_text(BAD)
        command = [sys.executable, "-m", "service.cli.main", "plan", str(bad)]
        refusals, cpus, bare = [], [], []
        for _ in range(runs):
            seconds, cpu, done = timed(command)
            assert done.returncode == 2 and done.stdout == "", done.stderr
            assert "row 2, column 'gpu_hours'" in done.stderr and \
                done.stderr.count("\n") == 1, done.stderr
            refusals.append(seconds)
            cpus.append(cpu)
            bare.append(timed([sys.executable, "-c", "pass"])[0])
        total, by_package = import_costs(command)
    load = os.getloadavg()[0]
    print(f"buyrent plan on a refused two-line file: best {min(refusals):.2f} s, median "
          f"{statistics.median(refusals):.2f} s over {runs} runs (target < 1 s), CPU best "
          f"{min(cpus):.2f} s; a bare python: best {min(bare):.3f} s; load average {load:.1f}")
    top = ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in
                    by_package.most_common(8))
    print(f"imports {total:.2f} s in all: {top}")
    web = [name for name in ("flask", "sqlalchemy", "alembic", "plotly") if by_package[name]]
    print(f"web stack loaded: {', '.join(web) if web else 'none'}")


if __name__ == "__main__":
    main()
