"""A job child's memory cap: one valid scenario (nine demand paths x 240 monthly decisions x 3
server types) took 7.2 GB in one child (issue 40); with several workers on a machine the kernel's
OOM killer would then choose among everything on the host.

The child caps its own address space (``RLIMIT_AS``) at ``JOB_MEMORY_MB`` (env
``BUYRENT_JOB_MEMORY_MB``, default 4096: the samples' plans peak well under 1 GB of resident
memory, the forkserver child starts at about 0.6 GB of address space). An allocation past the
cap raises ``MemoryError`` in numpy and Python, and the job fails with a sentence saying which
inputs make a plan large; a C library that aborts instead ends the child, and the job says the
same with the exit code.
"""
from __future__ import annotations

import resource

from service.i18n import N_
from service.plans.jobs.records import error_json

DEFAULT_MB = 4096
MIN_MB = 1024           # below this the engine's imports alone do not fit
MAX_MB = 1024 * 1024


def check_cap(megabytes) -> int:
    """The configured cap [MB], refused at start when it is not a whole number in range."""
    try:
        value = int(megabytes)
    except (TypeError, ValueError):
        value = None
    if value is None or not MIN_MB <= value <= MAX_MB:
        raise ValueError(f"JOB_MEMORY_MB: {megabytes!r} MB is outside {MIN_MB}..{MAX_MB} MB")
    return value


def cap_memory(megabytes: int) -> None:
    """Cap this process's address space (Linux ``RLIMIT_AS``) at ``megabytes``, never above a
    hard limit already set from outside (a container's or systemd's)."""
    limit = int(megabytes) * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def over_cap(megabytes: int) -> str:
    """The stored error of a job that reached its memory cap."""
    return error_json(N_("This plan needed more memory than a job may use (%(cap)s MB) and was "
                         "stopped. What makes a plan large: demand scenarios x decision points "
                         "x server types and offers. Reduce the demand scenarios, decide "
                         "quarterly instead of monthly (staging interval), or plan fewer server "
                         "types; an administrator can raise BUYRENT_JOB_MEMORY_MB."),
                      cause="memory", cap=f"{int(megabytes):,}", cap_mb=int(megabytes))
