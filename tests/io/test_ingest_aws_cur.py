"""AWS Cost and Usage Report (legacy CUR): GPU instance-hours by line item type."""
from __future__ import annotations

import csv
import io

import pytest
from numpy.testing import assert_allclose

from service.ingest import IngestError, read_usage
from tests.support.ingest_fixtures import SAMPLES

COLUMNS = ["identity/LineItemId", "lineItem/LineItemType", "lineItem/UsageStartDate",
           "lineItem/UsageEndDate", "lineItem/UsageType", "lineItem/UsageAmount",
           "product/instanceType", "pricing/term", "resourceTags/user:team"]


def cur(*rows: dict) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, restval="")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def line(hour: int, amount="1", instance="p4d.24xlarge", kind="Usage", usage="BoxUsage",
         team="") -> dict:
    return {"identity/LineItemId": f"id{hour}", "lineItem/LineItemType": kind,
            "lineItem/UsageStartDate": f"2026-03-01T{hour:02d}:00:00Z",
            "lineItem/UsageEndDate": f"2026-03-01T{hour + 1:02d}:00:00Z",
            "lineItem/UsageType": f"USE1-{usage}:{instance}", "lineItem/UsageAmount": amount,
            "product/instanceType": instance, "resourceTags/user:team": team}


def test_gpu_hours_and_categories():
    data = cur(line(0), line(0, kind="DiscountedUsage"), line(0, usage="SpotUsage"),
               line(1, "0.25", "g5.xlarge", kind="SavingsPlanCoveredUsage"))
    result = read_usage(data, "cur.csv")
    assert result.summary["format"] == "aws_cur"
    assert result.summary["pricing_categories"] == {"on_demand": 8.0, "committed": 8.25,
                                                    "spot": 8.0}
    assert_allclose(result.profile.steady, [16, 0.25])
    assert_allclose(result.profile.interruptible, [8, 0])


def test_non_instance_lines_skipped():
    data = cur(line(0), line(0, kind="Tax"), line(0, kind="RIFee"),
               line(0, usage="EBS:VolumeUsage.gp3", instance=""), line(0, instance="m5.large"))
    result = read_usage(data, "cur.csv")
    assert result.profile.gpu_hours == 8.0
    assert result.summary["skipped_rows"] == 4


def test_team_tag():
    data = cur(line(0, team="vision"), line(0, team=""))
    assert read_usage(data, "cur.csv").profile.teams == {"vision": 8.0, "(no team)": 8.0}


def test_bad_amount_named():
    with pytest.raises(IngestError, match=r"row 2, column 'lineItem/UsageAmount': expected a "
                                          r"quantity >= 0, got 'n/a'"):
        read_usage(cur(line(0, "n/a")), "cur.csv")


def test_sample():
    result = read_usage((SAMPLES / "aws_cur_sample.csv").read_bytes(), "aws_cur_sample.csv")
    categories = result.summary["pricing_categories"]
    assert categories["on_demand"] == 72 * 8         # one p5.48xlarge
    assert categories["committed"] == 72 * 2 * 8     # two reserved g5.48xlarge
    assert 0 < categories["spot"] < 72
    assert result.profile.teams["serving"] == 72 * 16
