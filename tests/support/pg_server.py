"""A throwaway PostgreSQL server on loopback for the tests (Debian's postgresql packages).

``start_postgres()`` runs initdb and pg_ctl as a non-root user (the ``postgres`` system user
when the tests run as root), listening on 127.0.0.1 only, and returns a SQLAlchemy URL. With
BUYRENT_TEST_DATABASE_URL set, that server is used instead. A missing PostgreSQL fails loudly.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path


def pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed: scripts/system-packages installs "
                           "Debian's postgresql package (initdb and pg_ctl are needed)")
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_user(cmd: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


@contextmanager
def postgres_server():
    """Yield a database URL of a fresh server; stop and delete it afterwards."""
    given = os.environ.get("BUYRENT_TEST_DATABASE_URL")
    if given:
        yield given
        return
    bindir = pg_bin()
    user = "postgres" if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="buyrent-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if user:
        shutil.chown(root, user)
        shutil.chown(sock, user)
    port = free_port()
    run = dict(check=True, capture_output=True, text=True, cwd=root, timeout=120)
    subprocess.run(as_user([str(bindir / "initdb"), "-D", str(data), "-U", "buyrent",
                            "--auth=trust", "-E", "UTF8", "--no-sync"], user), **run)
    options = (f"-c listen_addresses=127.0.0.1 -c port={port} -c fsync=off "
               f"-c unix_socket_directories={sock} -c max_connections=100")
    subprocess.run(as_user([str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w",
                            "-l", str(root / "log"), "start"], user), **run)
    try:
        subprocess.run(as_user([str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port),
                                "-U", "buyrent", "buyrent"], user), **run)
        yield f"postgresql+psycopg://buyrent@127.0.0.1:{port}/buyrent"
    finally:
        subprocess.run(as_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                "stop"], user), capture_output=True, cwd=root, timeout=60)
        shutil.rmtree(root, ignore_errors=True)
