"""The package interface: read_usage / load_usage, Limits, IngestResult, and the CLI path."""
from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest

from service import ingest
from service.cli.main import main
from service.ingest import IngestError, IngestResult, Limits, load_usage, read_usage
from tests.support.engine_cases import csv_profile
from tests.support.ingest_fixtures import ROOT, SAMPLES

SAMPLE_FILES = ["usage_hourly.csv", "usage_daily.csv", "usage_monthly.csv", "usage_sample.xlsx",
                "focus_sample.csv", "aws_cur_sample.csv", "slurm_sacct_sample.txt"]


def test_public_names():
    assert set(ingest.__all__) >= {"IngestError", "IngestResult", "Limits", "load_usage",
                                   "read_usage"}
    assert issubclass(IngestError, ValueError)
    assert dataclasses.is_dataclass(IngestResult)
    assert Limits() == Limits(max_bytes=20_000_000, max_rows=500_000, max_columns=50)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Limits().max_rows = 1


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_sample_loads(name):
    result = load_usage(SAMPLES / name)
    assert result.profile.gpu_hours > 0
    assert result.summary["gpu_hours"] == pytest.approx(result.profile.gpu_hours)


def test_the_engine_tests_read_the_hourly_sample_as_ingest_does():
    # tests/engine reads samples/usage_hourly.csv without service.ingest (csv_profile)
    ingested, direct = load_usage(SAMPLES / "usage_hourly.csv").profile, \
        csv_profile(SAMPLES / "usage_hourly.csv")
    assert (direct.period, direct.has_workload, direct.busy) == \
        (ingested.period, ingested.has_workload, ingested.busy)
    for name in ("starts", "steady", "interruptible"):
        np.testing.assert_array_equal(getattr(direct, name), getattr(ingested, name))
    assert direct.teams == ingested.teams


def test_load_usage_checks_size_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.csv"
    path.write_bytes(b"timestamp,gpu_hours\n" + b"2027-01-01,1\n" * 10)
    monkeypatch.setattr(type(path), "read_bytes",
                        lambda self: pytest.fail("read a file over the limit"))
    with pytest.raises(IngestError, match=r"big.csv: the file is 150 bytes; the limit is 100"):
        load_usage(path, Limits(max_bytes=100))


@pytest.mark.parametrize("given", ["../../etc/usage.csv", "C:\\Users\\me\\usage.csv",
                                   "usage.csv"])
def test_read_usage_uses_only_the_base_name(given):
    with pytest.raises(IngestError, match=r"^usage.csv: the file is empty$"):
        read_usage(b"", given)


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_cli_plans_each_sample(name, capsys):
    assert main(["plan", str(SAMPLES / name)]) == 0
    assert f"{name} (" in capsys.readouterr().out


def test_cli_reports_ingest_errors(tmp_path):
    # a real process: the message printed is exactly what users see
    bad = tmp_path / "bad.csv"
    bad.write_text("timestamp,gpu_hours\n2027-01-01,-5\n")
    done = subprocess.run([sys.executable, "-m", "service.cli.main", "plan", str(bad)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == ("buyrent: bad.csv: row 2, column 'gpu_hours': negative value "
                                   "'-5'; expected a number >= 0")
