"""Helpers shared by the tests (builders, servers, cases); not tests themselves."""
