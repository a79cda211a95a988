"""GPU busy time: DCGM Prometheus text, DCGM CSV and nvidia-smi CSV; held-sample arithmetic;
the join with a usage file (per hour, per team, idle GPU-hours, starved stretches); bundles."""
from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from numpy.testing import assert_allclose

from tests.support.plans import compute_plan
from models.scenario import Scenario
from models.scenario_settings import ProfileOptions
from service.ingest import IngestError, load_usage, make_bundle, read_usage
from service.ingest.busy import read_busy
from tests.support.ingest_fixtures import SAMPLES
from tests.support.engine_cases import context_of

USAGE = (SAMPLES / "usage_busy_hourly.csv").read_bytes()


def bundle(busy: str | bytes, usage: bytes = USAGE, name: str = "busy.csv"):
    busy = busy.encode() if isinstance(busy, str) else busy
    return read_usage(*reversed(make_bundle("usage.csv", usage, name, busy)))


def test_held_samples_hand_checked():
    # gpu 0: 1.0 at 00:00 and 0.5 at 00:30 (each held 30 min), 0.0 at 01:00 (last: held one
    # typical interval, 30 min). gpu 1: 0.4 at 00:00, next sample at 02:00: a 2 h gap is more
    # than 3 typical intervals, so it is held 90 min (60 in hour 0, 30 in hour 1); 0.8 at 02:00
    # held 30 min.
    text = ("timestamp,gpu,DCGM_FI_PROF_GR_ENGINE_ACTIVE\n"
            "2026-03-02T00:00:00Z,0,1.0\n2026-03-02T00:30:00Z,0,0.5\n"
            "2026-03-02T01:00:00Z,0,0.0\n2026-03-02T00:00:00Z,1,0.4\n"
            "2026-03-02T02:00:00Z,1,0.8\n")
    busy = read_busy(text.encode(), "b.csv")
    assert [str(h) for h in busy.hours] == ["2026-03-02T00", "2026-03-02T01", "2026-03-02T02"]
    assert_allclose(busy.busy, [0.5 + 0.25 + 0.4, 0.0 + 0.4 * 0.5, 0.8 * 0.5])
    assert_allclose(busy.monitored, [1 + 1, 0.5 + 0.5, 0.5])
    assert busy.summary["sample_interval_seconds"] == 1800
    assert busy.summary["gpus"] == 2


def test_three_formats_of_the_same_hours_agree():
    prom = read_busy((SAMPLES / "dcgm_exporter_sample.prom").read_bytes(), "d.prom")
    smi = read_busy((SAMPLES / "nvidia_smi_sample.csv").read_bytes(), "n.csv")
    dcgm = read_busy((SAMPLES / "dcgm_busy_sample.csv").read_bytes(), "d.csv")
    assert prom.summary["format"] == "dcgm_prometheus" and prom.summary["gpus"] == 8
    assert smi.summary["format"] == "nvidia_smi" and smi.summary["metric"] == "utilization.gpu"
    assert dcgm.summary["hosts"] == 2 and dcgm.summary["gpus"] == 16
    # both 8-GPU hosts are watched for every quarter hour: 8 GPU-hours per hour each
    assert_allclose(prom.monitored, 8.0)
    assert_allclose(dcgm.monitored, 16.0)
    llm, vision = dcgm.teams["llm"], dcgm.teams["vision"]
    assert_allclose(llm[0][:24], prom.busy, atol=1e-9)                 # same llm samples
    assert_allclose(vision[0][:24], smi.busy, atol=8 * 0.005)          # smi rounds to 1 %
    assert_allclose(prom.busy[[0, 12, 23]] / 8, [0.85, 0.35, 0.85], atol=0.02)
    assert set(prom.teams) == {"llm"}                                  # namespace label


def test_join_with_usage_per_hour_and_team():
    result = read_usage((SAMPLES / "usage_busy_sample.zip").read_bytes(), "usage_busy.zip")
    busy = result.summary["busy"]
    assert busy["measured_periods"] == busy["periods"] == 48
    assert busy["allocated_gpu_hours"] == busy["monitored_gpu_hours"] == 768.0
    # llm 38 h at 0.85 and 10 h at 0.35; vision 38 h at 0.80 and 10 h at 0.35 (+- 0.02 noise)
    expected = 8 * (38 * 0.85 + 10 * 0.35) + 8 * (38 * 0.80 + 10 * 0.35)
    assert busy["busy_gpu_hours"] == pytest.approx(expected, abs=768 * 0.005)
    assert busy["idle_gpu_hours"] == pytest.approx(768 - busy["busy_gpu_hours"])
    assert busy["teams"]["llm"]["utilization"] == pytest.approx((38 * .85 + 3.5) / 48, abs=.005)
    assert busy["teams"]["vision"]["allocated_gpu_hours"] == 384.0
    assert busy["starved_stretches"] == [{"from": "2026-03-02 10:00", "to": "2026-03-02 20:00",
                                          "hours": 10.0, "utilization": pytest.approx(0.35,
                                                                                      abs=0.01)}]
    assert any("busy under 50% of their allocated time" in w and "data loading" in w
               for w in result.warnings)
    profile = result.profile
    assert_allclose(profile.busy[10:20], 16 * 0.35, atol=16 * 0.02)
    assert np.all(profile.busy <= profile.steady + profile.interruptible)


