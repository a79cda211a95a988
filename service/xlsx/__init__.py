"""The Excel plan: XlsxWriter sheets with live formulas (design 6, issue 5)."""
