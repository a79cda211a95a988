"""Korean particles fitted to the word before them (service.i18n.particles), in every message."""
from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from service import i18n
from service.i18n.particles import PAIRS, last_syllable, resolve
from tests.support.paths import ROOT

PO = ROOT / "service" / "translations" / "ko" / "LC_MESSAGES" / "messages.po"


@pytest.mark.parametrize("text, fitted", [
    ("자체 보유이(가)", "자체 보유가"),          # vowel: 가
    ("최적 조합은(는)", "최적 조합은"),          # 합 ends in ㅂ: 은
    ("₩51.6억(으)로", "₩51.6억으로"),            # 억 ends in ㄱ: 으로
    ("서울(으)로", "서울로"),                    # ㄹ takes 로
    ("10%(으)로", "10%로"),                      # 퍼센트
    ("3(으)로", "3으로"), ("2(으)로", "2로"),    # 삼, 이
    ("7을(를)", "7을"), ("9을(를)", "9를"),      # 칠, 구
    ("120와(과)", "120과"),                      # 백이십: 십
    ("100은(는)", "100은"), ("1,000은(는)", "1,000은"), ("20,000은(는)", "20,000은"),
    ("2.5이(가)", "2.5가"), ("0이(가)", "0이"),  # 이점오, 영
    ("H100을(를)", "H100을"), ("L4이(가)", "L4가"),   # 백, 사
    ("AWS와(과)", "AWS와"), ("GPU은(는)", "GPU는"), ("XLSX(으)로", "XLSX로"),
    ("KRW(으)로", "KRW로"), ("USD(으)로", "USD로"),   # 유, 디: codes by letter
    ("Slurm을(를)", "Slurm을"), ("Excel(으)로", "Excel로"), ("Azure와(과)", "Azure와"),
    ("AM은(는)", "AM은"), ("p5와(과)", "p5와"), ("region은(는)", "region은"),
    ("'p5'와(과)", "'p5'와"), ("(H100)을(를)", "(H100)을"), ("<b>L4</b>이(가)", "<b>L4</b>가"),
    ("&#39;kW&#39;(으)로", "&#39;kW&#39;로"),
    ("자체 보유(이)라는 계획", "자체 보유라는 계획"), ("약정(이)며", "약정이며"),
])
def test_particles_follow_the_final_consonant(text, fitted):
    assert resolve(text) == fitted


def test_symbols_with_no_reading_keep_both_forms():
    assert resolve("-이(가)") == "-이(가)"
    assert last_syllable("") is None


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{(\w+)\}")
PAIR = "|".join(re.escape(p) for p in PAIRS)
AFTER_PLACEHOLDER = re.compile(rf"(?:%\(\w+\)[sd]|\{{\w+\}})(?={PAIR})")
BARE = re.compile(rf"(?:%\(\w+\)[sd]|\{{\w+\}})(?!{PAIR})(?:으로|로|이며|이고|이어야|여야|"
                  r"[이가은는을를와과](?![가-힣]))")


def korean_messages() -> list[str]:
    with PO.open("rb") as handle:
        catalog = read_po(handle)
    out = []
    for message in catalog:
        if message.id and message.string:
            out += [message.string] if isinstance(message.string, str) else list(message.string)
    return out


def fill(template: str, word: str) -> str:
    return PLACEHOLDER.sub(word, template)


def test_no_message_puts_a_fixed_particle_after_a_placeholder():
    """A placeholder may be any word: its particle is written as a pair and fitted."""
    fixed = [m for m in korean_messages() if BARE.search(m)]
    assert not fixed, fixed


def test_every_template_with_a_particle_reads_right_after_either_kind_of_word():
    """Each message with a particle after a placeholder, filled with a word ending in a
    consonant and with one ending in a vowel, keeps one form of each particle: the right one."""
    templates = [m for m in korean_messages() if AFTER_PLACEHOLDER.search(m)]
    assert len(templates) > 20
    for template in templates:
        for word, forms in (("₩51.6억", ("이", "은", "을", "과", "으로", "이라는", "이며", "이고",
                                        "이나", "이면")),
                            ("자체 보유", ("가", "는", "를", "와", "로", "라는", "며", "고",
                                         "나", "면"))):
            text = resolve(fill(template, word))
            assert not re.search(PAIR, text), (template, text)
            for particle in re.findall(rf"{re.escape(word)}({PAIR.replace('(', '').replace(')', '')}"
                                       r"|[가-힣]+)", text):
                assert particle.startswith(forms) or not particle.startswith(
                    ("이", "가", "은", "는", "을", "를", "와", "과", "으로", "로")), (template, text)


def test_gettext_fits_particles_in_korean_only():
    with i18n.using_locale("ko"):
        assert i18n.gettext("Revision %(number)s approved.", number=3) == "리비전 3을 승인했습니다."
        assert i18n.gettext("Revision %(number)s approved.", number=2) == "리비전 2를 승인했습니다."
    with i18n.using_locale("en"):
        assert i18n.gettext("Revision %(number)s approved.", number=2) == "Revision 2 approved."


def test_a_template_keeps_its_pairs_until_it_is_filled():
    """gettext of an engine template (filled in later by Message.render) leaves its pairs."""
    assert resolve("시간의 {util}을(를) 사용") == "시간의 {util}을(를) 사용"
    assert resolve("%(number)s을(를)") == "%(number)s을(를)"
    with i18n.using_locale("ko"):
        template = i18n.gettext("Buy 1 server ({gpus} GPUs) for the base load, busy {util} of "
                                "its installed GPU-hours.")
        assert "{util}을(를)" in template
