"""The usage readers' refusals (service/ingest) in the reader's language (issue 24), and the
scenario workbook reader's (service/xlsx/roundtrip.py).

The readers write each problem of a file in English, by row and column, and that text is what
an error carries (to a page, the API, the CLI). Each template here is a reader's wording with
its values as placeholders; a message is matched against the templates when it is shown and
rebuilt in the reader's language, its values (rows, columns, counts, quoted cells, file names)
kept as written. Values that are words of ours (what a file is: "a PDF document"; what a value
should be) are translated too (PHRASES). A message no template knows stays English: the test
that walks every broken file of the suite (tests/io/test_korean_refusals.py) finds none.
"""
from __future__ import annotations

import functools
import re
from typing import Iterable, Mapping, Optional

from service.i18n import N_, current_locale, gettext, using_locale
from service.i18n import owned_words

TEMPLATES = (
    N_("the file is %(size)s bytes; the limit is %(limit)s bytes"),
    N_("the file is empty"),
    N_("this is a FOCUS 1.3 Contract Commitment dataset: the commitments a company holds, "
       "not usage. Upload it on the usage page to see its GPU commitments; plan with a usage "
       "file"),
    N_("not a FOCUS 1.3 Contract Commitment dataset: its header lacks ContractCommitmentId "
       "and ContractCommitmentPeriodStart"),
    N_("this is %(what)s, which is not read here; open it in Excel or LibreOffice and save "
       "it as .xlsx (Excel Workbook) or .csv (UTF-8)"),
    N_("the file is named .zip but is %(what)s"),
    N_("the file is named .xlsx but is %(what)s, not an Excel workbook; save it from Excel "
       "as .xlsx, or rename it to .csv if it is CSV text"),
    N_("the file is named without an extension but is a zip archive: name it .xlsx if it is "
       "a workbook, or .zip if it holds a usage file and a GPU busy-time file"),
    N_("the file is named %(suffix)s but is a zip archive: name it .xlsx if it is a "
       "workbook, or .zip if it holds a usage file and a GPU busy-time file"),
    N_("the file is %(what)s, not CSV text or an xlsx workbook"),
    N_("unsupported file type %(suffix)s; upload .csv, .xlsx, a Slurm sacct .txt dump, or a "
       ".zip of a usage file and a GPU busy-time file"),
    N_("this is a GPU busy-time file; upload it beside a usage file (the upload form's "
       "second field, the API's 'busy' part, the CLI's --busy) or zip the two files together"),
    N_("%(name)s is a Contract Commitment dataset, not usage; busy time is compared with a "
       "usage file"),
    N_("the sheet has %(count)s columns; the limit is %(limit)s"),
    N_("the workbook is password-protected (encrypted); remove the password (File > Info > "
       "Protect Workbook) and save it as .xlsx or .csv"),
    N_("the file is not a valid xlsx (broken zip: %(error)s)"),
    N_("the workbook holds %(count)s parts; the limit is %(limit)s (not a normal spreadsheet)"),
    N_("the workbook has an unsafe part name %(name)s"),
    N_("the workbook has encrypted parts; remove the password and save it as .xlsx or .csv"),
    N_("part %(name)s expands %(ratio)s:1 (limit %(limit)s:1): refused as a likely zip bomb"),
    N_("the workbook unpacks to %(size)s bytes; the limit is %(limit)s"),
    N_("the workbook is corrupt or its sizes lie (%(error)s): refused"),
    N_("part %(name)s declares a DOCTYPE or ENTITY (an XML bomb or external entity attempt): "
       "refused"),
    N_("the sheet has an element over %(limit)s bytes: refused"),
    N_("merged cells %(cells)s: unmerge them (one value per cell) and save again"),
    N_("part %(name)s declares a count of %(count)s (limit %(limit)s): refused"),
    N_("the sheet holds %(count)s cells; the limit is %(limit)s"),
    N_("the sheet spans %(rows)s rows x %(columns)s columns up to its farthest cell; the "
       "limit is %(limit)s cells"),
    N_("cell %(cell)s holds a formula with no saved value; open the file in Excel or "
       "LibreOffice, let it recalculate, and save again (or paste values)"),
    N_("the file is %(encoding)s text; save it as UTF-8 (Excel: File > Save As > 'CSV UTF-8 "
       "(Comma delimited)'; LibreOffice: Character set 'Unicode (UTF-8)')"),
    N_("the file is not UTF-8 text (byte %(byte)s at line %(line)s cannot be read; it may be "
       "Windows-1252 or Latin-1); save it as UTF-8 (Excel: File > Save As > 'CSV UTF-8 "
       "(Comma delimited)'; LibreOffice: Character set 'Unicode (UTF-8)')"),
    N_("the header's column %(position)s is %(length)s characters long; a column name may "
       "have at most %(limit)s (is the first line a header?)"),
    N_("the file has %(count)s columns; the limit is %(limit)s"),
    N_("the file has %(count)s data rows; the limit is %(limit)s"),
    N_("a quoted field starting here is never closed (a stray \")"),
    N_("this row has %(fields)s fields, the header has fewer (a stray separator %(sep)s or "
       "unquoted text?)"),
    N_("cannot read as CSV (%(error)s)"),
    N_("unknown column %(column)s"),
    N_("columns %(first)s and %(second)s both give the %(name)s"),
    N_("give either %(one)s or %(other)s, not both"),
    N_("missing column %(name)s"),
    N_("the first row looks like data: the file needs a header row"),
    N_("expected timestamp, gpu_hours (or gpus), optional workload (or interruptible), "
       "optional team; found [%(found)s]"),
    N_("expected timestamp, gpu_hours (or gpus), optional workload (or interruptible), "
       "optional team; found [%(found)s] and %(more)s more"),
    N_("empty cell; expected a number >= 0 (write 0 for no usage)"),
    N_("expected a number >= 0, got %(value)s"),
    N_("NaN is not a number of GPU-hours; expected a number >= 0"),
    N_("%(value)s is infinite; expected a finite number >= 0"),
    N_("negative value %(value)s; expected a number >= 0"),
    N_("expected steady or interruptible, got %(value)s"),
    N_("expected true/false, yes/no or 1/0, got %(value)s"),
    N_("the file has a header but no data rows"),
    N_("empty timestamp"),
    N_("%(when)s (UTC) is not the start of an hour; timestamps must be hour, day or month "
       "starts"),
    N_("one row only: read as one month"),
    N_("mixed periods: the file is hourly but from row %(row)s the timestamps are daily; use "
       "one period length per file"),
    N_("mixed periods: the file is daily but from row %(row)s the timestamps are monthly; "
       "use one period length per file"),
    N_("duplicate timestamp: same timestamp as row %(row)s with a different value"),
    N_("duplicate timestamp: same timestamp, team as row %(row)s with a different value"),
    N_("duplicate timestamp: same timestamp and workload as row %(row)s with a different value"),
    N_("duplicate timestamp: same timestamp, team and workload as row %(row)s with a "
       "different value"),
    N_("no usable rows: the file holds no GPU usage"),
    N_("%(value)s is not an Excel date serial (expected 25569 = 1970-01-01 to 73050 = "
       "2099-12-31)"),
    N_("cannot read %(value)s as a timestamp; write ISO dates such as 2027-01-31T13:00, "
       "2027-01-31 or 2027-01"),
    N_("mixed periods: %(parts)s. Use one period length per file (hours, days or months)."),
    N_("row %(row)s (%(value)s) is an hour"),
    N_("row %(row)s (%(value)s) is a day"),
    N_("row %(row)s (%(value)s) is a month"),
    N_("row %(row)s (%(value)s) is an hour like %(more)s more"),
    N_("row %(row)s (%(value)s) is a day like %(more)s more"),
    N_("row %(row)s (%(value)s) is a month like %(more)s more"),
    N_("dates are written day/month here but month/day in row %(row)s; write ISO dates such "
       "as 2027-02-01"),
    N_("%(value)s is ambiguous: it could be day/month or month/day; write ISO dates such as "
       "2027-02-01"),
    N_("the workbook is incomplete (%(part)s)"),
    N_("the workbook structure cannot be read safely (%(error)s)"),
    N_("the workbook has no visible worksheet"),
    N_("sheet %(sheet)s has %(count)s data rows; the limit is %(limit)s"),
    N_("sheet %(sheet)s has %(count)s columns; the limit is %(limit)s"),
    N_("the workbook cannot be read (%(error)s)"),
    N_("the sheet is empty (or its first row, the header, is)"),
    N_("column %(letter)s has values but no header"),
    N_("column %(letter)s repeats the header %(name)s"),
    N_("this looks like a %(format)s export but lacks the columns %(missing)s; found %(found)s"),
    N_("columns %(first)s and %(second)s are the same column twice"),
    N_("missing date-time (empty or NULL)"),
    N_("cannot read %(value)s as a date-time"),
    N_("missing %(what)s (empty or NULL)"),
    N_("expected a %(what)s >= 0, got %(value)s"),
    N_("no GPU instance usage found in this %(format)s export: none of its rows is an hourly "
       "charge for a GPU instance type or GPU SKU we know (see "
       "service/ingest/instance_gpus.csv)"),
    N_("missing commitment id (empty or NULL)"),
    N_("commitment id %(id)s repeats row %(row)s"),
    N_("the commitment period ends before it starts"),
    N_("expected Spend or Usage, got %(value)s"),
    N_("a quantity needs its unit"),
    N_("neither a quantity nor a cost is given"),
    N_("commits %(gpu_hours)s GPU-hours over %(hours)s hours: fewer than one GPU"),
    N_("a spend commitment (an amount of money, not GPUs)"),
    N_("its unit %(unit)s is not time"),
    N_("it commits no quantity of time"),
    N_("it commits no quantity of GPU time"),
    # the bounds of a Contract Commitment file (service/ingest/contract_commitments.py, issue 40)
    N_("a %(what)s of %(value)s is past any contract's (at most %(limit)s)"),
    N_("a commitment id has at most %(limit)s characters; this one %(count)s"),
    N_("a Contract Commitment file has at most %(limit)s rows (one per commitment term); this "
       "one has %(count)s: export the GPU commitments only"),
    N_("it names no GPU instance type or GPU SKU we know"),
    N_("it has no cost, so its price per GPU-hour is unknown"),
    N_("a commitment has exactly the keys id, gpus, start, term_months, price_per_gpu_hour, "
       "payment and optionally currency; got %(found)s"),
    N_("commitment %(id)s: %(key)s must be %(expected)s, got %(value)s"),
    N_("the dump has %(count)s lines; the limit is %(limit)s"),
    N_("cannot read the sacct output (%(error)s); produce it with sacct --parsable2 "
       "--format=JobID,Start,End,AllocTRES,Partition,Account"),
    N_("End %(end)s is before Start %(start)s"),
    N_("no finished GPU jobs (AllocTRES with gres/gpu) in this sacct output"),
    N_("the jobs span %(hours)s hours; at most %(limit)s"),
    N_("the busy-time file has a header but no samples"),
    N_("not a GPU busy-time file: expected DCGM exporter Prometheus text, a CSV with a "
       "DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL column, or nvidia-smi "
       "--query-gpu=timestamp,index,utilization.gpu --format=csv output"),
    N_("the file has %(count)s lines; the limit is %(limit)s"),
    N_("cannot read %(value)s as a time"),
    N_("expected a ratio from 0 to 1, got %(value)s"),
    N_("expected a percent from 0 to 100, got %(value)s"),
    N_("cannot read this line as a Prometheus sample (metric{labels} value timestamp)"),
    N_("no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL samples in this Prometheus "
       "text"),
    N_("this sample has no timestamp; save scrapes with their timestamps (promtool tsdb "
       "dump, or the Prometheus query API's query_range) so busy time can be placed in hours"),
    N_("missing column %(missing)s; expected timestamp, gpu, %(metric)s and optional host "
       "and team; found %(found)s"),
    N_("nvidia-smi output without an index (or uuid) column: query "
       "--query-gpu=timestamp,index,utilization.gpu"),
    N_("nvidia-smi writes the host's local time without a zone; it was read as UTC (run "
       "nvidia-smi with TZ=UTC so that hours line up with the bill)"),
    N_("%(file)s: nvidia-smi writes the host's local time without a zone; it was read as UTC "
       "(run nvidia-smi with TZ=UTC so that hours line up with the bill)"),
    N_("the file is not a valid zip (%(error)s)"),
    N_("a .zip upload holds exactly two files, a usage file and a GPU busy-time file; this "
       "one holds %(count)s"),
    N_("%(name)s is encrypted; zip it without a password"),
    N_("%(name)s unpacks to %(size)s bytes (%(ratio)s:1); the limit is %(limit)s bytes per "
       "file"),
    N_("%(name)s cannot be unpacked (%(error)s)"),
    N_("%(name)s is larger than its zip entry says: refused"),
    N_("of its two files (%(names)s), %(count)s are GPU busy-time files; a bundle holds one "
       "usage file and one busy-time file (DCGM Prometheus text, DCGM CSV or nvidia-smi CSV)"),
    N_("a bundle cannot hold another .zip"),
    N_("demand basis 'busy' needs GPU busy time: upload a GPU busy-time file (DCGM or "
       "nvidia-smi) with the usage file"),
    N_("demand basis 'busy': no period of the usage has busy time"),
    N_("profile.growth_annual: demand growing %(growth)s a year needs %(gpus)s GPUs in hour "
       "%(hour)s (year %(year)s of the plan); a plan holds at most %(limit)s GPUs in any "
       "hour: lower the growth, the horizon or the peak-to-average ratio"),
    # models/problem_size.py: the MILPs' size bound (issue 40)
    N_("the plan's optimisation would have %(columns)s variables x %(rows)s constraints "
       "(%(paths)s demand scenarios x %(months)s decision months), more than the %(limit)s "
       "variables x constraints a plan may have: use fewer demand scenarios, a longer "
       "decision interval or a shorter horizon"),
    # the scenario workbook's reader (service/xlsx/roundtrip.py: "Load into the form", "New
    # scenario from a file")
    N_("the file is %(size)s bytes; the limit is %(limit)s"),
    N_("the file is an encrypted workbook or an old .xls file; save it as an unencrypted "
       ".xlsx"),
    N_("the file is not an .xlsx workbook (not a zip container)"),
    N_("the workbook has an unsafe part name %(name)s: refused"),
    N_("the workbook is encrypted"),
    N_("the workbook member %(name)s expands %(ratio)s-fold: refused"),
    N_("the workbook expands to %(size)s bytes: refused"),
    N_("the file is a zip archive but not an .xlsx workbook"),
    N_("no %(sheet)s sheet with the columns %(columns)s was found: this is not a buyrent plan "
       "workbook"),
    N_("%(cell)s: %(path)s is not a scenario field path"),
    N_("%(cell)s (%(path)s) holds an error value %(value)s"),
    N_("unknown path %(path)s"),
    N_("row number %(key)s is not a row number"),
    N_("the workbook cannot be read: it is damaged or not an .xlsx saved by Excel, "
       "LibreOffice or buyrent"),
    N_("the %(sheet)s sheet has no scenario rows"),
    N_("the %(sheet)s sheet's paths do not form a scenario (a path is both a value and a "
       "section, or an index is not a number)"),
    N_("row %(row)s"),
    N_("column %(column)s"),
    N_("row %(row)s, column %(column)s"),
    N_("... and %(more)s more problems (%(total)s in all)"),
    # a bill read for plan against actual (service/actuals.py)
    N_("this is not a billing export (FOCUS, AWS CUR, Azure or Google Cloud): it has no cost "
       "by pricing category"),
    N_("the bill has no cost column (EffectiveCost or BilledCost, with BillingCurrency) to set "
       "against the plan"),
    N_("the cost is not a number"),
    N_("the cost is in %(currency)s, not the plan's %(plan)s"),
    N_("an unused commitment row without a date-time"),
    N_("a storage row without a date-time"),
    N_("an egress row without a date-time"),
    N_("a cloud support row without a date-time"),
    # models/variance_fx.py FX_MESSAGES: a bill in a currency no rate can be had for
    N_("the cost is in %(currency)s and the plan has no exchange rate for it (the plan is in "
       "%(reporting)s)"),
    N_("the cost is in %(currency)s and no rate actually paid can be had: the row has no "
       "amount in %(reporting)s and no exchange rate was stated with the upload"),
) + owned_words.REFUSALS     # the owned fleet's actuals (service/owned_actuals.py)
# Words of ours that the templates above take as values.
PHRASES = (
    N_("a zip archive"),
    N_("an OLE file (Excel 97-2003 or a password-protected workbook)"),
    N_("text"),
    N_("binary data"),
    N_("a PDF document"),
    N_("a PNG image"),
    N_("a JPEG image"),
    N_("a gzip archive"),
    N_("a 7-Zip archive"),
    N_("a RAR archive"),
    N_("a Parquet file"),
    N_("an RTF document"),
    N_("an Excel 97-2003 workbook (.xls)"),
    N_("an Excel binary workbook (.xlsb)"),
    N_("a macro-enabled Excel workbook (.xlsm)"),
    N_("an OpenDocument spreadsheet (.ods)"),
    N_("a zip archive, not a workbook"),
    N_("quantity"),
    N_("cost"),
    N_("timestamp"),
    N_("a non-empty text of at most 500 characters"),
    N_("a whole number of GPUs from 1 to %(limit)s"),
    N_("a month written YYYY-MM"),
    N_("whole months from 1 to %(limit)s"),
    N_("a finite number >= 0 (a float)"),
    N_("none, partial or all"),
    N_("an ISO 4217 currency code of three capital letters"),
    # the billing exports as the readers name them
    N_("Azure cost details"),
    N_("Google Cloud billing"),
    # what Python's zip reader says of a broken archive
    N_("File is not a zip file"),
    N_("Bad CRC-32 for file %(name)s"),
    N_("gpu_hours (or gpus)"),
    # the scenario workbook's sheet and its first columns (service/xlsx/assumptions.py)
    N_("Assumptions"),
    N_("Path, Setting, Value"),
) + owned_words.PHRASES
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
LISTS = {"parts"}   # values that are several messages joined by "; "


