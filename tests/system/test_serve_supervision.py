"""``buyrent serve`` starts its plan worker again when it dies (issue 40): before, pages
answered 200 and plans stayed queued forever. A real ``buyrent serve`` on loopback, its worker
killed with -9: a new worker is running within seconds and /healthz says ok."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from service.paths import ROOT
from tests.support.jobs import descendants, stop_process, wait_until
from tests.support.pg_server import free_port


def workers_of(pid: int) -> list[int]:
    out = []
    for child in descendants(pid):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"service.cli.main" in cmd and b"worker" in cmd:
            out.append(child)
    return out


def health(base: str) -> dict:
    with urllib.request.urlopen(base + "/healthz", timeout=10) as answer:
        return json.loads(answer.read())


def test_a_killed_worker_is_started_again(tmp_path):
    port = free_port()
    env = {**os.environ, "BUYRENT_INSTANCE": str(tmp_path / "instance"),
           "SECRET_KEY": "supervision", "PYTHONPATH": str(ROOT)}
    for name in ("DATABASE_URL", "BUYRENT_QUEUE_URL"):
        env.pop(name, None)
    log = tempfile.TemporaryFile()
    serve = subprocess.Popen([sys.executable, "-m", "service.cli.main", "serve", "--port",
                              str(port), "--jobs", "1"], cwd=ROOT, env=env, stdout=log,
                             stderr=log)
    base = f"http://127.0.0.1:{port}"

    def said() -> str:
        log.seek(0)
        return log.read().decode(errors="replace")
    try:
        wait_until(lambda: serve.poll() is not None or len(workers_of(serve.pid)) == 1, 120,
                   "serve and its worker starting", step=0.2)
        assert serve.poll() is None, said()
        wait_until(lambda: b"buyrent on" in said().encode(), 60, "serve listening", step=0.2)

        def answers() -> bool:
            try:
                return health(base)["status"] == "ok"
            except OSError:
                return False
        wait_until(answers, 60, "/healthz answering", step=0.2)
        first = workers_of(serve.pid)[0]
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: [p for p in workers_of(serve.pid) if p != first], 60,
                   "a new worker", step=0.2)
        assert serve.poll() is None
        assert f"plan worker (pid {first}) exited with code -9; starting it again" in said()
        assert health(base)["status"] == "ok"
    finally:
        stop_process(serve)
        log.close()
    assert workers_of(serve.pid) == []
