"""A throwaway redis-server on loopback for the multi-worker tests (Debian's redis-server
package, installed by scripts/system-packages). Nothing persisted, nothing mocked; a missing
redis-server fails loudly."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator

import redis

from tests.support.jobs import stop_process
from tests.support.pg_server import free_port

START_TIMEOUT = 20.0


@contextmanager
def redis_server(password: str | None = None) -> Iterator[str]:
    """Yield ``redis://127.0.0.1:PORT/0`` of a fresh server; stop it afterwards. With a
    ``password`` the server asks for it (``requirepass``, as docs/README-deploy.md sets it up)
    and the URL carries it: ``redis://:PASSWORD@127.0.0.1:PORT/0``."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed: scripts/system-packages installs "
                           "Debian's redis-server package")
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="buyrent-redis-")
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                             "--appendonly", "no", "--dir", workdir]
                            + (["--requirepass", password] if password else []),
                            stdout=log, stderr=log)
    url = f"redis://{f':{password}@' if password else ''}127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError("redis-server did not start: "
                                       + log.read().decode(errors="replace")[-2000:]) from None
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        stop_process(proc)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)
