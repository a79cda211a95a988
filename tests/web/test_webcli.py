"""``buyrent users`` and the demo seeding behind ``buyrent serve --demo``."""
from __future__ import annotations

import io

import pytest

import service.cli.main as cli
from tests.support.client import TEST_CONFIG


@pytest.fixture
def instance(tmp_path, monkeypatch):
    monkeypatch.setenv("BUYRENT_INSTANCE", str(tmp_path / "inst"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("SECRET_KEY", raising=False)
    return tmp_path / "inst"


def test_users_add_reads_password_from_stdin_and_token_prints_one(instance, monkeypatch,
                                                                  capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-password\nignored\n"))
    assert cli.main(["users", "add", "carol", "--role", "reviewer"]) == 0
    assert "carol added (reviewer)" in capsys.readouterr().out
    assert (instance / "secret_key").exists()            # generated into the instance folder
    assert (instance / "secret_key").stat().st_mode & 0o077 == 0
    assert cli.main(["users", "token", "carol"]) == 0
    token = capsys.readouterr().out.strip()
    assert token.startswith("br_") and len(token) > 30

    from service.app import create_app
    app = create_app()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    import re
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    response = client.post("/login", data={"username": "carol", "password": "s3cret-password",
                                           "csrf_token": csrf})
    assert response.status_code == 302


@pytest.mark.parametrize("argv,stdin,message", [
    (["users", "add", "dave", "--role", "analyst"], "short\n", "at least 12"),   # weak password
    (["users", "token", "nobody"], "", "no user named"),                        # unknown user
])
def test_users_errors_exit_2(instance, monkeypatch, capsys, argv, stdin, message):
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_duplicate_user_is_refused(instance, monkeypatch, capsys):
    for expected in (0, 2):
        monkeypatch.setattr("sys.stdin", io.StringIO("long-enough-pw\n"))
        assert cli.main(["users", "add", "erin", "--role", "analyst"]) == expected
    assert "exists already" in capsys.readouterr().err


def test_bad_role_is_an_argparse_error(instance):
    with pytest.raises(SystemExit) as exc:
        cli.main(["users", "add", "x", "--role", "boss"])
    assert exc.value.code == 2


def test_demo_seed_is_idempotent_and_has_a_plan(instance):
    from service.app import create_app
    from service.plans.jobs.runner import run_job
    from service.web.tables import PlanJob, PlanRecord, Revision
    from service.web.db import write_session
    from service.cli.web_commands import seed_demo
    app = create_app()
    seed_demo(app)
    seed_demo(app)
    with app.app_context():
        with write_session() as s:
            assert s.query(Revision).count() == 1
            (job,) = s.query(PlanJob).all()      # queued once, for a worker
            assert (job.kind, job.state, job.revision_id) == ("plan", "queued", 1)
        run_job(job.id)                           # what a worker does with it
        with write_session() as s:
            assert s.query(PlanRecord).count() == 1 and s.get(PlanJob, job.id).state == "done"


def test_the_app_factory_tunes_the_allocator(monkeypatch, tmp_path):
    # the serving process keeps numpy's temporaries in its heap (service/allocator.py)
    import service.app as factory
    calls = []
    monkeypatch.setattr(factory, "tune_allocator", lambda: calls.append("tuned") or True)
    app = factory.create_app({**TEST_CONFIG, "INSTANCE_PATH": str(tmp_path / "instance")})
    app.extensions["buyrent_engine"].dispose()
    assert calls == ["tuned"]
