"""Every public function of models/ that computes money, a time or a quantity says how, in a
numpydoc Notes section with the formula (issue 36, item 5).

numpy-financial's style: the formula as the code computes it, in a ``.. math::`` block or on a
plain line with ``=``, with what each symbol is and its unit. A function that computes nothing of
the kind (words and sentences, a lookup, a validator, a container's plumbing, glue that only calls
other functions in order) is listed in ``EXEMPT`` with the reason's category; the list holds only
names that exist, so that a renamed or removed function leaves no stale entry behind.
"""
from __future__ import annotations

import pytest
from numpydoc.docscrape import get_doc_object

from tests.engine.test_docstrings import public_api

CATEGORIES = {
    "words": "builds words or sentences for a person to read",
    "lookup": "finds or names something; no arithmetic beyond picking",
    "validator": "checks or parses input, refuses what is wrong",
    "container": "reads, copies or serializes a record's own fields",
    "glue": "calls other engine functions in order and assembles their results",
}

EXEMPT: dict[str, str] = {
}

API = public_api()
NAMES = {name for name, _ in API}


def formula_notes(obj) -> str:
    """The Notes section's text when it holds a formula, else ''."""
    notes = "\n".join(get_doc_object(obj)["Notes"])
    has_formula = ".. math::" in notes or any("=" in line for line in notes.splitlines())
    return notes if has_formula else ""


def test_exempt_names_exist():
    stale = sorted(set(EXEMPT) - NAMES)
    assert stale == [], "exempt names that are no public function of models/"


def test_exempt_categories_are_known():
    assert {name: c for name, c in EXEMPT.items() if c not in CATEGORIES} == {}


def test_the_check_tells_a_formula_from_words():
    def with_formula(x):
        """Double.

        Parameters
        ----------
        x : float
            A value [-].

        Returns
        -------
        float
            Twice ``x`` [-].

        Notes
        -----
        y = 2 x, with x the value [-].
        """
        return 2 * x

    def words_only(x):
        """Double.

        Parameters
        ----------
        x : float
            A value [-].

        Returns
        -------
        float
            Twice ``x`` [-].

        Notes
        -----
        Twice the value.
        """
        return 2 * x

    assert formula_notes(with_formula) and not formula_notes(words_only)


@pytest.mark.parametrize("name, obj", [(n, o) for n, o in API if n not in EXEMPT],
                         ids=[n for n, _ in API if n not in EXEMPT])
def test_public_function_has_notes_with_a_formula(name, obj):
    assert formula_notes(obj), f"{name}: no Notes section with a formula"
