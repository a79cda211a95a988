"""Tests of the Flask app through its test client: pages, forms, API, auth, reviews."""
