"""What the upload preview says about a usage file's dates before it is planned (issue 23):
less than a year of usage, or usage that ends long before the current month (models/start.py
has the rules; the month comes from service.clock)."""
from __future__ import annotations

from models.profile import UsageProfile
from models.scenario import Scenario
from models.start import plan_start_month, usage_notes
from service import clock
from service.i18n import sentences


def preview_notes(scenario: Scenario, profile: UsageProfile) -> list[tuple[str, bool]]:
    """(sentence, translated) of each note, in the reader's language, for a plan of
    ``scenario`` on ``profile`` made today."""
    month = clock.current_month()
    notes = usage_notes(profile, month, plan_start_month(scenario, profile, month))
    return [(sentences.render(m), True) for m in notes]
