"""The app behind waitress in a child process, for tests that need a real HTTP server.

Stopping a waitress server that runs in a thread of the test process means closing its socket
from another thread while its loop may be polling it: the loop then raised
``OSError: [Errno 9] Bad file descriptor`` in teardown (and ``filterwarnings = error`` made a
flaky error of it). A child process has nothing to race: the test terminates it, waits for it,
and its sockets close with it. The child binds port 0 (the kernel picks a free port, so two
test workers never collide) and prints the port it got on its first stdout line.

As a program: ``python -m tests.support.live_server '<JSON config for create_app>'``.
"""
from __future__ import annotations

import json
import resource
import select
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from service.paths import ROOT

START_TIMEOUT = 60     # seconds for the child to import the app, migrate and listen
STOP_TIMEOUT = 10      # seconds after SIGTERM before SIGKILL
# Address space of the child. A plan takes about 0.5 GB; a request that makes the engine ask
# for 20 GB (Schemathesis found one) then fails with MemoryError, a 500 the test reports with
# its request, instead of the kernel's OOM killer ending the test run or other processes.
MEMORY_LIMIT = 4 << 30


@contextmanager
def live_server(config: dict, threads: int = 4) -> Iterator[str]:
    """Yield the base URL (``http://127.0.0.1:PORT``) of the app under waitress in a child
    process made with ``create_app(config)``; terminate it and wait for it afterwards."""
    log = tempfile.TemporaryFile()   # a file, not a pipe: a chatty child never blocks on it
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.live_server", json.dumps(config),
                             str(threads)], cwd=ROOT, stdout=subprocess.PIPE, stderr=log)
    try:
        port = _read_port(proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        log.close()


def _read_port(proc: subprocess.Popen, log) -> int:
    deadline = time.monotonic() + START_TIMEOUT
    line = b""
    while proc.poll() is None and (left := deadline - time.monotonic()) > 0:
        if select.select([proc.stdout], [], [], left)[0]:
            line = proc.stdout.readline()   # the child prints one line, then serves
            if line.startswith(b"PORT "):
                return int(line.split()[1])
    log.seek(0)
    raise RuntimeError(f"the test server did not start (exit {proc.poll()}, said {line!r}):\n"
                       + log.read().decode(errors="replace")[-4000:])


def main(argv: list[str]) -> None:
    from waitress import create_server

    from service.app import create_app
    from service.plans.jobs.worker import start_worker_threads
    config = json.loads(argv[0])
    threads = int(argv[1]) if len(argv) > 1 else 4
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    Path(config["INSTANCE_PATH"]).mkdir(parents=True, exist_ok=True)
    # a real queue and worker (SQLite storage in the instance folder), not the test client's
    # immediate mode: served pages see plans arrive as a user does
    if config.get("QUEUE_URL") == "immediate":
        config["QUEUE_URL"] = None
    app = create_app(config)
    start_worker_threads(app, 2)
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    print(f"PORT {server.effective_port}", flush=True)
    server.run()   # until SIGTERM ends the process


if __name__ == "__main__":
    main(sys.argv[1:])
