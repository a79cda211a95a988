"""Hostile uploads through the web form (issue 8.3, design 7): one test per attack.

Each test asserts the HTTP status, the message the user sees and that nothing was saved (row
counts of every table before and after). Uploads go to ana's scenario 1 as ana.
"""
from __future__ import annotations

import html
import io
import re

import pytest

from service.web.tables import UsageFile, User
from tests.support.hostile import snapshot
from tests.support.ingest_fixtures import raw_xlsx, sheet_xml, zip_bomb
from tests.support.paths import SAMPLE_USAGE

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

UPLOAD = "/scenarios/1/usage"
GOOD_CSV = SAMPLE_USAGE.read_bytes()
SMALL_CSV = b"".join(GOOD_CSV.splitlines(keepends=True)[:24 * 60 + 1])   # 60 days, hourly
GOOD_ROWS = [["timestamp", "gpu_hours"]] + [[46023 + d, 100 + d] for d in range(28)]


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

    from service.web.db import write_session
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
    from tests.support.ingest_fixtures import WORKBOOK
    return WORKBOOK.replace("\n", "\n" + prologue, 1)


# -- issue 12: the outside security test (index in tests/web/test_hostile_web.py) ------------------

def test_csv_header_field_over_the_csv_limit_is_422_naming_the_column(login, app):
    """A CSV header field of 131,073 characters raised _csv.Error: 500."""
    name = "x" * 131_073
    data = f"timestamp,{name}\n2026-01-01,5\n".encode()
    page = refused(app, login("ana"), data, "usage.csv", 422, "Nothing was saved",
                   "the header's column 2 is 131,073 characters long",
                   "x" * 80 + "... (131,073 characters)")
    assert len(page) < 50_000
    quoted = f'timestamp,"{name},{name}"\n2026-01-01,5\n'.encode()   # the csv module's own limit
    refused(app, login("ana"), quoted, "usage.csv", 422, "characters long")


def test_api_usage_column_name_over_the_limit_is_422(app):
    from service.web.users import create_token
    from service.web.db import write_session
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "t")
    response = app.test_client().post(
        "/api/v1/plans", headers={"Authorization": f"Bearer {token}"},
        json={"usage": [{"timestamp": "2026-01", "gpu_hours": 1, "y" * 131_073: 1}]})
    assert response.status_code == 422
    assert "column 3 is 131,073 characters long" in response.get_json()["error"]["message"]
    assert len(response.get_data()) < 10_000


def test_a_15_mb_cell_is_echoed_cut_to_80_characters(login, app):
    """One 15 MB cell came back in a 31.4 MB 422 page (in the message and the details)."""
    cell = "9" * 7 + "z" * 14_999_993
    data = f"timestamp,gpu_hours\n2026-01-01,{cell}\n2026-01-02,5\n".encode()
    page = refused(app, login("ana"), data, "usage.csv", 422, "row 2",
                   f"got '{cell[:80]}'... (15,000,000 characters)")
    assert len(page) < 50_000
    from service.web.users import create_token
    from service.web.db import write_session
    with app.app_context():
        with write_session() as s:
            token = create_token(s, s.query(User).filter_by(username="ana").one(), "t")
    response = app.test_client().post(
        "/api/v1/plans", headers={"Authorization": f"Bearer {token}"},
        data={"usage": (io.BytesIO(data), "u.csv")}, content_type="multipart/form-data")
    assert response.status_code == 422 and len(response.get_data()) < 50_000
    assert "(15,000,000 characters)" in response.get_json()["error"]["details"][0]["message"]


def test_error_bodies_are_bounded_whatever_they_quote(login, app):
    """Thousands of bad cells, each long: 20 problems and a count, each value cut."""
    rows = "".join(f"2026-01-{1 + d % 28:02d},{'q' * 5000}{d}\n" for d in range(3000))
    data = ("timestamp,gpu_hours\n" + rows).encode()
    page = refused(app, login("ana"), data, "usage.csv", 422, "more problems")
    assert len(page) < 100_000


FORMULAS = ['=HYPERLINK("http://x","y")', "+1+cmd|' /C calc'!A0", "@SUM(1)", "-3+4", "\t=5",
            "\r=6", "  =7"]


