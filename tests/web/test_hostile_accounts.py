"""Accounts under attack (issue 12, defects 8 and 9): nobody can lock another user out from
their own address, brute force stays limited, and weak passwords or unsafe user names are
refused. The index of every defect and its test is in tests/web/test_hostile_web.py.
"""
from __future__ import annotations

import io

import pytest

import service.cli.main as cli
from service.web.users import UserError, check_password, check_username, create_user
from service.web.db import write_session
from tests.support.client import PASSWORD, Browser

STRANGER, REVIEWER_DESK = "203.0.113.66", "198.51.100.7"


def attempt(app, address: str, name: str, password: str):
    client = Browser(app.test_client())
    return client.client.post("/login", data={"username": name, "password": password,
                                              "csrf_token": client.token()},
                              environ_base={"REMOTE_ADDR": address})


def test_a_stranger_cannot_lock_a_reviewer_out(app):
    """Ten wrong passwords from another address locked the user for 15 minutes."""
    for _ in range(12):
        assert attempt(app, STRANGER, "rita", "guess-" + "x" * 12).status_code in (401, 429)
    assert attempt(app, STRANGER, "rita", PASSWORD).status_code == 429   # still limited there
    assert attempt(app, REVIEWER_DESK, "rita", PASSWORD).status_code == 302


def test_brute_force_from_one_address_stays_limited(app):
    app.config.update(LOGIN_MAX_FAILURES_PER_USER=10, LOGIN_MAX_FAILURES_PER_IP=50)
    statuses = [attempt(app, STRANGER, "rita", f"guess-{i}").status_code for i in range(11)]
    assert statuses[:10] == [401] * 10 and statuses[10] == 429
    # spreading guesses over many names meets the per-address limit
    for i in range(40):
        attempt(app, STRANGER, f"user{i}", "guess")
    assert attempt(app, STRANGER, "ana", PASSWORD).status_code == 429
    assert attempt(app, REVIEWER_DESK, "ana", PASSWORD).status_code == 302


WEAK = ["password", " " * 8, " " * 12, "password1234", "Password123!", "aaaaaaaaaaaaaaaa",
        "qwertyuiopasdf", "correcthorse", "rita-rita-rita-rita", "ritarita1234"]


@pytest.mark.parametrize("password", WEAK)
def test_weak_passwords_are_refused(app, password):
    """`users add` took 'password', eight spaces and a password equal to the user name."""
    with pytest.raises(UserError, match="password"):
        check_password("rita", password)


def test_password_equal_to_the_user_name_is_refused():
    with pytest.raises(UserError, match="must not be the user name"):
        check_password("administrator1", "administrator1")


@pytest.mark.parametrize("password", [PASSWORD, "tulip-ferry-quartz-9", "analyst-demo-pw"])
def test_strong_passwords_pass(password):
    check_password("someone", password)


@pytest.mark.parametrize("name", ["<script>x</script>", "a\x00b", "a\tb", "new\nline", "a b",
                                  "-leading-dash", "=cmd", "@SUM(1)", "'quote", "a" * 81, "",
                                  "ünïcode", "a/b", "a\u202eb"])
def test_unsafe_user_names_are_refused(name):
    """`users add` took user names with markup or control characters."""
    with pytest.raises(UserError, match="user name"):
        check_username(name)


@pytest.mark.parametrize("name", ["ana", "demo-analyst", "j.doe", "jdoe_2", "kim@example.com"])
def test_safe_user_names_pass(name):
    check_username(name)


def test_create_user_applies_both_rules(app):
    with app.app_context():
        for name, password in (("<b>eve</b>", PASSWORD), ("eve", "password")):
            with pytest.raises(UserError):
                with write_session() as s:
                    create_user(s, name, password, "analyst")


def test_users_add_on_the_command_line_refuses_a_weak_password(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BUYRENT_INSTANCE", str(tmp_path / "inst"))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("        \n"))
    assert cli.main(["users", "add", "dave", "--role", "analyst"]) == 2
    assert "at least 12 characters" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("davedavedavedave\n"))
    assert cli.main(["users", "add", "dave", "--role", "analyst"]) == 2
    assert "too weak" in capsys.readouterr().err


def test_behind_a_proxy_the_limit_counts_the_forwarded_address(app, tmp_path):
    """With BUYRENT_PROXY_HOPS=1 every client is no longer nginx's 127.0.0.1: a stranger's
    failures behind the proxy do not lock the user out either."""
    import shutil

    from service.app import create_app
    from tests.support.client import TEST_CONFIG
    instance = tmp_path / "proxied"
    instance.mkdir()
    shutil.copyfile(f"{app.instance_path}/buyrent.sqlite3", instance / "buyrent.sqlite3")
    proxied = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance), "PROXY_HOPS": 1})
    try:
        def via_proxy(client_address: str, password: str):
            client = Browser(proxied.test_client())
            return client.client.post(
                "/login", data={"username": "rita", "password": password,
                                "csrf_token": client.token()},
                headers={"X-Forwarded-For": client_address},
                environ_base={"REMOTE_ADDR": "127.0.0.1"})
        for _ in range(10):
            assert via_proxy(STRANGER, "wrong-" + "x" * 12).status_code == 401
        assert via_proxy(STRANGER, PASSWORD).status_code == 429
        assert via_proxy(REVIEWER_DESK, PASSWORD).status_code == 302
    finally:
        proxied.extensions["buyrent_engine"].dispose()
