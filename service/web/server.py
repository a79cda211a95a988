"""The production WSGI servers behind ``buyrent serve``.

One process (waitress, threads) by default on a one-core machine; with ``--workers N > 1``,
gunicorn forks N worker processes with threads each. Plan computations and password hashing
are CPU-bound Python: in one process they hold the GIL and every page view waits behind them,
so on a multi-core machine several processes keep page views fast. Everything shared between
workers (login limits, revoked sessions, idempotency keys, plans) lives in the database.
"""
from __future__ import annotations

from flask import Flask


def serve_waitress(app: Flask, host: str, port: int, threads: int) -> None:
    from waitress import serve  # one server is loaded: the one the command asks for
    serve(app, host=host, port=port, threads=threads, ident="buyrent")


def serve_gunicorn(app: Flask, host: str, port: int, workers: int, threads: int) -> None:
    from gunicorn.app.base import BaseApplication  # loaded only with --workers > 1

    def post_fork(_server, _worker):
        # connections opened by the master (migrations, demo seed) must not be shared
        app.extensions["buyrent_engine"].dispose(close=False)

    class Server(BaseApplication):
        def load_config(self):
            for key, value in {"bind": f"{host}:{port}", "workers": workers,
                               "threads": threads, "worker_class": "gthread",
                               "post_fork": post_fork, "timeout": 120,
                               "graceful_timeout": 10, "accesslog": None,
                               "proc_name": "buyrent"}.items():
                self.cfg.set(key, value)

        def load(self):
            return app

    Server().run()
