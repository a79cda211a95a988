"""Large usage uploads read by a job (issue 40, item 7: a 60,000-row file took 106.6 s in a
request thread and answered a 36 MB page).

The app here queues jobs on a SQLite file (tests/web/test_jobs.py's pattern): the upload's
request only stores the file and queues its job, and a test runs the job itself with the real
runner and its real child process. The request must not call the reader: it is replaced by one
that fails the test while the request runs (the job's child is another process and keeps the
real one).
"""
from __future__ import annotations

import html
import io
import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import func, select

from service.plans.jobs import queue, records
from service.plans.jobs.reading import pack_profile, unpack_profile
from service.plans.jobs.runner import run_job
from service.web.db import get_session
from service.web.tables import PlanJob, Revision, UsageFile
from models.profile import UsageProfile
from tests.support.paths import SAMPLES
from tests.support.queued import queued_app

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

UPLOAD = "/scenarios/1/usage"


@pytest.fixture
def app(tmp_path: Path, seeded_database: Path):
    """The seeded database behind an app whose jobs go on a SQLite queue file: enqueuing runs
    nothing; a test runs a job with run_job."""
    with queued_app(tmp_path, seeded_database) as app:
        yield app


def hourly(rows: int, bad_row: int | None = None) -> bytes:
    """``rows`` hourly rows from 2019-12-01 (60,000 end in 2026-08, before the pinned month);
    ``bad_row``: that file row (the header is row 1) says NaN GPU-hours."""
    starts = np.datetime64("2019-12-01T00", "h") + np.arange(rows)
    lines = ["timestamp,gpu_hours"]
    for i, start in enumerate(starts):
        value = "NaN" if bad_row is not None and i + 2 == bad_row else f"{100 + i % 48}.5"
        lines.append(f"{start}:00:00,{value}")
    return ("\n".join(lines) + "\n").encode()


def post(client, data: bytes, name: str = "big.csv"):
    return client.post(UPLOAD, {"usage": (io.BytesIO(data), name)},
                       content_type="multipart/form-data")


def no_reader(monkeypatch):
    """The web process's readers fail the test: the request must leave reading to the job."""
    def refuse(*args, **kwargs):
        raise AssertionError("the request read the file")
    for where in ("service.scenarios.views.read_upload", "service.plans.live.read_usage"):
        monkeypatch.setattr(where, refuse)


def upload_job(app) -> PlanJob:
    with app.app_context():
        return get_session().scalar(select(PlanJob).where(PlanJob.kind == "upload"))


def run(app, job_id: int) -> PlanJob:
    with app.app_context():
        run_job(job_id)
        return records.fresh(job_id)


def test_a_60000_row_file_is_read_by_a_job_and_its_page_is_small(app, login, monkeypatch):
    client = login("ana")
    data = hourly(60_000)
    no_reader(monkeypatch)
    started = time.perf_counter()
    response = post(client, data)
    asked = time.perf_counter() - started
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    job = upload_job(app)
    assert job is not None and job.state == "queued"
    with app.app_context():      # the queue holds the job's id, nothing else
        assert queue.app_huey(app).pending_count() == 1
        usage = get_session().get(UsageFile, job.usage_file_id)
        assert usage.data == data
    assert response.headers["Location"].endswith(f"/scenarios/1/usage/{usage.id}")
    pending = client.client.get(response.headers["Location"])
    page = pending.get_data(as_text=True)
    assert pending.status_code == 202 and 'id="plan-job"' in page and "60,000 rows" in page
    assert len(pending.get_data()) < 20_000
    print(f"\npending page {len(pending.get_data()):,} bytes")
    korean = client.client.get(response.headers["Location"], headers={"Accept-Language": "ko"})
    assert "이 파일(60,000행)은 워커가 읽도록 대기열에 있습니다" in korean.get_data(as_text=True)
    polled = client.client.get(response.headers["Location"],
                               headers={"Accept": "application/json"}).get_json()
    assert polled["complete"] is False and polled["job"]["kind"] == "upload"

    started = time.perf_counter()
    done = run(app, job.id)
    read = time.perf_counter() - started
    assert done.state == "done", done.error
    preview = client.client.get(response.headers["Location"])
    page = html.unescape(preview.get_data(as_text=True))
    assert preview.status_code == 200, page[:800]
    assert "hourly, 60000 rows" in page and "2019-12-01 00 to 2026-10-04 23" in page
    assert 'id="attach"' in page
    assert len(preview.get_data()) < 200_000, len(preview.get_data())
    print(f"\n60,000 rows: request {asked:.2f} s, job {read:.2f} s, "
          f"preview page {len(preview.get_data()):,} bytes")

    # attaching reads the job's profile, not the file (the readers still fail the test)
    before = count_revisions(app)
    attached = client.post(f"/scenarios/1/usage/{usage.id}/attach", {})
    assert attached.status_code == 302, attached.get_data(as_text=True)[:500]
    assert count_revisions(app) == before + 1


def count_revisions(app) -> int:
    with app.app_context():
        return get_session().scalar(select(func.count()).select_from(Revision))