def test_partial_cover_and_short_dips():
    # one host of two, 24 of 48 hours: scaled from the GPUs watched, warned; a 5-hour dip is
    # not a long stretch
    lines = ["timestamp,gpu,DCGM_FI_DEV_GPU_UTIL"]
    for hour in range(24):
        for gpu in range(8):
            lines.append(f"2026-03-02T{hour:02d}:00:00Z,{gpu},{30 if 3 <= hour < 8 else 90}")
    result = bundle("\n".join(lines) + "\n")
    busy = result.summary["busy"]
    assert busy["measured_periods"] == 24
    assert busy["monitored_gpu_hours"] == 192.0 and busy["allocated_gpu_hours"] == 384.0
    assert busy["busy_gpu_hours"] == pytest.approx(16 * (19 * 0.9 + 5 * 0.3))
    assert busy["starved_stretches"] == []
    assert any("monitored 192 GPU-hours where the usage file bills 384" in w
               for w in result.warnings)
    assert any("covers 24 of 48 hours" in w for w in result.warnings)
    assert np.isnan(result.profile.busy[24:]).all()


def test_busy_time_outside_the_usage_is_said():
    result = bundle("timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\n2027-01-01T00:00:00Z,0,50\n")
    assert result.summary["busy"]["measured_periods"] == 0
    assert any("fall in no period of the usage file" in w for w in result.warnings)


def test_daily_usage_compares_per_day():
    usage = b"date,gpu_hours\n2026-03-02,192\n2026-03-03,192\n"
    result = bundle((SAMPLES / "dcgm_busy_sample.csv").read_bytes(), usage)
    busy = result.summary["busy"]
    assert busy["periods"] == 2 and result.profile.period == "day"
    assert busy["utilization"] == pytest.approx(
        ((38 * .85 + 3.5) / 48 + (38 * .8 + 3.5) / 48) / 2, abs=0.005)


@pytest.mark.parametrize("text, message", [
    ("timestamp,gpu,DCGM_FI_PROF_GR_ENGINE_ACTIVE\n2026-03-02T00:00:00Z,0,1.7\n",
     r"row 2, column 'DCGM_FI_PROF_GR_ENGINE_ACTIVE': expected a ratio from 0 to 1, got '1.7'"),
    ("timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\n2026-03-02T00:00:00Z,0,101\n",
     r"row 2, column 'DCGM_FI_DEV_GPU_UTIL': expected a percent from 0 to 100"),
    ("timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\nsoon,0,50\n",
     r"row 2, column 'timestamp': cannot read 'soon' as a time"),
    ("timestamp,DCGM_FI_DEV_GPU_UTIL\n2026-03-02T00:00:00Z,50\n", r"row 1: missing column gpu"),
    ("timestamp, index, utilization.gpu [%]\n2026/03/02 00:00:00.000, 0, lots %\n",
     r"row 2, column 'utilization.gpu \[%\]': expected a percent from 0 to 100, got 'lots %'"),
    ("timestamp, index, utilization.gpu [%]\n02.03.2026 00:00, 0, 5 %\n",
     r"row 2, column 'timestamp': cannot read"),
    ('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 50\n', r"row 1: this sample has no timestamp"),
    ('# HELP DCGM_FI_DEV_GPU_UTIL x\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 50 1772409600000\n'
     'garbage line\n', r"row 3: cannot read this line as a Prometheus sample"),
    ('DCGM_FI_DEV_GPU_UTIL{gpu="0"} 150 1772409600000\n',
     r"row 1, column 'DCGM_FI_DEV_GPU_UTIL': expected a percent"),
    ('# HELP DCGM_FI_DEV_FB_USED x\nDCGM_FI_DEV_FB_USED{gpu="0"} 50 1772409600000\n',
     r"no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL samples"),
    ("timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\n", r"a header but no samples"),
])
def test_malformed_busy_files(text, message):
    with pytest.raises(IngestError, match=message):
        read_busy(text.encode(), "busy.txt")