def pattern(template: str) -> re.Pattern:
    """A template as a regular expression: each placeholder a lazy group, a repeated one a
    back reference."""
    out, seen, last = [], set(), 0
    for match in PLACEHOLDER.finditer(template):
        out.append(re.escape(template[last:match.start()]))
        name = match.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        last = match.end()
    out.append(re.escape(template[last:]))
    return re.compile("".join(out), re.S)


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[re.Pattern, str], ...]:
    """The templates with placeholders, the most literal first: "missing column %(name)s"
    must not take what "missing column %(missing)s; expected ..." says."""
    templates = sorted((t for t in TEMPLATES + PHRASES if "%(" in t),
                       key=lambda t: -len(PLACEHOLDER.sub("", t)))
    return tuple((pattern(t), t) for t in templates)


PLAIN = frozenset(t for t in TEMPLATES + PHRASES if "%(" not in t)


def translate(text: str, depth: int = 0) -> Optional[str]:
    """``text`` (a refusal, or a word of ours in one) in the current language; None when no
    template knows it."""
    if text in PLAIN:
        return gettext(text)
    if depth > 3:
        return None
    for regex, template in _patterns():
        match = regex.fullmatch(text)
        if match:
            values = {k: _value(k, v, depth) for k, v in match.groupdict().items()}
            return gettext(template, **values)
    head, sep, rest = text.partition(": ")
    if sep and head and "\n" not in head:   # "busy.csv: <a message>", "file.csv: <message>"
        inner = translate(rest, depth + 1)
        if inner is not None:
            return f"{head}: {inner}"
    return None


