#!/usr/bin/python3
"""docxtpl, timed in-process on a corpus request, images included (bench/render.bench.ts).

  docxtpl_bench.py TEMPLATE REQUEST ITERATIONS WARMUP [OUT]

REQUEST is the service's enhanced request ({"template_data": ..., "images": {name: {"data":
base64 PNG, "width_mm": w}}}). Each image becomes an InlineImage of that width, made inside the
timed run as a caller would per request. Each timed run: open the template from bytes, render,
save to bytes (what a service pays per request). Prints {"times_ms": [...]}; Python start-up is
not timed. With OUT, one rendering is also written there (to check it reads like the others).
Run with /usr/bin/python3 (python3-docxtpl is a Debian package).
"""
import base64
import io
import json
import sys
import time

from docx.shared import Mm
from docxtpl import DocxTemplate, InlineImage


def render_bytes(template_bytes, data, images):
    tpl = DocxTemplate(io.BytesIO(template_bytes))
    context = dict(data)
    for name, (png, width_mm) in images.items():
        context[name] = InlineImage(tpl, io.BytesIO(png), width=Mm(width_mm) if width_mm else None)
    tpl.render(context, autoescape=True)
    out = io.BytesIO()
    tpl.save(out)
    return out.getvalue()


def main(argv):
    if len(argv) not in (5, 6):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], "rb") as fh:
        template = fh.read()
    with open(argv[2], encoding="utf-8") as fh:
        request = json.load(fh)
    iterations, warmup = int(argv[3]), int(argv[4])
    images = {
        name: (base64.b64decode(img["data"]), img.get("width_mm"))
        for name, img in (request.get("images") or {}).items()
    }
    data = request["template_data"]
    if len(argv) == 6:
        with open(argv[5], "wb") as fh:
            fh.write(render_bytes(template, data, images))
    for _ in range(warmup):
        render_bytes(template, data, images)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        render_bytes(template, data, images)
        times.append((time.perf_counter() - start) * 1000.0)
    print(json.dumps({"times_ms": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
