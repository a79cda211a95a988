"""The Huey task that posts a breach to the scenario's webhook, off the request.

The upload that records a breach enqueues the breach's id after its transaction commits
(:func:`enqueue_posts`); the queue carries that id and nothing else (service.plans.jobs.wire:
JSON, one positive integer, a task name this service registered), and the worker reads the
breach, the settings in force and the words from the database. A post that fails (no answer,
an HTTP status other than 2xx) is retried by Huey with back-off (``ALERT_RETRY_DELAY`` seconds,
then doubled, :data:`RETRIES` times); a URL it will not post to (service.plans.webhook) is not
retried. Each attempt is an ``alert_posts`` row; a breach already posted is not posted again
(an id delivered twice, or forged into the queue, posts nothing more). Neither the log nor the
rows hold the URL.
"""
from __future__ import annotations

import logging
from typing import Iterable

from flask import Flask, current_app
from huey.api import Huey
from sqlalchemy import select

from service.plans import webhook
from service.plans.alerts import local_allowed, settings_row, webhook_of
from service.i18n import gettext, using_locale
from service.i18n.alert_words import WEBHOOK_MESSAGE, sentence
from service.plans.jobs.queue import registered_name
from service.web.db import write_session
from service.web.tables import AlertBreach, AlertPost

log = logging.getLogger("buyrent.alerts")
TASK = "buyrent.post_alert"
RETRIES = 6                 # about an hour of tries at the default delay: 30 s, 1, 2, 4, 8, 16 min
BACKOFF = 2.0
DEFAULT_RETRY_DELAY = 30.0


def escaped(text: str) -> str:
    """A name someone typed, as plain text in a Slack message: ``<!channel>``, ``<@U123>`` or
    ``<https://...|link>`` would mention everyone or hide a link (Slack's formatting
    escapes exactly &, < and >; Teams shows the entities as the characters)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def message_text(breach: AlertBreach) -> str:
    """The post's text in the scenario's language (its owner's chosen language, else
    English)."""
    scenario = breach.scenario
    with using_locale(scenario.owner.language):
        return gettext(WEBHOOK_MESSAGE, scenario=escaped(scenario.name),
                       number=breach.revision.number,
                       sentence=sentence(breach.kind, breach.month, breach.value,
                                         breach.threshold))


def deliver(breach_id: int) -> None:
    """Post one breach (in an app context).

    Raises
    ------
    service.plans.webhook.PostFailed
        The webhook did not take it: Huey retries the task.
    """
    allow_local = local_allowed()
    with write_session() as s:
        breach = s.get(AlertBreach, breach_id)
        if breach is None:
            return
        done = s.scalar(select(AlertPost.id).where(AlertPost.breach_id == breach_id,
                                                   AlertPost.outcome == "posted"))
        url = webhook_of(settings_row(breach.scenario_id, s))
        if done is not None or not url:
            return
        text = message_text(breach)
    try:
        status = webhook.post_text(url, text, allow_local=allow_local)
    except webhook.WebhookRefused as exc:
        log.warning("alert %s not posted: %s", breach_id, exc)
        _record(breach_id, "refused", None)
        return
    except webhook.PostFailed as exc:
        log.warning("alert %s: %s; retried later", breach_id, exc)
        _record(breach_id, "failed", exc.status)
        raise
    _record(breach_id, "posted", status)


def _record(breach_id: int, outcome: str, status) -> None:
    with write_session() as s:
        s.add(AlertPost(breach_id=breach_id, outcome=outcome, status=status))


def init_app(app: Flask, huey: Huey) -> None:
    """Register the task on the app's queue (web and worker alike) and let its messages
    through the queue's serializer."""
    delay = float(app.config.get("ALERT_RETRY_DELAY", DEFAULT_RETRY_DELAY))

    def post_alert(breach_id: int) -> None:
        with app.app_context():
            deliver(breach_id)

    task = huey.task(name=TASK, retries=RETRIES, retry_delay=delay,
                     retry_backoff=BACKOFF)(post_alert)
    huey.serializer.others.add(registered_name(task))
    app.extensions["buyrent_alerts"] = task


def enqueue_posts(scenario_id: int, breach_ids: Iterable[int]) -> None:
    """Queue a post of each breach when the scenario has a webhook (after the transaction
    that recorded them). A queue that cannot be reached loses the post, not the breach: it
    is logged, and the breach is on record and on the pages."""
    ids = list(breach_ids)
    if not ids or not webhook_of(settings_row(scenario_id)):
        return
    task = current_app.extensions["buyrent_alerts"]
    for breach_id in ids:
        try:
            task(breach_id)
        except Exception:     # Redis away: the request goes on; the breach is recorded
            log.exception("queueing the webhook post of alert %s failed", breach_id)
