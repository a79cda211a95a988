"""The plan PDF without Chromium (issue 25): a clear message with 503, not a 500, and no
download audited."""
from __future__ import annotations

from sqlalchemy import select

from service.web.db import write_session
from service.web.tables import AuditEvent


def test_without_chromium_the_pdf_download_says_what_is_missing(login, app, monkeypatch):
    monkeypatch.setenv("BUYRENT_CHROMIUM", "/nonexistent/chromium")
    response = login("rita").get("/scenarios/1/revisions/1/plan.pdf")
    assert response.status_code == 503
    html = response.get_data(as_text=True)
    assert "The PDF is made by Chromium, which is not installed on this server" in html
    assert "scripts/system-packages" in html and "Error id" not in html
    with app.app_context():
        with write_session() as s:
            assert s.scalars(select(AuditEvent).where(AuditEvent.action == "download")
                             ).all() == []


def test_the_pdf_needs_a_login_and_a_revision_the_user_may_see(login):
    assert login(None).get("/scenarios/1/revisions/1/plan.pdf").status_code == 302
    assert login("otto").get("/scenarios/1/revisions/1/plan.pdf").status_code == 404
