"""The job queue carries data, never code (issue 40, HIGH): an outside red team ran code as
root in every worker with one bare Redis write of a pickled item, because Huey's default
serializer is pickle. These tests write such items into a real Redis (with a password, as
deployed) and a real SQLite queue, and show that nothing runs: the worker refuses the item,
logs it, and goes on taking real jobs."""
from __future__ import annotations

import datetime as dt
import json
import os
import pickle
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from huey.registry import Message
from service.app import create_app
from service.plans.jobs import queue
from service.plans.jobs.wire import JsonSerializer, WireError
from service.paths import ROOT
from tests.support.jobs import start_worker, stop_process, wait_until
from tests.support.redis_server import redis_server

PASSWORD = "queue-secret-of-the-test"


class Planted:
    """What an attacker writes: unpickling it creates a file (it could run anything)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def pickled_message(marker: Path) -> bytes:
    """A Huey message as Huey's default serializer writes it, with the planted object."""
    return pickle.dumps(Message("x", queue.TASK, None, 0, 0, 0, (Planted(marker),), {}))


def test_a_message_goes_as_json_and_comes_back_with_its_job_id_and_eta():
    wire = JsonSerializer(queue.TASK)
    eta = dt.datetime(2026, 12, 7, 1, 2, 3)
    sent = Message("abc", queue.TASK, eta, 0, 0, 4, (42,), {})
    data = wire.serialize(sent)
    assert json.loads(data)["args"] == [42]
    back = wire.deserialize(data)
    assert back.args == (42,) and back.eta == eta and back.priority == 4
    assert back.name == queue.TASK and back.kwargs == {}


@pytest.mark.parametrize("body", [
    {"name": "os.system", "args": [1]},
    {"args": ["rm -rf /"]},
    {"args": [1, 2]},
    {"args": [True]},
    {"args": [-3]},
    {"kwargs": {"x": 1}},
    {"eta": {"datetime": "yesterday"}},
    {"priority": "high"},
])
def test_anything_but_one_job_id_of_our_task_is_refused(body):
    wire = JsonSerializer(queue.TASK)
    good = json.loads(wire.serialize(Message("abc", queue.TASK, None, 0, 0, 0, (7,), {})))
    with pytest.raises(WireError):
        wire.deserialize(json.dumps({**good, **body}).encode())


def test_the_apps_queue_delivers_a_job_id_to_its_task(tmp_path):
    """Through the app's own SQLite queue, as a web request enqueues and a worker dequeues."""
    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "wire"})
    with app.app_context():
        queue.enqueue(1234, priority=2)
    task = queue.app_huey(app).dequeue()
    assert task.args == (1234,) and task.priority == 2
    assert queue.app_huey(app).dequeue() is None


def test_a_pickle_is_refused_before_it_is_read(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(WireError, match="pickle"):
        JsonSerializer(queue.TASK).deserialize(pickled_message(marker))
    assert not marker.exists()


def test_the_sqlite_queue_refuses_a_planted_pickle(tmp_path):
    marker = tmp_path / "ran"
    huey = queue.make_huey(None, tmp_path)
    huey.storage.enqueue(pickled_message(marker), 0)
    with pytest.raises(WireError):
        huey.dequeue()
    assert not marker.exists()


def test_a_worker_on_redis_runs_nothing_from_a_planted_pickle_and_goes_on(tmp_path):
    """The red team's attack, as it was made: one ZADD into the worker's Redis queue. The
    worker reads it, refuses it, logs why, and stays up; no file appears."""
    marker = tmp_path / "ran"
    with redis_server(password=PASSWORD) as url:
        client = redis.Redis.from_url(url)
        worker = start_worker(tmp_path / "machine", "worker", BUYRENT_QUEUE_URL=url)
        try:
            key = f"huey.redis.{queue.NAME}"
            client.zadd(key, {pickled_message(marker): 0})
            wait_until(lambda: client.zcard(key) == 0 or worker.poll() is not None, 120,
                       "the worker reading its queue", step=0.2)
            time.sleep(1.0)
            log = (tmp_path / "machine" / "worker.log").read_text()
            assert worker.poll() is None, log
            assert not marker.exists()
            assert "not a JSON message" in log
        finally:
            stop_process(worker)
            client.close()


def test_the_deployed_redis_refuses_a_client_without_its_password():
    with redis_server(password=PASSWORD) as url:
        bare = redis.Redis.from_url(url.replace(f":{PASSWORD}@", ""))
        with pytest.raises(redis.AuthenticationError):
            bare.zadd(f"huey.redis.{queue.NAME}", {b"x": 0})
        bare.close()
        assert redis.Redis.from_url(url).ping()


@pytest.mark.parametrize("url,refused", [
    ("redis://redis.queue.invalid:6379/0", True),
    ("redis://10.1.2.3:6379/0", True),
    ("rediss://user@redis.queue.invalid:6380/0", True),
    ("redis://:s3cret@redis.queue.invalid:6379/0", False),
    ("rediss://buyrent:s3cret@redis.queue.invalid:6380/0", False),
    ("redis://127.0.0.1:6379/0", False),
    ("redis://localhost:6379/0", False),
    ("redis://[::1]:6379/0", False),
    ("unix:///run/redis/redis.sock", False),
])
def test_a_redis_beyond_loopback_must_ask_for_a_password(url, refused):
    if refused:
        with pytest.raises(queue.QueueRefused, match="not on loopback"):
            queue.check_url(url)
    else:
        queue.check_url(url)


def test_the_password_never_shows_where_the_url_is_printed():
    assert queue.shown_url("redis://:s3cret@host:6379/0") == "redis://:***@host:6379/0"
    assert queue.shown_url("rediss://u:s3cret@host/1") == "rediss://u:***@host/1"
    assert queue.shown_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"


def test_the_worker_refuses_to_start_against_an_open_redis_beyond_loopback(tmp_path):
    """One line, exit 2, no traceback, and no connection tried (the refusal comes first)."""
    env = {**os.environ, "BUYRENT_INSTANCE": str(tmp_path), "SECRET_KEY": "wire",
           "PYTHONPATH": str(ROOT), "BUYRENT_QUEUE_URL": "redis://redis.queue.invalid:6379/0"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "worker"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("buyrent: BUYRENT_QUEUE_URL: the Redis at "
                                  "redis.queue.invalid is not on loopback")
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
