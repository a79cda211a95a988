"""Reviews as rows (issue 16): request changes, comments on one assumption, approval reasons,
the review queues of the scenarios page, and the migration that allows them."""
from __future__ import annotations

import re

from sqlalchemy import create_engine, text

from service.web.tables import AuditEvent, Review
from tests.support.client import count

R1 = "/scenarios/1/revisions/1"


def _decide(client, decision, comment, field_path="", **extra):
    page = client.get(R1).get_data(as_text=True)
    digest = re.search(r'id="revision-hash">([0-9a-f]{64})<', page).group(1)
    return client.post(R1 + "/reviews", {"decision": decision, "comment": comment,
                                         "field_path": field_path, "revision_hash": digest,
                                         **extra})


ANONYMOUS = [("POST", "/scenarios/validate"), ("POST", "/scenarios/1/preview"),
             ("GET", "/scenarios/progress/" + "a" * 20), ("GET", "/scenarios/compare?a=1&b=2"),
             ("GET", "/scenarios/1/usage/1")]


def test_new_routes_need_a_login_and_keep_other_analysts_out(login):
    anonymous, otto = login(None), login("otto")
    for method, url in ANONYMOUS:
        response = anonymous.get(url) if method == "GET" else anonymous.post(url, {})
        assert response.status_code == 302 and "/login" in response.headers["Location"], url
    assert otto.get("/scenarios/compare?a=1&b=2").status_code == 404
    assert otto.get("/scenarios/1/usage/1").status_code == 404
    assert otto.post("/scenarios/1/preview", {}).status_code == 404


def test_request_changes_on_an_assumption_reaches_the_analyst(login, app):
    rita, ana = login("rita"), login("ana")
    assert "Awaiting your review" in rita.get("/scenarios/").get_data(as_text=True)
    queue = re.search(r'id="awaiting-review".*?</section>', rita.get("/scenarios/").get_data(
        as_text=True), re.S).group(0)
    assert "/scenarios/1/revisions/1" in queue and "/scenarios/2/" in queue
    assert _decide(rita, "changes", "The quote is from 2023; use this year's.",
                   "owned.server_price").status_code == 302
    html = rita.get(R1).get_data(as_text=True)
    assert "Changes requested on revision 1" in html
    assert "rita</strong> requested changes to revision 1" in html
    assert "about Owned servers: Server price: The quote" in html and "owned.server_price</code>" not in html
    queue = re.search(r'id="awaiting-review".*?</section>', rita.get("/scenarios/").get_data(
        as_text=True), re.S).group(0)
    assert "/scenarios/1/revisions/1" not in queue     # decided: no longer waiting
    index = ana.get("/scenarios/").get_data(as_text=True)
    changes = re.search(r'id="changes-requested".*?</section>', index, re.S).group(0)
    assert "use this year" in changes and "#field-owned.server_price" in changes
    assert "Awaiting your review" not in index         # analysts do not review
    events = count(app, AuditEvent)
    assert events >= 1


def test_an_approval_names_its_reason(login, app):
    rita = login("rita")
    before = (count(app, Review), count(app, AuditEvent))
    response = _decide(rita, "approve", "  ")
    assert response.status_code == 302 and (count(app, Review), count(app, AuditEvent)) == before
    assert "An approval names its reason" in rita.get(R1).get_data(as_text=True)
    assert _decide(rita, "approve", "Prices match the Q3 quotes.").status_code == 302
    html = rita.get(R1).get_data(as_text=True)
    assert "approved revision 1" in html and "reason: Prices match the Q3 quotes." in html
    audit = rita.get("/audit").get_data(as_text=True)
    assert "review.approve" in audit and "Prices match the Q3 quotes." in audit


def test_a_field_path_must_be_an_assumption_of_the_revision(login, app):
    rita = login("rita")
    before = count(app, Review)
    assert _decide(rita, "changes", "x", "owned.nonsense").status_code == 302
    assert count(app, Review) == before
    assert _decide(rita, "maybe", "x").status_code == 400


