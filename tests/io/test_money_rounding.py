"""One rounding rule per amount (issue 37, item 5): half away from zero, in every kind of
money() that shortens an amount and in the whole kinds. Babel alone rounds half to even, which
made 3,850,000 read "$3.8M" in a sentence while 3,850,000.01 nearby read "$3.9M"."""
import pytest

from service.i18n import formats


@pytest.mark.parametrize("value", [3_850_000, 3_850_000.0, 3_850_000.01])
def test_a_tie_in_millions_reads_the_same_in_sentences(value):
    assert formats.money(value, "USD", "short", "en") == "$3.9M"
    assert formats.money(-value, "USD", "short", "en") == "-$3.9M"


def test_every_kind_that_shortens_rounds_half_away_from_zero():
    # "short" shortens in both languages; "card" shortens won of 1억 and more in Korean.
    assert formats.money(3_850_000, "USD", "short", "en") == "$3.9M"
    assert formats.money(3_850_000, "USD", "short", "ko") == "US$385만"
    assert formats.money(1_225_000_000, "KRW", "short", "ko") == "₩12.3억"
    assert formats.money(1_225_000_000, "KRW", "card", "ko") == "₩12.3억"
    assert formats.money(-1_225_000_000, "KRW", "card", "ko") == "-₩12.3억"
    # the English card is a whole total: the same amount, unshortened
    assert formats.money(3_850_000, "USD", "card", "en") == "$3,850,000"


def test_whole_and_rate_kinds_use_the_same_rule():
    assert formats.money(1234.5, "USD", "total", "en") == "$1,235"
    assert formats.money(1235.5, "USD", "total", "en") == "$1,236"
    assert formats.money(12.345, "USD", "total", "en") == "$12.35"     # float just below the tie
    assert formats.money(2.20365, "USD", "rate", "en") == "$2.2037"
    assert formats.money(120.5, "KRW", "total", "ko") == "₩121"
