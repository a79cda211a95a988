"""Large usage uploads read by a job, not in their request (issue 40, item 7).

A usage file in text of more than ``UPLOAD_JOB_ROWS`` data rows (counted by its line breaks:
service.ingest.rows_before_reading) is stored as it came and read by an ``upload`` job
(service.plans.jobs.reading); the request answers at once with the page that follows the job.
The job stores the reader's summary and warnings (bounded) and the parsed profile; the preview
page, and attaching the file to a scenario, read them from there instead of reading the file
again in a request. A smaller file is read in its request as before (a tenth of a second).

The queue carries the job's id only (service.plans.jobs.wire); the job row holds the file's id
and its label, the file's bytes stay in ``usage_files``.
"""
from __future__ import annotations

import json
from typing import Optional

from service.ingest import IngestResult
from service.plans.jobs import records
from service.plans.jobs.reading import unpack_profile
from service.plans.jobs.versions import ENGINE_VERSION
from service.plans.stored import owner_key
from service.web.tables import PlanJob, UsageFile

KIND = "upload"


def key(usage: UsageFile) -> str:
    """One reading per stored file and reader version (a file is content-addressed per
    person: service.plans.revisions.store_usage)."""
    return f"usage{usage.id}:{ENGINE_VERSION}"


def request_reading(usage: UsageFile, rows: int) -> PlanJob:
    """The job reading ``usage`` (queued when new, or cancelled, or failed for a transient
    cause whose limit was raised since: service.plans.jobs.records.request)."""
    return records.request(KIND, key(usage), {"filename": usage.filename, "rows": rows},
                           owner_key(), ENGINE_VERSION, usage_file_id=usage.id)


def reading_job(usage: UsageFile) -> Optional[PlanJob]:
    """The upload job of ``usage``, or None: the file was small enough to be read in its
    request."""
    return records.job_of(KIND, key(usage))


def rows_of(job: PlanJob) -> int:
    return int(json.loads(job.spec).get("rows", 0))


def stored_reading(job: PlanJob) -> IngestResult:
    """What a done upload job read: the profile, the reader's warnings and summary."""
    document = json.loads(job.document)
    return IngestResult(profile=unpack_profile(job.result), warnings=document["warnings"],
                        summary=document["summary"])


def stored_profile(usage: UsageFile):
    """The profile a done upload job read from ``usage``, or None (no job, or not done)."""
    job = reading_job(usage)
    if job is None or job.state != "done":
        return None
    return unpack_profile(job.result)


def refusal_of(job: PlanJob) -> tuple[str, list[dict]]:
    """A failed upload job's reason, in English, and the reader's problems by row and column
    (none when the job failed for want of time or memory)."""
    error = json.loads(job.error or "{}")
    args = error.get("args", {})
    problems = json.loads(args["problems"]) if "problems" in args else []
    return args.get("reason", ""), problems
