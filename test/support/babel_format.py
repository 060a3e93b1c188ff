"""Babel's own answers for the formatting filters' differential test (test/formatting-babel.e2e-spec.ts).

Reads a JSON list of cases on stdin: {"fn": "format_date", "value": "2026-11-25", "args": [...], "kwargs": {...}}
and writes a JSON list of {"ok": text} or {"error": message}. Values arrive as the service gets them
(ISO 8601 strings, JSON numbers) and become what a docxtpl user would pass Babel (date, datetime, Decimal).
"""
import datetime
import decimal
import json
import sys

from babel import dates, numbers

DATE_FNS = {"format_date", "format_datetime", "format_time"}


def value_of(fn, v):
    if fn in DATE_FNS:
        if len(v) == 10:
            return datetime.date.fromisoformat(v)
        return datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
    if isinstance(v, float):
        return decimal.Decimal(repr(v))
    return v


def run(case):
    fn = case["fn"]
    kwargs = dict(case.get("kwargs", {}))
    if "tzinfo" in kwargs:
        kwargs["tzinfo"] = dates.get_timezone(kwargs["tzinfo"])
    f = getattr(dates, fn, None) or getattr(numbers, fn)
    return f(value_of(fn, case["value"]), *case.get("args", []), **kwargs)


out = []
for case in json.load(sys.stdin):
    try:
        out.append({"ok": run(case)})
    except Exception as e:  # noqa: BLE001 - every failure is reported, per case
        out.append({"error": f"{type(e).__name__}: {e}"})
json.dump(out, sys.stdout, ensure_ascii=False)
