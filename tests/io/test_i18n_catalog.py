"""The Korean catalog is complete, current, compiled and consistent (issue 15).

A message, a field label, unit, help or source without a Korean translation fails here, and so
does a fuzzy entry, a translation whose placeholders differ from its msgid, a string in the
code that the catalog does not know yet (run scripts/i18n extract + update), and a compiled
.mo that is older than its .po (run scripts/i18n compile).
"""
from __future__ import annotations

import io
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from service.i18n import TRANSLATIONS, translations
from service.i18n.extract import assumption_texts, schema_texts
from service.paths import ROOT

PO = TRANSLATIONS / "ko" / "LC_MESSAGES" / "messages.po"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "Message": None,
            "tr": None, "Column": (2,)}
PERCENT = re.compile(r"%\((\w+)\)[sd]")
BRACES = re.compile(r"\{(\w+)\}")


@pytest.fixture(scope="module")
def catalog():
    with PO.open("rb") as fp:
        return read_po(fp, locale="ko")


def entries(catalog):
    return [m for m in catalog if m.id]


def forms(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) \
        else [message.string]


def msgids(message) -> list[str]:
    return list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]


def test_every_message_has_a_korean_translation(catalog):
    missing = [m.id for m in entries(catalog) if not all(forms(m))]
    assert not missing, f"{len(missing)} untranslated, e.g. {missing[:5]}"
    assert len(entries(catalog)) > 700


def test_no_translation_is_fuzzy(catalog):
    assert [m.id for m in entries(catalog) if m.fuzzy] == []


def test_placeholders_are_the_same_in_msgid_and_msgstr(catalog):
    bad = []
    for m in entries(catalog):
        for pattern in (PERCENT, BRACES):
            wanted = set().union(*(pattern.findall(i) for i in msgids(m)))
            for text in forms(m):
                if set(pattern.findall(text)) != wanted:
                    bad.append((m.id, text))
    assert bad == []


def test_gettext_format_checks_pass(catalog):
    """Babel's own checkers (the ones ``pybabel compile`` runs)."""
    problems = [(m.id, [str(e) for e in errors]) for m, errors in catalog.check()]
    assert problems == []


def test_catalog_knows_every_string_of_the_code(catalog):
    with (ROOT / "babel.cfg").open() as fp:
        method_map, options_map = parse_mapping_cfg(fp)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        found.add(message if isinstance(message, str) else tuple(message))
    known = {m.id if isinstance(m.id, str) else tuple(m.id) for m in entries(catalog)}
    stale = sorted(str(x) for x in found - known)
    assert not stale, f"run scripts/i18n extract && scripts/i18n update: {stale[:5]}"


@pytest.mark.parametrize("texts", [schema_texts, assumption_texts])
def test_every_field_label_unit_help_and_source_is_translated(catalog, texts):
    by_id = {m.id: m for m in entries(catalog)}
    missing = [(path, what, text) for path, what, text in texts()
               if text not in by_id or not by_id[text].string]
    assert missing == []
    labels = [text for path, what, text in texts() if what == "label"]
    assert "온디맨드 가격" in {translations("ko").gettext(t) for t in labels}


def test_compiled_catalog_is_current(catalog):
    """The .mo the service reads says what the .po says (scripts/bootstrap compiles it)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    fresh = Translations(buffer)
    compiled = translations("ko")
    for m in entries(catalog):
        if isinstance(m.id, str):
            assert compiled.gettext(m.id) == fresh.gettext(m.id), m.id


def test_glossary_terms_are_used_consistently(catalog):
    """The glossary of docs/README-i18n.md: one Korean word per concept."""
    text = {m.id: forms(m)[0] for m in entries(catalog) if isinstance(m.id, str)}
    assert text["On demand"] == "온디맨드" and text["Spot"] == "스팟"
    assert text["Egress"] == "이그레스" and text["Breakeven"] == "손익분기점"
    assert text["Utilization"] == "가동률" and text["Checkpoint write time"].startswith("체크포인트")
    bad = []
    for english, korean in (("on demand", "온디맨드"), ("spot", "스팟"),
                            ("commitment", "약정"), ("utilization", "가동률")):
        for msgid, msgstr in text.items():
            named = (msgid in SOURCES_WITH_NAMES or "Spot Advisor" in msgid
                     or "utilization.gpu" in msgid)   # a command line, not a word
            if re.search(rf"\b{english}\b", msgid, re.I) and not named:
                bad.append((msgid, msgstr)) if korean not in msgstr else None
    assert bad == []


# Citations whose English words are product or report names, not our vocabulary.
SOURCES_WITH_NAMES = {
    "AWS p5 spot from $11.25/h vs $55.04/h (us-east-2)",
    "catalog AWS p5 spot $1.41-$2.20 vs $6.88 on demand",
    "SkyPilot catalog, 8x H100 on demand per GPU-hour: Nebius $2.95, Lambda $3.99, AWS $6.88, "
    "GCP us-east4 GPU-only $9.80: Lambda is 42 % below AWS",
    "SkyPilot catalog, 8x H100 on demand per GPU-hour: Nebius $2.95, Lambda $3.99, AWS $6.88, "
    "GCP us-east4 GPU-only $9.80 (scarcity premium, estimate)",
}
