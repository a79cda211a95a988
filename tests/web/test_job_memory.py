"""A job child's memory cap (issue 40, MEDIUM): one valid scenario took 7.2 GB in one child.
The child caps its address space at JOB_MEMORY_MB; an allocation past it fails the job with a
sentence naming the inputs that make a plan large, and the worker goes on."""
from __future__ import annotations

import json
import multiprocessing

import numpy as np
import pytest

from service.app import create_app
from service.plans.jobs import compute, runner
from service.plans.jobs.memory import check_cap


def huge(spec, inputs, send):
    """What the red team's scenario did, in one line: ask for 16 GB."""
    np.ones(2 ** 31)
    send(("done", {}))


def test_a_child_past_its_cap_fails_its_job_with_what_to_reduce(monkeypatch):
    monkeypatch.setitem(compute.RUNS, "plan", huge)
    ctx = multiprocessing.get_context("fork")       # the child inherits the patched RUNS
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=runner.child_main, args=("plan", {}, {}, send, 1536))
    child.start()
    send.close()
    assert receive.poll(120), "the child sent nothing"
    kind, error = receive.recv()
    child.join(30)
    assert kind == "error" and child.exitcode == 0
    stored = json.loads(error)
    assert stored["args"] == {"cap": "1,536", "cap_mb": "1536"} and stored["cause"] == "memory"
    assert "needed more memory than a job may use" in stored["text"]
    assert "demand scenarios" in stored["text"] and "BUYRENT_JOB_MEMORY_MB" in stored["text"]


def test_the_same_child_under_the_cap_computes(monkeypatch):
    monkeypatch.setitem(compute.RUNS, "plan", lambda spec, inputs, send:
                        send(("done", {"sum": float(np.ones(10 ** 6).sum())})))
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=runner.child_main, args=("plan", {}, {}, send, 4096))
    child.start()
    send.close()
    assert receive.poll(120)
    assert receive.recv() == ("done", {"sum": 1e6})
    child.join(30)


@pytest.mark.parametrize("value", ["512", "abc", "99999999"])
def test_a_cap_outside_its_range_stops_the_start(tmp_path, value):
    with pytest.raises(ValueError, match="JOB_MEMORY_MB"):
        create_app({"INSTANCE_PATH": str(tmp_path), "JOB_MEMORY_MB": value})


def test_the_default_cap_and_the_environment(tmp_path, monkeypatch):
    assert create_app({"INSTANCE_PATH": str(tmp_path)}).config["JOB_MEMORY_MB"] == 4096
    monkeypatch.setenv("BUYRENT_JOB_MEMORY_MB", "2048")
    assert create_app({"INSTANCE_PATH": str(tmp_path / "b")}).config["JOB_MEMORY_MB"] == 2048
    assert check_cap("8192") == 8192
