"""End-to-end tests with real parts: Chromium, LibreOffice, PostgreSQL, served processes."""
