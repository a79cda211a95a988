"""Plan sentences as templates with typed parameters (models/messages.py)."""
from __future__ import annotations

import json

import pytest

from models.messages import (Message, Money, Months, Number, Percent, english,
                             message_from_json)


@pytest.mark.parametrize("value, text", [
    (Money(1_234_567, "USD"), "$1.2M"),           # millions, one decimal
    (Money(-2_500, "USD"), "-$2.5k"),
    (Money(999, "KRW"), "KRW 999"),
    (Money(3.2e9, "KRW"), "KRW 3.2B"),
    (Percent(0.256), "26%"),
    (Percent(0.256, 1), "25.6%"),
    (Number(12345.678, 1), "12,345.7"),
    (Months(12), "1 year"), (Months(36), "3 years"), (Months(18), "18 months"),
    (Months(1), "1 month"),
    ("optimal", "optimal"), (4, "4"),
])
def test_english_rendering(value, text):
    assert english(value) == text


def test_message_renders_own_or_translated_template():
    m = Message("Buy {n} servers, saving {saving}.", {"n": 4, "saving": Money(2e6, "USD")})
    assert m.text == "Buy 4 servers, saving $2.0M."
    assert m.render("서버 {n}대 구매, 절감액 {saving}.") == "서버 4대 구매, 절감액 $2.0M."


def test_json_round_trip_keeps_types():
    m = Message("{a} {b} {c} {d} {e}", {"a": Money(1.5, "EUR"), "b": Percent(0.5, 2),
                                        "c": Number(3, 0), "d": Months(24), "e": "x"})
    data = json.loads(json.dumps(m.as_json()))
    assert data["text"] == m.text
    assert message_from_json(data) == m
    with pytest.raises(ValueError, match="unknown parameter kind"):
        message_from_json({"template": "{a}", "params": {"a": {"kind": "bogus", "value": 1}}})
