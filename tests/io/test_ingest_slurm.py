"""Slurm sacct --parsable2 dumps: GPU-hours spread exactly over the hours jobs ran."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from service.ingest.slurm import gpu_count
from tests.support.ingest_fixtures import SAMPLES

HEADER = "JobID|Start|End|AllocTRES|Partition|Account"


def sacct(*lines: str) -> bytes:
    return ("\n".join((HEADER,) + lines) + "\n").encode()


@pytest.mark.parametrize("tres,gpus", [
    ("billing=16,cpu=16,gres/gpu=4,mem=64G,node=1", 4),
    ("cpu=8,gres/gpu:a100=2,mem=64G", 2),                 # typed only
    ("cpu=8,gres/gpu=3,gres/gpu:a100=3,mem=64G", 3),     # plain and typed: plain is the total
    ("cpu=8,gres/gpu:a100=1,gres/gpu:h100=2", 3),        # two types
    ("cpu=8,mem=1G", 0),
    ("", 0),
])
def test_gpu_count(tres, gpus):
    assert gpu_count(pd.Series([tres]))[0] == gpus


def test_job_spread_over_the_hours_it_ran():
    # 2 GPUs from 10:30 to 12:15: 1.0 + 2.0 + 0.5 GPU-hours
    result = read_usage(sacct("1|2026-03-01T10:30:00|2026-03-01T12:15:00|cpu=4,gres/gpu=2|gpu|ml"),
                        "sacct.txt")
    assert str(result.profile.starts[0]) == "2026-03-01T10"
    assert_allclose(result.profile.steady, [1.0, 2.0, 0.5])
    assert result.profile.teams == {"ml": 3.5}
    assert result.summary["partitions"] == {"gpu": 3.5}


def test_steps_cpu_jobs_and_unfinished_jobs_skipped():
    data = sacct("7|2026-03-01T00:00:00|2026-03-01T02:00:00|cpu=4,gres/gpu=1|gpu|a",
                 "7.batch|2026-03-01T00:00:00|2026-03-01T02:00:00|cpu=4,gres/gpu=1||a",
                 "7.0|2026-03-01T00:00:00|2026-03-01T02:00:00|cpu=4,gres/gpu=1||a",
                 "8|2026-03-01T00:00:00|2026-03-01T02:00:00|cpu=4|cpu|a",
                 "9|Unknown|Unknown||gpu|a",
                 "10|2026-03-01T01:00:00|Unknown|cpu=4,gres/gpu=8|gpu|a")
    result = read_usage(data, "sacct.txt")
    assert result.profile.gpu_hours == 2.0
    assert result.summary["jobs"] == 1
    assert result.summary["skipped_rows"] == 5
    assert any("1 GPU jobs had not started or not finished" in w for w in result.warnings)


def test_overlapping_jobs_add_up():
    data = sacct("1|2026-03-01T00:00:00|2026-03-01T03:00:00|gres/gpu=4|gpu|a",
                 "2|2026-03-01T01:30:00|2026-03-01T02:00:00|gres/gpu=8|gpu|b")
    result = read_usage(data, "sacct.txt")
    assert_allclose(result.profile.steady, [4, 8, 4])
    assert result.profile.teams == {"a": 12.0, "b": 4.0}


def test_end_before_start_named():
    with pytest.raises(IngestError, match=r"row 2, column 'End': End 2026-03-01T00:00:00 is "
                                          r"before Start"):
        read_usage(sacct("1|2026-03-01T05:00:00|2026-03-01T00:00:00|gres/gpu=1|gpu|a"), "s.txt")


def test_unreadable_start_named():
    with pytest.raises(IngestError, match=r"row 2, column 'Start': cannot read 'soon'"):
        read_usage(sacct("1|soon|2026-03-01T00:00:00|gres/gpu=1|gpu|a"), "s.txt")


def test_no_gpu_jobs():
    with pytest.raises(IngestError, match="no finished GPU jobs"):
        read_usage(sacct("1|2026-03-01T00:00:00|2026-03-01T01:00:00|cpu=1|cpu|a"), "s.txt")


def test_sample_total_equals_job_sum():
    text = (SAMPLES / "slurm_sacct_sample.txt").read_text()
    frame = pd.read_csv(SAMPLES / "slurm_sacct_sample.txt", sep="|", dtype=str,
                        keep_default_na=False)
    jobs = frame[~frame.JobID.str.contains(r"\.") & (frame.End != "Unknown")
                 & (frame.Start != "Unknown")]
    hours = (pd.to_datetime(jobs.End) - pd.to_datetime(jobs.Start)).dt.total_seconds() / 3600
    expected = float((gpu_count(jobs.AllocTRES.reset_index(drop=True)) * hours.to_numpy()).sum())
    result = read_usage(text.encode(), "slurm_sacct_sample.txt")
    assert_allclose(result.profile.gpu_hours, expected, rtol=1e-12)
    assert np.all(result.profile.steady >= 0)