def test_downloaded_usage_file_cannot_run_formulas(login, app):
    """Team cells such as =HYPERLINK(...), +1+cmd|' /C calc'!A0 or @SUM(1) came back byte for
    byte and ran when a reviewer opened the file in a spreadsheet."""
    from tests.support.hostile import attach_usage, usage_csv
    import csv
    import hashlib
    ana = login("ana")
    original = usage_csv(FORMULAS + ["plain team", "-2"], days=40)
    number = attach_usage(ana, 1, original, "teams.csv")
    rita = login("rita")
    base = f"/scenarios/1/revisions/{number}"
    safe = rita.get(base + "/usage")
    assert safe.status_code == 200 and safe.mimetype == "text/csv"
    assert re.fullmatch(r'attachment; filename="usage-[0-9a-f]{12}\.csv"',
                        safe.headers["Content-Disposition"])
    rows = list(csv.reader(io.StringIO(safe.get_data(as_text=True))))
    teams = {row[3] for row in rows[1:]}
    assert {"'" + f for f in FORMULAS} <= teams, teams
    assert "plain team" in teams and "-2" in teams       # plain text and numbers unchanged
    assert not any(t[:1] in "=+-@\t\r" and t != "-2" for t in teams)
    assert [row[:3] for row in rows] == [row[:3] for row in csv.reader(
        io.StringIO(original.decode()))]                   # the usage itself is unchanged
    # the original bytes, named as such, with the SHA-256 the approval binds to
    raw = rita.get(base + "/usage/original")
    digest = hashlib.sha256(original).hexdigest()
    assert raw.get_data() == original
    assert raw.headers["X-Content-SHA256"] == digest
    assert '-original.csv"' in raw.headers["Content-Disposition"]
    page = rita.get(base).get_data(as_text=True)
    assert digest in page and "formulas escaped" in page


def test_downloaded_xlsx_usage_is_values_only_csv(login, app):
    from tests.support.hostile import attach_usage
    rows = [["timestamp", "gpu_hours", "team"]] + \
        [[46023 + d, 100 + d, FORMULAS[d % len(FORMULAS)].strip()] for d in range(28)]
    workbook = raw_xlsx(sheet_xml(rows))
    number = attach_usage(login("ana"), 1, workbook, "teams.xlsx")
    safe = login("rita").get(f"/scenarios/1/revisions/{number}/usage")
    import csv
    table = list(csv.reader(io.StringIO(safe.get_data(as_text=True))))
    assert safe.mimetype == "text/csv" and table[0] == ["timestamp", "gpu_hours", "team"]
    assert table[1] == ["46023", "100", '\'=HYPERLINK("http://x","y")']
    assert all(row[2].startswith("'") for row in table[1:])
    original = login("rita").get(f"/scenarios/1/revisions/{number}/usage/original")
    assert original.get_data() == workbook
    assert '-original.xlsx"' in original.headers["Content-Disposition"]


def test_safe_copy_of_a_plain_file_plans_the_same(login, app):
    from service.ingest import read_usage
    data = login("ana").get("/scenarios/1/revisions/1/usage").get_data()
    assert read_usage(data, "u.csv").profile.gpu_hours == \
        read_usage(GOOD_CSV, "u.csv").profile.gpu_hours


IMPORT = "/scenarios/1/import"


def import_workbook(client, data: bytes):
    return client.post(IMPORT, {"workbook": (io.BytesIO(data), "plan.xlsx")},
                       content_type="multipart/form-data")


def test_workbook_import_refuses_parts_outside_the_archive(login, app):
    """The workbook import took a zip part named ../x.xml (the upload route refuses it)."""
    ana = login("ana")
    for name in ("../x.xml", "/etc/x.xml", "xl/../../x.xml", "C:x.xml"):
        data = raw_xlsx(sheet_xml(GOOD_ROWS), {name: "<x/>"})
        before = snapshot(app)
        response = import_workbook(ana, data)
        text = html.unescape(response.get_data(as_text=True))
        assert response.status_code == 422, name
        assert "unsafe part name" in text, name
        assert snapshot(app) == before


def test_workbook_import_never_shows_library_exception_text(login, app):
    """Damaged workbooks showed openpyxl's exception text (type, message, file internals)."""
    from openpyxl import Workbook
    ana = login("ana")
    broken = raw_xlsx(sheet_xml(GOOD_ROWS), {"xl/workbook.xml": "<workbook><sheets><sheet"})
    mixed = Workbook()
    sheet = mixed.active
    sheet.title = "Assumptions"
    sheet.append(["Path", "Setting", "Value"])
    sheet.append(["owned", "", 1])           # a value and a section at one path
    sheet.append(["owned.pue", "", 1.2])
    buffer = io.BytesIO()
    mixed.save(buffer)
    for data in (broken, buffer.getvalue()):
        response = import_workbook(ana, data)
        text = html.unescape(response.get_data(as_text=True))
        assert response.status_code == 422
        assert "Cannot read the workbook" in text
        for leak in ("Error:", "ParseError", "KeyError", "TypeError", "object does not support",
                     "Traceback", "line 1, column"):
            assert leak not in text, leak
