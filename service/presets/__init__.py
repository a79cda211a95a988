"""Presets that fill in a scenario: cloud GPU prices (gpu_prices) and a country's setting
(context), each read from the data file beside it."""
