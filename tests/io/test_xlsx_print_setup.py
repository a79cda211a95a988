"""The print scale rule of service/xlsx/print_setup.py (issue 25): fit a print area to its page
only while the text stays at 8 pt or more, else print at 75 %."""
from __future__ import annotations

import pytest

from service.xlsx.print_setup import (FONT_SIZE, MIN_SCALE, PAGE_HEIGHT, PAGE_WIDTH,
                                      column_points, fit)


def test_page_is_a4_landscape_less_the_margins():
    # 841.9 - 72 x (0.4 + 0.4) = 784.3 pt wide; 595.3 - 72 x (0.5 + 0.6) - 14 = 502.1 pt tall
    assert PAGE_WIDTH == pytest.approx(784.3)
    assert PAGE_HEIGHT == pytest.approx(502.1)
    assert FONT_SIZE * MIN_SCALE / 100 >= 8.0           # 11 pt x 75 % = 8.25 pt


@pytest.mark.parametrize("width, expected", [(14, 77.25), (12, 66.75), (34, 182.25)])
def test_column_width_in_points(width, expected):
    # XlsxWriter: int(7 w + 0.5) + 5 pixels; 14 -> 103 px -> 77.25 pt, 34 -> 243 px
    assert column_points(width) == pytest.approx(expected)


@pytest.mark.parametrize("width, height, pages, scale", [
    (784.0, 502.0, 1, None),      # fits at 100 %
    (900.0, 600.0, 1, None),      # min(784.3/900, 502.1/600) = 0.837: fit
    (900.0, 700.0, 1, 75),        # 502.1/700 = 0.717 < 0.75: print at 75 %, two pages
    (900.0, 700.0, 2, None),      # two pages tall: 1004.2/700 > 1, width 0.871: fit
    (2000.0, 100.0, 1, 75),       # 784.3/2000 = 0.39: too wide to fit readably
])
def test_fit_only_while_readable(width, height, pages, scale):
    assert fit(width, height, pages) == scale
