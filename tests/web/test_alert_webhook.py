"""The alert webhook (issue 43, thresholds): a breach recorded by an upload is posted by a Huey
task, never in the request; the queue carries the breach id alone, as JSON; a post answered
500 is retried with back-off and the retry delivers it; the text is in the scenario's language
(its owner's); the URL shows nowhere (pages, log, rows); and the URL check keeps the server
from posting into its own network (SSRF): https only, global addresses only, checked after
the name is resolved, the checked address connected to, no redirect followed."""
from __future__ import annotations

import json
import logging
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import select

from service.app import create_app
from service.plans import alert_posts, webhook
from service.plans.alerts import local_allowed
from service.plans.jobs import queue
from service.plans.jobs.wire import JsonSerializer, WireError
from service.web import config as cfg
from service.web.db import write_session
from service.web.tables import AlertBreach, AlertPost
from tests.support.client import TEST_CONFIG, Browser
from tests.support.actual_steps import CLOUD_ONLY_BILLS, approve, sample_files, upload
from huey.registry import Message

PATH = "/hook-secret-path-4711"


class Hook:
    """A local incoming webhook answering the statuses given, in turn (then 200)."""

    def __init__(self, statuses):
        self.statuses = list(statuses)
        self.bodies: list[dict] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers["Content-Length"])
                hook.bodies.append({"path": self.path, "type": self.headers["Content-Type"],
                                    "body": json.loads(self.rfile.read(length))})
                status = hook.statuses.pop(0) if hook.statuses else 200
                self.send_response(status)
                if status in (301, 302, 307):
                    self.send_header("Location", "http://127.0.0.1:9/elsewhere")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{PATH}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def queued_app(tmp_path, seeded_database):
    """The seeded app with its queue in SQLite (no worker: the test runs the tasks), posts to
    loopback allowed (a test's setting) and a first retry after 5 s."""
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(seeded_database, instance / "buyrent.sqlite3")
    app = create_app({**TEST_CONFIG, "INSTANCE_PATH": str(instance), "QUEUE_URL": None,
                      "ALERT_WEBHOOK_ALLOW_LOCAL": True, "ALERT_RETRY_DELAY": 5.0})
    yield app
    app.extensions["buyrent_engine"].dispose()


def client(app, name):
    b = Browser(app.test_client())
    assert b.login(name).status_code == 302
    return b


def alert_tasks(app):
    """The alert tasks waiting in the app's queue (anything else is left out)."""
    huey = queue.app_huey(app)
    out = []
    while (task := huey.dequeue()) is not None:
        if task.name == alert_posts.TASK:
            out.append(task)
    return out


def posts(app):
    with app.app_context():
        with write_session() as s:
            return [(p.outcome, p.status) for p in s.scalars(select(AlertPost).order_by(
                AlertPost.id))]


def test_a_breach_is_posted_by_the_queue_retried_after_a_500_in_the_owners_language(
        queued_app, caplog):
    app = queued_app
    ana, rita = client(app, "ana"), client(app, "rita")
    ana.post("/language", {"lang": "ko", "next": "/profile"})     # the scenario's owner
    approve(rita, app, "cloud_only")
    with Hook([500]) as hook:
        assert ana.post("/scenarios/1/alerts", {"spend_over_plan": "66", "webhook_url": hook.url}
                        ).status_code == 302
        caplog.set_level(logging.INFO)
        assert upload(ana, sample_files(CLOUD_ONLY_BILLS)).status_code == 302
        assert hook.bodies == []                      # nothing posted in the request
        huey = queue.app_huey(app)
        tasks = alert_tasks(app)
        with app.app_context():
            with write_session() as s:
                breach = s.scalars(select(AlertBreach)).one()     # 2027-04: 66.24 % > 66 %
        assert [t.args for t in tasks] == [(breach.id,)]
        huey.execute(tasks[0])                        # the webhook answers 500
        assert posts(app) == [("failed", 500)]
        retried = huey.scheduled()
        assert len(retried) == 1 and retried[0].args == (breach.id,)
        assert retried[0].retries == alert_posts.RETRIES - 1
        assert retried[0].retry_delay == 10.0         # 5 s, then doubled: back-off
        assert retried[0].eta is not None
        due = huey.read_schedule(retried[0].eta)      # the worker, 5 s later
        huey.execute(due[0], timestamp=retried[0].eta)       # the retry is taken
        assert posts(app) == [("failed", 500), ("posted", 200)]
        huey.execute(tasks[0])                        # the id delivered again: not re-posted
    assert len(hook.bodies) == 2
    sent = hook.bodies[-1]
    assert sent["path"] == PATH and sent["type"].startswith("application/json")
    assert sent["body"] == {"text": "[buyrent] 시나리오 8x H100 SXM servers vs AWS p5.48xlarge (us-east-1), "
                                    "리비전 1: "
                                    "2027-04: 지출이 계획보다 66.24% 많음 (알림 기준 66.00% 초과)"}
    assert "hook-secret-path" not in caplog.text and "127.0.0.1:" not in caplog.text
    assert "hook-secret-path" not in ana.get("/audit").get_data(as_text=True)


