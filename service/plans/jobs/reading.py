"""What an upload job computes: a large usage file read off the request (issue 40, item 7).

A usage upload of more than ``UPLOAD_JOB_ROWS`` rows (service.scenarios.upload_jobs) is stored
and read here, in a job's child: a 60,000-row file had taken 106.6 s in a request thread. The
child sends back a bounded document (the reader's summary and warnings, a few hundred bytes to
a few kB, whatever the file's length) as the job's ``document`` and the parsed profile as its
``result``: the preview page and attaching the file read the profile from there instead of
parsing the file again in a request. A file the reader refuses is the job's error, with the
problems by row and column.
"""
from __future__ import annotations

import json
import math
import zlib
from typing import Any, Callable

import numpy as np

from models.profile import UsageProfile, period_starts
from service.clip import MESSAGE, clip_message
from service.ingest import IngestResult, read_usage
from service.ingest.core import IngestError
from service.plans.jobs.records import error_json

Send = Callable[[tuple], None]
REFUSED_FILE = "%(reason)s"    # the reader's own words, translated by the page (ingest_refusals)


def pack_profile(profile: UsageProfile) -> bytes:
    """A profile as zlib-compressed strict JSON; its periods are contiguous (UsageProfile
    checks it), so the first start and the period give every start. Floats are written with
    ``repr`` and read back exactly; a period without busy time (NaN) is written null."""
    busy = None if profile.busy is None else \
        [None if math.isnan(v) else float(v) for v in profile.busy]
    body = {"period": profile.period, "first": str(profile.starts[0]),
            "steady": [float(v) for v in profile.steady],
            "interruptible": [float(v) for v in profile.interruptible],
            "has_workload": bool(profile.has_workload),
            "teams": {str(k): float(v) for k, v in profile.teams.items()}, "busy": busy}
    return zlib.compress(json.dumps(body, allow_nan=False).encode(), 6)


def unpack_profile(data: bytes) -> UsageProfile:
    body = json.loads(zlib.decompress(data))
    steady = np.array(body["steady"], dtype=float)
    busy = None if body["busy"] is None else \
        np.array([math.nan if v is None else v for v in body["busy"]], dtype=float)
    return UsageProfile(period=body["period"],
                        starts=period_starts(np.datetime64(body["first"], "h"), len(steady),
                                             body["period"]),
                        steady=steady, interruptible=np.array(body["interruptible"],
                                                              dtype=float),
                        has_workload=body["has_workload"], teams=body["teams"], busy=busy)


def reading_document(ingested: IngestResult) -> str:
    """What the preview page shows besides the profile: bounded whatever the file's length
    (the reader keeps at most 20 problems and a summary of counts)."""
    return json.dumps({"summary": ingested.summary, "warnings": list(ingested.warnings)},
                      allow_nan=False, default=str)


def refused(exc: IngestError) -> str:
    """The reader's refusal as the job's error: its message and its problems by row and
    column (the page lists them as the upload's refusal does)."""
    return error_json(REFUSED_FILE, reason=clip_message(str(exc), 4 * MESSAGE),
                      problems=json.dumps(list(exc.problems)))


def run_upload(spec: dict[str, Any], inputs: dict[str, Any], send: Send) -> None:
    try:
        ingested = read_usage(inputs["usage"], spec["filename"])
    except IngestError as exc:
        send(("error", refused(exc)))
        return
    send(("done", {"document": reading_document(ingested),
                   "result": pack_profile(ingested.profile)}))
