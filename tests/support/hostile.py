"""Shared pieces of the hostile-input tests (tests/web/test_hostile_*.py): the row counts of
every table, which must not change when an attack is refused, and a usage file attached to a
scenario through the pages."""
from __future__ import annotations

import datetime
import html
import io
import re

from service.web.tables import (ApiToken, AuditEvent, PlanRecord, Review, Revision, ScenarioRecord,
                        UsageFile, User)
from tests.support.client import count

TABLES = (User, ApiToken, UsageFile, ScenarioRecord, Revision, PlanRecord, Review, AuditEvent)


def snapshot(app) -> dict:
    return {model.__name__: count(app, model) for model in TABLES}


def page_text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def attach_usage(client, scenario_id: int, data: bytes, filename: str) -> int:
    response = client.post(f"/scenarios/{scenario_id}/usage",
                           {"usage": (io.BytesIO(data), filename)},
                           content_type="multipart/form-data")
    assert response.status_code == 200, page_text(response)[:1500]
    file_id = int(re.search(r"/usage/(\d+)/attach", response.get_data(as_text=True)).group(1))
    response = client.post(f"/scenarios/{scenario_id}/usage/{file_id}/attach")
    assert response.status_code == 302, page_text(response)[:1500]
    return int(response.headers["Location"].rsplit("/", 1)[1])


def day(d: int) -> str:
    return (datetime.date(2026, 1, 1) + datetime.timedelta(days=d)).isoformat()


def usage_csv(teams: list[str], days: int = 60) -> bytes:
    lines = ["timestamp,gpu_hours,workload,team"]
    for d in range(days):
        for h in range(24):
            team = teams[(d * 24 + h) % len(teams)].replace('"', '""')
            lines.append(f'{day(d)}T{h:02d}:00:00,{20 + (h % 7)},steady,"{team}"')
    return ("\n".join(lines) + "\n").encode()
