"""The usage readers' warnings (service/ingest), and the refusals written since issue 23, in the
reader's language.

The readers write their warnings in English, and the English text is what is stored with a
plan (its document is cached once per revision, for every language). Each warning here is
matched by its wording when it is shown, and rebuilt from its parts in the reader's language;
the parts (counts, dates, file and commitment names, amounts) are kept as the reader wrote
them. A warning no pattern knows stays English (pages mark it ``lang="en"``).
"""
from __future__ import annotations

import re
from typing import Optional

from service.i18n import N_, gettext
from service.i18n.ingest_refusals import translate

NUMBER = r"[\d,.]+"
PATTERNS: list[tuple[re.Pattern, str]] = [(re.compile(rx, re.S), template) for rx, template in (
    # service/ingest/build.py
    (rf"(?P<count>{NUMBER}) (?P<period>hour|day|month)s? between (?P<first>\S+) and "
     r"(?P<last>\S+) have no rows; they count as zero usage",
     N_("%(count)s periods (%(period)s) between %(first)s and %(last)s have no rows; they "
        "count as zero usage")),
    (rf"(?P<count>{NUMBER}) rows? (?:are|is) identical to an earlier row in every column: "
     r"likely duplicates \(they were counted\)",
     N_("%(count)s rows are identical to an earlier row in every column: likely duplicates "
        "(they were counted)")),
    # service/ingest/gpu_usage.py (billing exports: FOCUS, AWS CUR, Azure, Google Cloud)
    (rf"GPU costs are in (?P<count>{NUMBER}) currencies \((?P<currencies>[^)]*)\); each is "
     r"reported in its own currency, not converted",
     N_("GPU costs are in %(count)s currencies (%(currencies)s); each is reported in its own "
        "currency, not converted")),
    (rf"(?P<count>{NUMBER}) rows are not GPU instance usage \(other services, storage, fees, "
     r"taxes, credits, unused commitments\) and were skipped",
     N_("%(count)s rows are not GPU instance usage (other services, storage, fees, taxes, "
        "credits, unused commitments) and were skipped")),
    (rf"(?P<hours>{NUMBER}) GPU-hours ran on spot: read as interruptible work",
     N_("%(hours)s GPU-hours ran on spot: read as interruptible work")),
    # service/ingest/focus.py and azure.py
    (rf"(?P<count>{NUMBER}) rows are unused capacity reservations: idle cost, not usage",
     N_("%(count)s rows are unused capacity reservations: idle cost, not usage")),
    (r"unused commitments cost (?P<costs>.+): idle commitment cost, paid for and not used; "
     r"not counted as usage",
     N_("unused commitments cost %(costs)s: idle commitment cost, paid for and not used; not "
        "counted as usage")),
    (r"unused reservations and savings plans cost (?P<costs>.+): idle commitment cost, paid "
     r"for and not used; not counted as usage",
     N_("unused reservations and savings plans cost %(costs)s: idle commitment cost, paid for "
        "and not used; not counted as usage")),
    (rf"(?P<count>{NUMBER}) distinct (?P<column>\S+) cells are not JSON objects; their rows "
     r"have no team from them",
     N_("%(count)s distinct %(column)s cells are not JSON objects; their rows have no team "
        "from them")),
    (rf"(?P<count>{NUMBER}) distinct tags cells are not JSON; their rows have no team",
     N_("%(count)s distinct tags cells are not JSON; their rows have no team")),
    # service/ingest/contract_commitments.py (FOCUS 1.3 Contract Commitment)
    (rf"(?P<id>.+): commits (?P<average>{NUMBER}) GPUs on average over its term; read as "
     r"(?P<gpus>\d+)",
     N_("%(id)s: commits %(average)s GPUs on average over its term; read as %(gpus)s")),
    (rf"(?P<count>{NUMBER}) commitments? states? no payment terms \((?P<ids>.*)\): read as "
     r"paid monthly, no upfront",
     N_("%(count)s commitments state no payment terms (%(ids)s): read as paid monthly, no "
        "upfront")),
    # service/ingest/slurm.py and xlsx.py
    (rf"(?P<count>{NUMBER}) GPU jobs had not started or not finished \(Start or End Unknown\) "
     r"and were skipped",
     N_("%(count)s GPU jobs had not started or not finished (Start or End Unknown) and were "
        "skipped")),
    (r"read sheet (?P<sheet>.+?); ignored the other sheets: (?P<others>.*)",
     N_("read sheet %(sheet)s; ignored the other sheets: %(others)s")),
    # service/ingest/busy_join.py (GPU busy time: DCGM, nvidia-smi)
    (r"(?P<file>.+): its samples \((?P<first>.+?) to (?P<last>.+?)\) fall in no period of the "
     r"usage file; no busy time was joined",
     N_("%(file)s: its samples (%(first)s to %(last)s) fall in no period of the usage file; "
        "no busy time was joined")),
    (rf"(?P<file>.+) monitored (?P<watched>{NUMBER}) GPU-hours where the usage file bills "
     rf"(?P<billed>{NUMBER}) in the same periods \((?P<share>\d+%)\); busy time is scaled from "
     r"the GPUs it watched",
     N_("%(file)s monitored %(watched)s GPU-hours where the usage file bills %(billed)s in the "
        "same periods (%(share)s); busy time is scaled from the GPUs it watched")),
    (rf"(?P<file>.+) covers (?P<covered>{NUMBER}) of (?P<total>{NUMBER}) "
     r"(?P<period>hour|day|month)s of the usage; the others have no busy time",
     N_("%(file)s covers %(covered)s of %(total)s periods (%(period)s) of the usage; the "
        "others have no busy time")),
    (rf"GPUs were busy under (?P<below>\d+%) of their allocated time for (?P<count>{NUMBER}) "
     rf"stretch(?:es)? of (?P<length>{NUMBER}) hours or more \((?P<hours>{NUMBER}) hours in "
     r"all; the first from (?P<first>.+?) to (?P<last>.+?), (?P<busy>\d+%) busy\): they were "
     r"waiting, most often on data loading or preprocessing \(DataLoader num_workers, CPU "
     r"decoding and augmentation, remote storage\)\. Fix the input pipeline before buying or "
     r"renting more GPUs",
     N_("GPUs were busy under %(below)s of their allocated time for %(count)s stretches of "
        "%(length)s hours or more (%(hours)s hours in all; the first from %(first)s to "
        "%(last)s, %(busy)s busy): they were waiting, most often on data loading or "
        "preprocessing (DataLoader num_workers, CPU decoding and augmentation, remote "
        "storage). Fix the input pipeline before buying or renting more GPUs")),
)]
# Refusals (problems of a usage file, shown by row and column) written since issue 23; the
# older refusals are English until they get patterns too.
PATTERNS += [(re.compile(rx, re.S), template) for rx, template in (
    # service/ingest/table.py
    (r"(?P<value>.+) is too large; expected a number >= 0",
     N_("%(value)s is too large; expected a number >= 0")),
    # service/ingest/csv.py (plain tables and billing exports)
    (rf"this row has (?P<fields>{NUMBER}) fields, the header has (?P<width>{NUMBER}) \(a "
     r"stray separator (?P<sep>'.+?'), unquoted text or a missing field\?\)",
     N_("this row has %(fields)s fields, the header has %(width)s (a stray separator %(sep)s, "
        "unquoted text or a missing field?)")),
    # service/ingest/build.py
    (rf"the timestamps run from (?P<first>\S+) to (?P<last>\S+): more than (?P<years>\d+) "
     r"years; a usage file may span at most (?P=years) years \(split it, or keep its latest "
     r"years\)",
     N_("the timestamps run from %(first)s to %(last)s: more than %(years)s years; a usage "
        "file may span at most %(years)s years (split it, or keep its latest years)")),
)]
PERIOD_WORDS = {"hour": N_("hour"), "day": N_("day"), "month": N_("month")}


def translate_warning(text: str) -> Optional[str]:
    """The warning in the current language, or None when no pattern knows it."""
    for pattern, template in PATTERNS:
        match = pattern.fullmatch(text)
        if match:
            parts = match.groupdict()
            if "period" in parts:
                parts["period"] = gettext(PERIOD_WORDS[parts["period"]])
            return gettext(template, **parts)
    return translate(text)   # the refusals, and warnings written in a reader's own words
