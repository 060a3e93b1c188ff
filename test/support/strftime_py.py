"""Python's answers for the dateformat/datetimeformat e2e: the public definitions' way,
datetime.fromisoformat(value).strftime(format), or for a Unix time the wall time in the given zone
(datetime.fromtimestamp). Reads [{value, format, zone}] as JSON on stdin, writes the answers."""
import json
import sys
from datetime import datetime
from zoneinfo import ZoneInfo

out = []
for c in json.load(sys.stdin):
    v = c["value"]
    if isinstance(v, str):
        dt = datetime.fromisoformat(v)
    else:
        dt = datetime.fromtimestamp(v, ZoneInfo(c["zone"])).replace(tzinfo=None)
    out.append(dt.strftime(c["format"]))
json.dump(out, sys.stdout, ensure_ascii=False)