def test_promtool_dump_and_epoch_seconds():
    dump = ('{__name__="DCGM_FI_DEV_GPU_UTIL", gpu="0", Hostname="n1"} 50 1772409600000\n'
            '{__name__="DCGM_FI_DEV_GPU_UTIL", gpu="0", Hostname="n1"} 50 1772411400000\n')
    busy = read_busy(dump.encode(), "dump.txt")
    assert str(busy.hours[0]) == "2026-03-02T00" and busy.busy[0] == pytest.approx(0.5)
    csv = "timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\n1772409600,0,100\n1772411400,0,100\n"
    assert read_busy(csv.encode(), "e.csv").busy[0] == pytest.approx(1.0)


def test_a_busy_file_alone_is_not_usage():
    with pytest.raises(IngestError, match="this is a GPU busy-time file; upload it beside"):
        read_usage((SAMPLES / "dcgm_busy_sample.csv").read_bytes(), "dcgm.csv")


def zipped(files: dict[str, bytes], compress=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compress) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize("files, message", [
    ({"a.csv": USAGE}, "holds exactly two files"),
    ({"a.csv": USAGE, "b.csv": USAGE, "c.csv": USAGE}, "holds exactly two files"),
    ({"a.csv": USAGE, "b.csv": USAGE}, "0 are GPU busy-time files"),
    ({"a.csv": (SAMPLES / "dcgm_busy_sample.csv").read_bytes(),
      "b.csv": (SAMPLES / "nvidia_smi_sample.csv").read_bytes()}, "2 are GPU busy-time files"),
    ({"inner.zip": b"PK\x03\x04", "b.csv": (SAMPLES / "dcgm_busy_sample.csv").read_bytes()},
     "cannot hold another .zip"),
])
def test_bundle_contents_checked(files, message):
    with pytest.raises(IngestError, match=message):
        read_usage(zipped(files), "both.zip")


def test_bundle_bomb_and_size_refused():
    bomb = zipped({"usage.csv": USAGE, "busy.csv": b"0" * 30_000_000})
    with pytest.raises(IngestError, match="unpacks to 30,000,000 bytes"):
        read_usage(bomb, "both.zip")


def test_bundle_errors_name_the_member_file():
    data = zipped({"usage.csv": USAGE, "gpu-busy.csv": b"timestamp,gpu,DCGM_FI_DEV_GPU_UTIL\n"
                   b"2026-03-02T00:00:00Z,0,900\n"})
    with pytest.raises(IngestError, match=r"^gpu-busy.csv: row 2"):
        read_usage(data, "both.zip")


def test_load_usage_with_busy_path_is_the_cli_path():
    result = load_usage(SAMPLES / "usage_busy_hourly.csv",
                        busy_path=SAMPLES / "nvidia_smi_sample.csv")
    assert result.summary["busy"]["file"] == "nvidia_smi_sample.csv"
    assert any("local time" in w for w in result.warnings)


def test_make_bundle_round_trip():
    name, data = make_bundle("C:\\exports\\usage.csv", USAGE, "usage.csv", b"x")
    assert name == "usage+busy.zip"
    assert sorted(zipfile.ZipFile(io.BytesIO(data)).namelist()) == ["busy-usage.csv",
                                                                    "usage.csv"]


def test_plan_on_busy_basis_needs_fewer_gpus():
    ingested = read_usage((SAMPLES / "usage_busy_sample.zip").read_bytes(), "usage_busy.zip")
    allocated = Scenario.model_validate({"finance": {"horizon_months": 12},
                                         "uncertainty": {"draws": 0}})
    busy = allocated.model_copy(update={"profile": ProfileOptions(demand_basis="busy",
                                                                  target_utilization=0.9)})
    plan_a = compute_plan(allocated, ingested.profile)
    plan_b = compute_plan(busy, ingested.profile)
    demand_a, demand_b = context_of(plan_a).demand.total, context_of(plan_b).demand.total
    # 16 GPUs allocated every hour; busy about 72 % of it, planned at 90 %
    assert demand_a[:48].mean() == pytest.approx(16.0)
    assert demand_b[:48].sum() == pytest.approx(ingested.summary["busy"]["busy_gpu_hours"] / 0.9,
                                                rel=1e-9)
    assert plan_b.strategies["on_demand"].pv_cost < plan_a.strategies["on_demand"].pv_cost