def _value(name: str, value: str, depth: int) -> str:
    if name in LISTS:
        return "; ".join(translate(part, depth + 1) or part for part in value.split("; "))
    if value in PLAIN or "%(" not in value and any(c.isalpha() for c in value):
        translated = translate(value, depth + 1) if len(value) < 400 else None
        return value if translated is None else translated
    return value


def where(row: Optional[int], column: Optional[str]) -> str:
    """The place of a problem in the current language ("row 3, column 'x'")."""
    if row is not None and column is not None:
        return gettext("row %(row)s, column %(column)s", row=row, column=repr(column))
    if row is not None:
        return gettext("row %(row)s", row=row)
    if column is not None:
        return gettext("column %(column)s", column=repr(column))
    return ""


def problem_text(problem: Mapping) -> str:
    """One problem's message in the current language (English when no template knows it)."""
    message = str(problem.get("message") or "")
    if current_locale() == "en":
        return message
    return translate(message) or message


def refusal(message: str, problems: Iterable[Mapping] = (), locale: Optional[str] = None
            ) -> str:
    """A refusal's whole message ("usage.csv: row 3, column 'x': ...; ...") in ``locale``,
    rebuilt from its problems when it is their concatenation (service.ingest.core.fail)."""
    lang = locale or current_locale()
    message = str(message or "")
    if lang == "en":
        return message
    problems = list(problems or [])
    with using_locale(lang):
        english = "; ".join(_english_part(p) for p in problems)
        if problems and english and message.endswith(english) and \
                message[:len(message) - len(english)].endswith(": "):
            head = message[:len(message) - len(english)]
            return head + "; ".join(_part(p) for p in problems)
        return translate(message) or message


def _english_part(problem: Mapping) -> str:
    parts = []
    if problem.get("row") is not None:
        parts.append(f"row {problem['row']}")
    if problem.get("column") is not None:
        parts.append(f"column {problem['column']!r}")
    place = ", ".join(parts)
    return f"{place}: {problem.get('message')}" if place else str(problem.get("message"))


def _part(problem: Mapping) -> str:
    place = where(problem.get("row"), problem.get("column"))
    text = problem_text(problem)
    return f"{place}: {text}" if place else text
