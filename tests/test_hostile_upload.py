"""Hostile uploads through the web form (issue 8.3, design 7): one test per attack.

Each test asserts the HTTP status, the message the user sees and that nothing was saved (row
counts of every table before and after). Uploads go to ana's scenario 1 as ana.
"""
from __future__ import annotations

import html
import io
import re

import pytest

from service.db import (ApiToken, AuditEvent, PlanRecord, Review, Revision, ScenarioRecord,
                        UsageFile, User)
from tests.conftest import SAMPLE_USAGE, count
from tests.ingest_fixtures import raw_xlsx, sheet_xml, zip_bomb

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

UPLOAD = "/scenarios/1/usage"
TABLES = (User, ApiToken, UsageFile, ScenarioRecord, Revision, PlanRecord, Review, AuditEvent)
GOOD_CSV = SAMPLE_USAGE.read_bytes()
SMALL_CSV = b"".join(GOOD_CSV.splitlines(keepends=True)[:24 * 60 + 1])   # 60 days, hourly
GOOD_ROWS = [["timestamp", "gpu_hours"]] + [[46023 + d, 100 + d] for d in range(28)]


def snapshot(app) -> dict:
    return {model.__name__: count(app, model) for model in TABLES}


def upload(client, data: bytes, filename: str, content_type: str | None = None, **extra):
    file = (io.BytesIO(data), filename, content_type) if content_type else \
        (io.BytesIO(data), filename)
    return client.post(UPLOAD, {"usage": file, **extra}, content_type="multipart/form-data")


def refused(app, client, data, filename, status, *messages, content_type=None):
    """Post the file; assert status and messages and that no table changed; return the page."""
    before = snapshot(app)
    response = upload(client, data, filename, content_type)
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == status, page[:800]
    for message in messages:
        assert message in page, (message, page[:2000])
    assert snapshot(app) == before
    return page


def test_oversized_request_body_is_413_and_saves_nothing(login, app):
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024
    page = refused(app, login("ana"), GOOD_CSV, "usage.csv", 413, "Request Entity Too Large",
                   "exceeds the capacity limit")
    assert "Traceback" not in page


def test_too_many_form_parts_is_413_and_saves_nothing(login, app):
    client = login("ana")
    before = snapshot(app)
    fields = {f"f{i}": "x" for i in range(1500)}
    response = client.post(UPLOAD, {"usage": (io.BytesIO(GOOD_CSV), "usage.csv"), **fields},
                           content_type="multipart/form-data")
    page = html.unescape(response.get_data(as_text=True))
    assert response.status_code == 413, page[:500]
    assert "Request Entity Too Large" in page and "Traceback" not in page
    assert snapshot(app) == before


@pytest.mark.parametrize("filename,suffix", [("usage.csv.exe", ".exe"),
                                             ("plan.xlsx.php", ".php")])
def test_double_extension_is_refused(login, app, filename, suffix):
    refused(app, login("ana"), GOOD_CSV, filename, 422, "Nothing was saved",
            f"unsupported file type '{suffix}'", filename)


@pytest.mark.parametrize("filename", ["../../etc/passwd.csv", "..\\..\\windows\\win.ini.csv",
                                      "a\x00.csv", "/etc/cron.d/x.csv"])
def test_traversal_and_nul_in_file_names_never_reach_storage(login, app, filename):
    """The upload is accepted (the bytes are fine) but the name is only a label: the file is
    stored in the database under its SHA-256, no file appears in the instance folder, the
    stored label has no directories or NUL, and downloads are named usage-<sha>.csv."""
    instance = app.instance_path
    import os
    before_files = sorted(os.listdir(instance))
    client = login("ana")
    before = snapshot(app)
    response = upload(client, SMALL_CSV, filename)
    assert response.status_code == 200, response.get_data(as_text=True)[:800]
    after = snapshot(app)
    assert after["UsageFile"] == before["UsageFile"] + 1
    assert sorted(os.listdir(instance)) == before_files
    from sqlalchemy import select

    from service.db import write_session
    with app.app_context():
        with write_session() as s:
            row = s.scalars(select(UsageFile).order_by(UsageFile.id.desc())).first()
            stored, file_id = row.filename, row.id
    # (werkzeug already drops the backslashes of a Windows path; the label keeps no separator)
    assert "/" not in stored and "\\" not in stored and "\x00" not in stored
    assert stored.endswith(".csv")
    # attached, the download name is derived from the hash, never from the client's name
    assert client.post(f"{UPLOAD}/{file_id}/attach").status_code == 302
    response = client.get("/scenarios/1/revisions/2/usage")
    disposition = response.headers["Content-Disposition"]
    assert re.fullmatch(r'attachment; filename="usage-[0-9a-f]{12}\.csv"', disposition)


