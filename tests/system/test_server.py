"""`buyrent serve --workers 2` runs gunicorn worker processes that share one database."""
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.support.pg_server import free_port

ROOT = Path(__file__).resolve().parents[2]


def cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_two_worker_processes_serve_the_same_database(tmp_path):
    port = free_port()
    env = {**os.environ, "BUYRENT_INSTANCE": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "service.cli.main", "serve", "--port", str(port),
                             "--workers", "2", "--threads", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline, page = time.monotonic() + 90, None
        while time.monotonic() < deadline and page is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=5) as r:
                    page = r.read().decode()
            except OSError:
                time.sleep(0.3)
        assert page is not None and 'name="csrf_token"' in page
        # gunicorn's master (this process) forks its two workers after it listens, beside
        # the plan worker `buyrent serve` starts: wait until all three are there
        kinds: list[str] = []
        while time.monotonic() < deadline:
            kinds = sorted("plan worker" if " worker --jobs" in cmdline(pid) else "web"
                           for pid in subprocess.run(["pgrep", "-P", str(proc.pid)],
                                                     capture_output=True,
                                                     text=True).stdout.split())
            if kinds == ["plan worker", "web", "web"]:
                break
            time.sleep(0.2)
        assert kinds == ["plan worker", "web", "web"], kinds
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        out = proc.communicate(timeout=30)[0].decode()
    assert re.search(r"buyrent on http://127\.0\.0\.1:\d+/", out)
