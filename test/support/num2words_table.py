"""The num2words filter's reference table: Python's num2words (Debian's python3-num2words) on a
fixed set of cases, written as JSON to stdout.

    /usr/bin/python3 test/support/num2words_table.py > test/fixtures/num2words-table.json

Each case is {lang, to, value, currency?} -> {ok} or {error}. `value` is the Python literal of the
number as JSON would give it to docxtpl (an int `1234`, a float `1234.0`), or a string (quoted):
num2words treats an int as cents in to='currency' and a float as units, so the two differ.
test/num2words-table.e2e-spec.ts runs this again and expects the committed table byte for byte.
"""
import json
import sys

import num2words as n2w_module
from num2words import num2words

LANGS = ["en", "ru", "vi", "es", "fr", "pl", "de"]

CARDINAL = [
    "0", "1", "2", "3", "5", "7", "10", "11", "12", "15", "19", "20", "21", "22", "30", "40", "42",
    "99", "100", "101", "110", "111", "121", "200", "215", "300", "500", "999", "1000", "1001",
    "1010", "1100", "1234", "2000", "2021", "5000", "10000", "11000", "21000", "100000", "101000",
    "999999", "1000000", "1000001", "2000000", "5000000", "21000000", "123456789", "1000000000",
    "2000000000", "1000000000000", "-1", "-2", "-21", "-1000", "0.5", "1.5", "2.25", "12.34",
    "1234.56", "-1234.56", "100.01", "0.01", "3.1", "1000.5", "'1234.56'", "'1000'", "'-7'",
]
ORDINAL = [
    "0", "1", "2", "3", "4", "5", "7", "10", "11", "12", "20", "21", "22", "23", "30", "42", "99",
    "100", "101", "111", "200", "1000", "1001", "2000", "1000000", "-1", "1.5",
]
CURRENCY = [
    "0.0", "1.0", "2.0", "5.0", "11.0", "21.0", "22.0", "100.0", "101.0", "1000.0", "2000.0",
    "1000000.0", "0.01", "0.02", "0.05", "0.5", "1.01", "2.02", "5.05", "21.21", "1234.56",
    "-1234.56", "99.99", "1500000.75", "1234", "1", "100", "'1234.56'",
]
YEAR = ["1066", "1900", "1999", "2000", "2005", "2010", "2024", "1800", "-44"]

# Beside each language's default (EUR), the currencies an invoice in it states its total in.
CURRENCIES = {"en": ["USD", "GBP"], "ru": ["RUB", "USD"], "es": ["USD"], "fr": ["USD"],
              "pl": ["PLN"], "de": ["USD"], "vi": ["VND"]}


def literal(text):
    return text[1:-1] if text.startswith("'") else json.loads(text)


def answer(value, **kwargs):
    try:
        return {"ok": num2words(literal(value), **kwargs)}
    except Exception as e:  # the error's kind is what the table records, not its wording
        return {"error": type(e).__name__}


def cases():
    for lang in LANGS:
        for v in CARDINAL:
            yield {"lang": lang, "to": "cardinal", "value": v}
        for v in ORDINAL:
            yield {"lang": lang, "to": "ordinal", "value": v}
        for v in YEAR:
            yield {"lang": lang, "to": "year", "value": v}
        for cur in [None] + CURRENCIES[lang]:
            for v in CURRENCY:
                c = {"lang": lang, "to": "currency", "value": v}
                if cur:
                    c["currency"] = cur
                yield c


def main():
    rows = []
    for c in cases():
        kw = {"lang": c["lang"], "to": c["to"]}
        if "currency" in c:
            kw["currency"] = c["currency"]
        rows.append({**c, **answer(c["value"], **kw)})
    version = getattr(n2w_module, "__version__", None)
    if version is None:
        import importlib.metadata as md
        version = md.version("num2words")
    # One case a line, so that a change of num2words shows as a readable diff.
    lines = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows)
    sys.stdout.write('{\n "num2words": %s,\n "cases": [\n%s\n ]\n}\n' % (json.dumps(version), lines))


main()
