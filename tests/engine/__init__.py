"""Tests of models/: the pure engine, no service, no files but the samples."""