def test_spoofed_content_type_png_on_a_csv_is_read_by_content(login, app):
    """The browser's content type is ignored: a real CSV labelled image/png is read as CSV
    (preview, 200), and a PNG labelled text/csv is refused by its bytes."""
    client = login("ana")
    response = upload(client, SMALL_CSV, "usage.csv", "image/png")
    assert response.status_code == 200
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200
    refused(app, client, png, "usage.csv", 422, "Nothing was saved", "a PNG image",
            content_type="text/csv")


def test_spoofed_content_type_text_csv_on_an_xlsx_is_read_as_xlsx(login, app):
    client = login("ana")
    response = upload(client, raw_xlsx(sheet_xml(GOOD_ROWS)), "usage.xlsx", "text/csv")
    assert response.status_code == 200, response.get_data(as_text=True)[:800]
    assert "28 rows" in response.get_data(as_text=True)


def test_text_file_renamed_xlsx_is_refused(login, app):
    refused(app, login("ana"), SMALL_CSV, "usage.xlsx", 422, "Nothing was saved",
            "the file is named .xlsx but is text, not an Excel workbook")


def test_encrypted_ole_workbook_is_refused(login, app):
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512 + \
        "EncryptionInfo".encode("utf-16-le") + b"\x00" * 512
    refused(app, login("ana"), ole, "budget.xlsx", 422, "Nothing was saved",
            "password-protected (encrypted)")


@pytest.mark.parametrize("case", ["xlsm name", "vbaProject.bin inside .xlsx"])
def test_macro_workbook_is_refused(login, app, case):
    if case == "xlsm name":
        data, name = raw_xlsx(sheet_xml(GOOD_ROWS)), "usage.xlsm"
    else:
        data, name = raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/vbaProject.bin": b"\x00" * 64}), \
            "usage.xlsx"
    refused(app, login("ana"), data, name, 422, "Nothing was saved",
            "macro-enabled Excel workbook (.xlsm)")


def test_zip_bomb_is_refused(login, app, tmp_path):
    zip_bomb(tmp_path / "bomb.xlsx")
    refused(app, login("ana"), (tmp_path / "bomb.xlsx").read_bytes(), "bomb.xlsx", 422,
            "Nothing was saved", "refused as a likely zip bomb")


BILLION_LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 or "")) * 10}">'
                            for i in range(1, 10)) + "]>")


def test_xml_bomb_billion_laughs_is_refused(login, app):
    data = raw_xlsx(sheet_xml(GOOD_ROWS, prologue=BILLION_LAUGHS))
    refused(app, login("ana"), data, "laughs.xlsx", 422, "Nothing was saved",
            "declares a DOCTYPE or ENTITY (an XML bomb or external entity attempt)")


def test_external_entity_xxe_is_refused(login, app):
    xxe = '<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    rows = [["timestamp", "gpu_hours"], [46023, "&xxe;"]]
    data = raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/workbook.xml": raw_workbook_with(xxe)})
    page = refused(app, login("ana"), data, "xxe.xlsx", 422, "Nothing was saved",
                   "declares a DOCTYPE or ENTITY")
    assert "root:" not in page           # nothing of /etc/passwd leaks into the page
    data = raw_xlsx(sheet_xml(rows, prologue=xxe))
    refused(app, login("ana"), data, "xxe2.xlsx", 422, "declares a DOCTYPE or ENTITY")


def raw_workbook_with(prologue: str) -> str:
    from tests.ingest_fixtures import WORKBOOK
    return WORKBOOK.replace("\n", "\n" + prologue, 1)