def test_decisions_are_new_rows_and_the_last_one_counts(login, app):
    rita = login("rita")
    _decide(rita, "changes", "Check the PUE.", "owned.pue")
    _decide(rita, "comment", "Also the colocation price.", "owned.space_price_per_kw_month")
    # approving over the request for changes says so (issue 25; the next test)
    _decide(rita, "approve", "PUE confirmed by the facility.", confirm_after_changes="yes")
    with app.app_context():
        from service.web.db import write_session
        with write_session() as s:
            rows = s.execute(text("SELECT decision, field_path FROM reviews WHERE "
                                  "revision_id = 1 ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [("changes", "owned.pue"),
                                        ("comment", "owned.space_price_per_kw_month"),
                                        ("approve", None)]
    assert "binds to revision 1" in rita.get(R1).get_data(as_text=True)


def test_approving_over_a_request_for_changes_needs_the_confirmation_field(login, app):
    """Without JavaScript the server asks (issue 25): an approval of a revision whose last
    decision requested changes is refused, nothing stored, until the form says
    confirm_after_changes=yes; the form offers that field only then."""
    rita = login("rita")
    form = re.search(r'id="review-form".*?</form>', rita.get(R1).get_data(as_text=True), re.S)
    assert "confirm_after_changes" not in form.group(0)  # nothing requested yet
    _decide(rita, "changes", "Use this quarter's server quote.", "owned.server_price")
    html = rita.get(R1).get_data(as_text=True)
    form = re.search(r'<form[^>]*id="review-form".*?</form>', html, re.S).group(0)
    assert 'name="confirm_after_changes" value="yes"' in form
    assert "Approve it anyway?" in form and "Use this quarter&#39;s server quote." in form
    before = (count(app, Review), count(app, AuditEvent))
    response = _decide(rita, "approve", "Quote checked after all.")
    assert response.status_code == 302 and response.headers["Location"].endswith(R1 + "#review")
    assert (count(app, Review), count(app, AuditEvent)) == before
    html = rita.get(R1).get_data(as_text=True)
    assert "to approve it anyway, tick" in html and "approved revision 1" not in html
    assert _decide(rita, "approve", "Quote checked after all.",
                   confirm_after_changes="yes").status_code == 302
    html = rita.get(R1).get_data(as_text=True)
    assert "approved revision 1" in html and "reason: Quote checked after all." in html
    form = re.search(r'id="review-form".*?</form>', html, re.S).group(0)
    assert "confirm_after_changes" not in form          # approved now: no request to override


def test_the_review_panel_is_reachable_from_the_top_of_the_plan_page(login):
    """The approval box at the top links to the review panel at the foot (issue 25): for a
    reviewer to the form, for others to the reviews."""
    html = login("rita").get(R1).get_data(as_text=True)
    top = html.split('id="approval"')[1].split("</div>")[0]
    assert '<a href="#review" id="review-link">Review this revision' in top
    assert html.index('id="review-link"') < html.index('id="recommendation"')
    assert 'id="review"' in html and 'id="review-form"' in html
    top = login("ana").get(R1).get_data(as_text=True).split('id="approval"')[1]
    assert "Reviews of this revision (0)" in top.split("</div>")[0]


def test_the_review_form_offers_every_assumption(login):
    html = login("rita").get(R1).get_data(as_text=True)
    form = re.search(r'id="review-form".*?</form>', html, re.S).group(0)
    assert 'value="owned.server_price">Owned servers: Server price</option>' in form
    assert 'id="request-changes"' in form and 'id="approve"' in form and 'id="reject"' in form


def _migration():
    """This branch's migration module (its revision id changes when it is re-chained)."""
    import importlib.util

    from service.paths import MIGRATIONS
    path = next((MIGRATIONS / "versions").glob("*_review_decisions.py"))
    spec = importlib.util.spec_from_file_location("review_migration", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_migration_keeps_triggers_on_reviews_and_allows_the_new_decision(tmp_path):
    """Another migration may guard ``reviews`` with triggers; where the decision CHECK still
    exists, this one copies the table on SQLite and must bring the triggers back unchanged."""
    from alembic import command
    from alembic.config import Config

    from service.paths import MIGRATIONS
    migration = _migration()
    engine = create_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, migration.down_revision)
        had_check = "ck_reviews_decision" in conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE name = 'reviews'").scalar()
        conn.exec_driver_sql("CREATE TRIGGER review16_guard BEFORE UPDATE ON reviews "
                             "BEGIN SELECT RAISE(ABORT, 'reviews is append-only'); END")
        before = sorted(r[0] for r in conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reviews'"))
        command.upgrade(config, migration.revision)
        after = sorted(r[0] for r in conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'reviews'"))
        columns = [r[1] for r in conn.exec_driver_sql("PRAGMA table_info(reviews)")]
    assert after == before and "field_path" in columns
    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO users (id, username, password_hash, role, created_at)"
                             " VALUES (1, 'u', 'x', 'reviewer', 'now')")
        conn.exec_driver_sql("INSERT INTO scenarios VALUES (1, 's', 1, 'now')")
        conn.exec_driver_sql("INSERT INTO revisions (id, scenario_id, number, author_id, "
                             "created_at, assumptions, content_hash, note) VALUES "
                             "(1, 1, 1, 1, 'now', '{}', 'h', '')")
        extra = ", revision_hash" if "revision_hash" in columns else ""
        conn.exec_driver_sql("INSERT INTO reviews (revision_id, reviewer_id, decision, comment,"
                             f" created_at, field_path{extra}) VALUES (1, 1, 'changes', 'c', "
                             f"'now', 'owned.pue'{', ' + repr('h') if extra else ''})")
    import pytest
    from sqlalchemy.exc import DatabaseError
    with pytest.raises(DatabaseError, match="append-only"):
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE reviews SET comment = 'x'")
    if had_check:  # widened, not dropped
        with pytest.raises(DatabaseError, match="CHECK constraint"):
            with engine.begin() as conn:
                conn.exec_driver_sql("INSERT INTO reviews (revision_id, reviewer_id, decision,"
                                     " comment, created_at) VALUES (1, 1, 'maybe', '', 'now')")
    engine.dispose()


def test_a_request_for_changes_that_lands_during_an_approval_stops_it(login, app,
                                                                      monkeypatch):
    """Two reviewers racing (issue 40): rita approves while rex's request for changes commits
    between rita's first look and her write. Read before the write, the unconfirmed approval
    landed after the request in 16 of 20 rounds; checked in the writing transaction, it is
    refused and nothing of it is stored."""
    import service.plans.views as views
    from service.web.db import write_session
    from service.web.tables import Revision, User
    real = views.parse_review

    def meanwhile(revision, *args, **kwargs):   # rex's request commits now, after rita's check
        with write_session() as s:
            rex = s.query(User).filter_by(username="rex").one()
            rev = s.get(Revision, revision.id)
            s.add(Review(revision_id=rev.id, revision_hash=rev.content_hash,
                         reviewer_id=rex.id, decision="changes", comment="Wait for the quote."))
        return real(revision, *args, **kwargs)

    monkeypatch.setattr(views, "parse_review", meanwhile)
    rita = login("rita")
    response = _decide(rita, "approve", "Looks right.")
    assert response.status_code == 302 and response.headers["Location"].endswith(R1 + "#review")
    with app.app_context():
        with write_session() as s:
            decisions = [r.decision for r in s.query(Review).order_by(Review.id)]
    assert decisions[-1] == "changes" and "approve" not in decisions
    assert "to approve it anyway, tick" in rita.get(R1).get_data(as_text=True)