def test_a_large_file_the_reader_refuses_is_said_by_row_and_column(app, login, monkeypatch):
    client = login("ana")
    no_reader(monkeypatch)
    response = post(client, hourly(25_000, bad_row=20_001))
    assert response.status_code == 303
    failed = run(app, upload_job(app).id)
    assert failed.state == "failed"
    page = client.client.get(response.headers["Location"])
    text = html.unescape(page.get_data(as_text=True))
    assert page.status_code == 422, text[:800]
    assert "row 20001" in text and "gpu_hours" in text and 'id="problems"' in text
    assert "no scenario uses it" in text and "Nothing was saved" not in text
    korean = client.client.get(response.headers["Location"],
                               headers={"Accept-Language": "ko"})
    assert korean.status_code == 422
    assert "20001행" in html.unescape(korean.get_data(as_text=True))


def test_a_file_at_the_threshold_is_read_in_its_request(app, login):
    """UPLOAD_JOB_ROWS rows or fewer: read at once, no job (the setting decides)."""
    app.config["UPLOAD_JOB_ROWS"] = 30
    client = login("ana")
    response = post(client, hourly(30), "small.csv")
    assert response.status_code == 200 and "Preview" in response.get_data(as_text=True)
    assert upload_job(app) is None
    response = post(client, hourly(31), "small.csv")
    assert response.status_code == 303 and upload_job(app) is not None


def test_the_job_api_says_the_upload_job(app, login):
    client = login("ana")
    app.config["UPLOAD_JOB_ROWS"] = 30
    post(client, hourly(31))
    job = upload_job(app)
    with app.app_context():
        from service.web.tables import User
        from service.web.users import create_token
        from service.web.db import write_session
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "t")
    body = app.test_client().get(f"/api/v1/jobs/{job.id}",
                                 headers={"Authorization": f"Bearer {token}"}).get_json()
    assert body["kind"] == "upload" and body["state"] == "queued"


def test_a_profile_survives_the_job_exactly():
    """pack/unpack: every period, float and team as read (busy NaN stays NaN)."""
    starts = np.datetime64("2026-01-01T00", "h") + np.arange(5)
    profile = UsageProfile(period="hour", starts=starts,
                           steady=np.array([0.1, 2.0, 1e-9, 3.3333333333333335, 0.0]),
                           interruptible=np.array([0.0, 0.5, 0.25, 0.0, 7.0]),
                           has_workload=True, teams={"llm": 3.5, "vision": 0.1},
                           busy=np.array([0.05, np.nan, 1e-9, 3.0, 6.5]))
    back = unpack_profile(pack_profile(profile))
    assert back.period == "hour" and back.has_workload and back.teams == profile.teams
    assert (back.starts == profile.starts).all()
    assert back.steady.tolist() == profile.steady.tolist()
    assert back.interruptible.tolist() == profile.interruptible.tolist()
    assert np.array_equal(back.busy, profile.busy, equal_nan=True)



def test_a_file_past_the_readers_row_limit_is_refused_at_once(app, login):
    """500,000 data rows is the readers' bound: one more is refused in the request, stored
    nowhere and queued for no job."""
    client = login("ana")
    data = b"timestamp,gpu_hours\n" + b"2026-01-01T00:00:00,1\n" * 500_001
    with app.app_context():
        files = get_session().scalar(select(func.count()).select_from(UsageFile))
    response = post(client, data)
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 422, page[:500]
    assert "the file has 500,001 data rows; the limit is 500,000" in page
    assert upload_job(app) is None
    with app.app_context():
        assert get_session().scalar(select(func.count()).select_from(UsageFile)) == files


def test_a_large_busy_time_file_alone_is_refused_at_once_not_queued(app, login):
    """A GPU busy-time file is read beside a usage file only: alone it is refused in the
    request whatever its length, never stored for a job."""
    app.config["UPLOAD_JOB_ROWS"] = 30
    data = (SAMPLES / "dcgm_busy_sample.csv").read_bytes()      # 3,072 rows
    response = post(login("ana"), data, "busy.csv")
    assert response.status_code == 422
    assert "this is a GPU busy-time file" in html.unescape(response.get_data(as_text=True))
    assert upload_job(app) is None


def test_a_large_file_posted_to_the_plans_api_is_read_by_the_plan_job_only(app, api,
                                                                           monkeypatch):
    """POST /api/v1/plans read the usage in its request to refuse it early (issue 40 item 7
    left this door open): past UPLOAD_JOB_ROWS the plan job reads it, and a file its reader
    refuses fails the job with the row and column."""
    def refuse(*args, **kwargs):
        raise AssertionError("the request read the file")
    monkeypatch.setattr("service.api.views.read_usage", refuse)
    asked = api(data={"usage": (io.BytesIO(hourly(25_000, bad_row=20_001)), "big.csv"),
                      "scenario": "{}"}, content_type="multipart/form-data",
                headers={"Prefer": "respond-async"})
    assert asked.status_code == 202, asked.get_data(as_text=True)[:500]
    job_id = asked.get_json()["id"]
    with app.app_context():
        assert get_session().get(PlanJob, job_id).kind == "plan"
    failed = run(app, job_id)
    assert failed.state == "failed"
    assert "row 20001" in failed.error and "gpu_hours" in failed.error, failed.error
    # a small file is still read, and refused, in its request (nothing stored or queued)
    monkeypatch.undo()
    small = api(data={"usage": (io.BytesIO(hourly(30, bad_row=5)), "small.csv"),
                      "scenario": "{}"}, content_type="multipart/form-data",
                headers={"Prefer": "respond-async"})
    assert small.status_code == 422 and "row 5" in small.get_data(as_text=True)