def test_a_consumer_of_the_queue_posts_and_retries_by_itself(queued_app):
    """Huey's consumer, as ``buyrent worker`` runs it (threads, the scheduler), with a first
    retry after 0.2 s: the 500 is retried and the post delivered, nothing run by the test."""
    import signal
    import time
    app = queued_app
    ana, rita = client(app, "ana"), client(app, "rita")
    approve(rita, app, "cloud_only")
    handlers = {n: signal.getsignal(n) for n in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    with Hook([500]) as hook:
        ana.post("/scenarios/1/alerts", {"spend_over_plan": "66", "webhook_url": hook.url})
        # the task's retry delay is read when it registers: a fresh app sees the 0.2 s
        fresh = create_app({**TEST_CONFIG, "INSTANCE_PATH": app.instance_path,
                            "QUEUE_URL": None, "ALERT_WEBHOOK_ALLOW_LOCAL": True,
                            "ALERT_RETRY_DELAY": 0.2})
        assert upload(client(fresh, "ana"), sample_files(CLOUD_ONLY_BILLS)).status_code == 302
        assert hook.bodies == []
        consumer = queue.app_huey(fresh).create_consumer(
            workers=1, worker_type="thread", periodic=False, initial_delay=0.05,
            max_delay=0.2, scheduler_interval=1)
        consumer.start()
        try:
            deadline = time.monotonic() + 60
            while posts(fresh)[-1:] != [("posted", 200)] and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            consumer.stop(graceful=True)
            for number, handler in handlers.items():
                signal.signal(number, handler)
            fresh.extensions["buyrent_engine"].dispose()
    assert posts(app) == [("failed", 500), ("posted", 200)]
    assert len(hook.bodies) == 2 and "2027-04" in hook.bodies[-1]["body"]["text"]


def test_an_english_owner_gets_english_and_a_redirect_is_not_followed(queued_app):
    app = queued_app
    ana, rita = client(app, "ana"), client(app, "rita")
    approve(rita, app, "cloud_only")
    with Hook([302]) as hook:
        ana.post("/scenarios/1/alerts", {"spend_over_plan": "66", "webhook_url": hook.url})
        upload(ana, sample_files(CLOUD_ONLY_BILLS))
        huey = queue.app_huey(app)
        task = alert_tasks(app)[0]
        huey.execute(task)
        assert posts(app) == [("failed", 302)]        # a redirect is no delivery
        eta = huey.scheduled()[0].eta
        huey.execute(huey.read_schedule(eta)[0], timestamp=eta)
    assert len(hook.bodies) == 2                      # never to the redirect's target
    assert hook.bodies[-1]["body"]["text"].endswith(
        "2027-04: spend 66.24 % over plan (alert above 66.00 %)")
    assert posts(app)[-1] == ("posted", 200)


def test_a_scenario_name_cannot_mention_the_channel_or_hide_a_link():
    assert alert_posts.escaped("<!channel> <https://evil.example|ok> & co") == \
        "&lt;!channel&gt; &lt;https://evil.example|ok&gt; &amp; co"


def test_a_breach_without_a_webhook_queues_nothing(queued_app):
    app = queued_app
    ana, rita = client(app, "ana"), client(app, "rita")
    approve(rita, app, "cloud_only")
    ana.post("/scenarios/1/alerts", {"spend_over_plan": "66"})
    upload(ana, sample_files(CLOUD_ONLY_BILLS))
    assert alert_tasks(app) == []


def test_the_deployment_webhook_comes_from_the_environment(monkeypatch, queued_app):
    monkeypatch.setenv("BUYRENT_ALERT_WEBHOOK_URL", "https://hooks.slack.example/T/B/x")
    assert cfg.from_environment()["ALERT_WEBHOOK_URL"] == "https://hooks.slack.example/T/B/x"
    queued_app.config["ALERT_WEBHOOK_URL"] = "https://hooks.slack.example/T/B/x"
    response = client(queued_app, "ana").get("/scenarios/1/alerts")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "The deployment's webhook is configured" in html
    assert "hooks.slack.example" not in html


def test_local_addresses_are_only_a_testing_apps_setting(app):
    app.config["ALERT_WEBHOOK_ALLOW_LOCAL"] = True
    with app.app_context():
        assert local_allowed()
    app.config["TESTING"] = False
    with app.app_context():
        assert not local_allowed()


def fixed(*addresses):
    return lambda host, port: list(addresses)


@pytest.mark.parametrize("url,addresses", [
    ("https://hooks.example/x", ("127.0.0.1",)),               # a name pointing home
    ("https://hooks.example/x", ("169.254.169.254",)),         # the cloud's metadata service
    ("https://hooks.example/x", ("93.184.216.34", "10.0.0.5")),  # one private among public
    ("https://hooks.example/x", ("::1",)),
    ("https://hooks.example/x", ("::ffff:192.168.0.1",)),
    ("https://hooks.example/x", ("100.64.0.1",)),             # shared address space
    ("https://hooks.example/x", ("fd00::1",)),
    ("https://hooks.example/x", ("0.0.0.0",)),
    ("https://hooks.example/x", ("224.0.0.1",)),
])
def test_a_name_that_resolves_inside_the_network_is_refused(url, addresses):
    target = webhook.check_url(url)
    with pytest.raises(webhook.WebhookRefused):
        webhook.checked_address(target, False, fixed(*addresses))
    with pytest.raises(webhook.WebhookRefused):
        webhook.post_text(url, "x", resolver=fixed(*addresses))


def test_a_public_address_is_the_one_connected_to():
    target = webhook.check_url("https://hooks.example:8443/services/a?b=c")
    assert (target.host, target.port, target.path) == ("hooks.example", 8443,
                                                        "/services/a?b=c")
    assert webhook.checked_address(target, False, fixed("93.184.216.34")) == "93.184.216.34"


@pytest.mark.parametrize("url", [
    "http://hooks.example/x", "ftp://hooks.example/x", "file:///etc/passwd",
    "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x", "https://a.localhost/x",
    "https://10.1.2.3/x", "https://192.168.1.1/x", "https://169.254.169.254/latest",
    "https://user:pw@hooks.example/x", "https:///x", "https://hooks.example/a b", "",
    "https://" + "a" * 2000 + ".example/", "gopher://127.0.0.1:25/x",
])
def test_urls_that_are_not_https_on_the_internet_are_refused(url):
    with pytest.raises(webhook.WebhookRefused):
        webhook.check_url(url)


def test_numeric_host_forms_are_caught_once_resolved():
    """2130706433 and 0x7f.1 are 127.0.0.1 to the resolver, not to ipaddress: the check
    after resolving refuses them."""
    for url in ("https://2130706433/x", "https://0x7f.1/x", "https://127.1/x"):
        target = webhook.check_url(url)
        with pytest.raises(webhook.WebhookRefused):
            webhook.checked_address(target, False)


def test_a_name_that_does_not_resolve_is_tried_again_later():
    def fails(host, port):
        raise OSError("temporary failure in name resolution")
    with pytest.raises(webhook.PostFailed):
        webhook.post_text("https://hooks.example/x", "x", resolver=fails)


def test_http_is_only_for_local_addresses_in_tests():
    assert webhook.check_url("http://127.0.0.1:8080/x", allow_local=True).scheme == "http"
    with pytest.raises(webhook.WebhookRefused):
        webhook.check_url("http://hooks.example/x", allow_local=True)


def test_the_queue_takes_the_alert_task_with_one_id_and_nothing_else():
    wire = JsonSerializer(queue.TASK, {"service.plans.alert_posts.buyrent.post_alert"})
    name = "service.plans.alert_posts.buyrent.post_alert"
    good = wire.serialize(Message("a", name, None, 6, 30, 0, (12,), {}))
    assert wire.deserialize(good).args == (12,)
    body = json.loads(good)
    for change in ({"args": ["https://10.0.0.1/"]}, {"args": [12, 13]},
                   {"kwargs": {"url": "x"}}, {"name": "service.plans.alert_posts.other"}):
        with pytest.raises(WireError):
            wire.deserialize(json.dumps({**body, **change}).encode())
