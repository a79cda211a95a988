"""Tests of the readers and writers apart from the web: ingest, xlsx, presets, CLI report."""
