"""Every public function and method of models/ carries a numpydoc docstring (issue 13).

numpydoc's own validator reads each docstring. The rules kept are the ones that say something
about the function: a summary; a Parameters section naming every parameter of the signature, in
order, each with a type and a description (that is where the unit goes, in brackets); a Returns
section, with a description, for a function that returns a value; only known sections, in
numpydoc's order; nothing the parser cannot read. Formatting trivia (capitals, final periods,
quote placement, the mood of the summary's verb, an extended summary, See Also, Examples) is
not checked, nor are the units themselves (not every parameter has one: a scenario, a flag),
which review keeps to models/__init__.py's conventions. The docstrings' examples run here too.
"""
from __future__ import annotations

import doctest
import warnings

import pytest
from numpydoc.docscrape import get_doc_object
from numpydoc.validate import validate

from tests.support.models_api import modules, public_api

# numpydoc error codes that fail the test (numpydoc.validate.ERROR_MSGS spells them out)
CHECKED = {
    "GL08": "no docstring",
    "GL06": "unknown section (a misspelt heading is silently not a section)",
    "GL07": "sections out of numpydoc's order",
    "SS01": "no one-line summary",
    "PR01": "a parameter of the signature is not documented",
    "PR02": "a documented parameter is not in the signature",
    "PR03": "parameters documented in another order than the signature's",
    "PR04": "a parameter has no type",
    "PR07": "a parameter has no description",
    "RT01": "returns a value but has no Returns section",
    "RT03": "a return value has no description",
}


ALL = public_api()
API = ALL


def problems(obj) -> list[str]:
    # the parser warns of what it cannot read (an unknown heading, a malformed section)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = validate(get_doc_object(obj))
    return ([f"{code} {message}" for code, message in report["errors"] if code in CHECKED]
            + [f"PARSE {w.message}" for w in caught])


def test_the_public_api_is_found():
    # the walk itself can fail: it must see functions, methods and properties of every kind
    names = {name for name, _ in ALL}
    for expected in ("models.finance.level_payment", "models.costs.cost_lines",
                     "models.state_costing.Costing.evaluate", "models.plan.Planner.plan",
                     "models.dispatch.DemandTables.build",
                     "models.capacity.CapacityPlan.servers_online"):
        assert expected in names
    assert not any(name.rsplit(".", 1)[1].startswith("_") for name in names)
    assert len(ALL) > 200


@pytest.mark.parametrize("name, obj", API, ids=[name for name, _ in API])
def test_public_function_has_a_numpydoc_docstring(name, obj):
    assert problems(obj) == []


def test_the_rules_catch_a_bad_docstring():
    def bad(principal, apr, term_months):
        """Level payment.

        Parameters
        ----------
        principal : float
            Amount borrowed [currency].
        rate : float
            Annual rate [fraction].
        term_months
            Term [months].

        Return
        ------
        float
        """
        return principal * apr / term_months

    codes = {line.split()[0] for line in problems(bad)}
    assert {"PR01", "PR02", "PR04", "RT01", "PARSE"} <= codes


def test_the_rules_pass_a_good_docstring():
    def good(principal, term_months):
        """Level monthly payment without interest.

        Parameters
        ----------
        principal : float
            Amount borrowed [currency].
        term_months : int
            Term [months].

        Returns
        -------
        float
            Payment at each month end [currency per month].
        """
        return principal / term_months

    assert problems(good) == []


DOCTESTS = [test for module in modules()
            for test in doctest.DocTestFinder().find(module) if test.examples]


def test_docstring_examples_exist():
    assert DOCTESTS, "the Examples sections of models/ run here"


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_docstring_example(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, test.name
