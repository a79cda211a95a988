"""The scenario form, generated from the pydantic schema (labels, units, bounds, help and
sources live on the fields): its inputs and sections (scenario.py), one input's kind and shown
value (fields.py), and its arrangement on the page (layout.py). Below the blueprints: the
scenario pages render it, the review and compare pages name its paths, the context presets
fill it."""
