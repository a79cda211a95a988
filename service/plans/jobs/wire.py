"""What the job queue carries: plain JSON data, never code.

Huey's default serializer is ``pickle``. Anyone who can write one item into the queue's storage
(a Redis reachable on the network, the SQLite file) could make every worker run code of their
choosing: an outside red team did it with one ``ZADD`` (issue 40). A queue message here is a
JSON object holding Huey's message fields; its task must be one this service registers (the
plan job; the alert webhook's post, service.plans.alert_posts) and its arguments one id (a positive
integer) and nothing else. Anything else is refused
before any of it is interpreted: Huey logs "Unable to deserialize task" and goes on, and the
job, whose row in the database is the truth, is queued again by the reaper if it was real.

The message is not signed: it names a job id and nothing more, the worker reads the job's
inputs from the database and claims the job there, so a forged id can only run a job that is
already queued (a job id delivered twice is harmless: service.plans.jobs.records.claim).
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from huey.registry import Message
from huey.serializer import Serializer

WIRE_VERSION = 1
MAX_BYTES = 4096        # a message is ~300 bytes; anything larger is not ours
# Huey's fields we send, and the JSON types each may hold (None: absent)
FIELDS = ("id", "name", "eta", "retries", "retry_delay", "priority", "args", "kwargs",
          "expires", "expires_resolved", "timeout", "retry_backoff")


class WireError(ValueError):
    """A queue item that is not a message of this service's: refused, never run."""


def _when(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    return value


def _read_when(value: Any, field: str) -> Any:
    if isinstance(value, dict):
        if set(value) != {"datetime"} or not isinstance(value["datetime"], str):
            raise WireError(f"{field}: not a date and time")
        try:
            return dt.datetime.fromisoformat(value["datetime"])
        except ValueError as exc:
            raise WireError(f"{field}: not a date and time") from exc
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise WireError(f"{field}: not a number")
    return value


class JsonSerializer(Serializer):
    """Huey messages as JSON objects, checked against one task's signature on the way in.

    Parameters
    ----------
    task : str, optional
        The plan-job task's name, as Huey names the registered task
        (service.plans.jobs.queue.init_app sets it); until then every message is refused.
    others : iterable of str, optional
        Names of the other tasks registered on the queue, each also carrying one id and
        nothing else (``others``, a set, grows as they register: the alert webhook's post of
        a breach id, service.plans.alert_posts).
    """

    def __init__(self, task: str | None = None, others=()):
        super().__init__()
        self.task = task
        self.others = set(others)

    def _serialize(self, data: Any) -> bytes:
        if not isinstance(data, Message):
            raise WireError("the queue carries plan-job messages only")
        if data.on_complete or data.on_error or data.chord_config:
            raise WireError("pipelines and chords are not sent on this queue")
        body = {"v": WIRE_VERSION}
        for name in FIELDS:
            value = getattr(data, name)
            if name == "args":
                value = list(value or ())
            elif name == "kwargs":
                value = dict(value or {})
            body[name] = _when(value)
        return json.dumps(body, separators=(",", ":"), allow_nan=False).encode()

    def _deserialize(self, data: bytes) -> Message:
        if not isinstance(data, (bytes, bytearray)) or len(data) > MAX_BYTES:
            raise WireError("not a message of this queue")
        try:
            body = json.loads(bytes(data).decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise WireError("not a JSON message (a pickle or other bytes): refused") from exc
        if not isinstance(body, dict) or body.get("v") != WIRE_VERSION \
                or set(body) != {"v", *FIELDS}:
            raise WireError("not a message of this queue's version")
        if self.task is None or body["name"] not in {self.task, *self.others}:
            raise WireError(f"unknown task {str(body['name'])[:80]!r}")
        args, kwargs = body["args"], body["kwargs"]
        if not (isinstance(args, list) and len(args) == 1 and type(args[0]) is int
                and args[0] > 0) or kwargs != {}:
            raise WireError("a message carries one job (or breach) id and nothing else")
        if not isinstance(body["id"], str) or len(body["id"]) > 64:
            raise WireError("id: not a task id")
        for name in ("retries", "retry_delay", "priority", "timeout", "retry_backoff"):
            value = body[name]
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, float))):
                raise WireError(f"{name}: not a number")
        return Message(
            body["id"], body["name"], _read_when(body["eta"], "eta"), body["retries"],
            body["retry_delay"], body["priority"], tuple(args), {},
            None, None, _read_when(body["expires"], "expires"),
            _read_when(body["expires_resolved"], "expires_resolved"), body["timeout"], None,
            body["retry_backoff"])
