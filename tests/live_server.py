"""Run the app under waitress for browser tests and benchmarks: ``python -m tests.live_server
INSTANCE``. Binds a free loopback port (port 0), prints ``PORT <n>`` once it listens, and
serves until it is terminated. The parent stops it with SIGTERM and waits for the process:
no thread of the test process ever closes a socket another thread is using.
"""
from __future__ import annotations

import signal
import sys


def main(instance: str) -> None:
    from waitress import create_server

    from service import create_app
    app = create_app({"INSTANCE_PATH": instance, "PASSWORD_HASH_METHOD": "pbkdf2:sha256:1000"})
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"PORT {server.effective_port}", flush=True)
    try:
        server.run()
    finally:
        server.close()


if __name__ == "__main__":
    main(sys.argv[1])
