#!/usr/bin/python3
"""Reference rendering with docxtpl, the Python implementation our template engine must match.

Run with the system interpreter (/usr/bin/python3: python3-docxtpl is a Debian package).

  docxtpl_render.py render JOBS.json
      JOBS.json: [{"template": path, "context": path, "out": path, "subdocs": {key: path}}, ...]
      ("subdocs", optional: each .docx becomes tpl.new_subdoc(path) under its key in the context;
      "images", optional: {key: {"path": png, "width_mm": n, "height_mm": n}}, each an
      InlineImage(tpl, path, width=Mm(n), height=Mm(n)) under its key, as a docxtpl user places
      the pictures the service takes as `images`)
      Renders each job (several per process, to pay Python's start-up once) and prints one JSON
      line per job: {"ok": true} or {"ok": false, "error_class": ..., "error": ...}.

  docxtpl_render.py bench TEMPLATE CONTEXT ITERATIONS WARMUP
      Renders the same template ITERATIONS times in this process after WARMUP untimed runs and
      prints {"median_ms": ..., "min_ms": ..., "iterations": ..., "times_ms": [...]}. Each timed run is what a
      service would do per request: open the template from bytes, render, save to bytes.
"""
import io
import json
import statistics
import sys
import time

from docx.shared import Mm
from docxtpl import DocxTemplate, InlineImage


def render_bytes(template_bytes, context, subdocs=None, images=None):
    tpl = DocxTemplate(io.BytesIO(template_bytes))
    for key, path in (subdocs or {}).items():
        context[key] = tpl.new_subdoc(path)
    for key, image in (images or {}).items():
        width, height = image.get("width_mm"), image.get("height_mm")
        context[key] = InlineImage(
            tpl,
            image["path"],
            width=Mm(width) if width else None,
            height=Mm(height) if height else None,
        )
    tpl.render(context, autoescape=True)
    out = io.BytesIO()
    tpl.save(out)
    return out.getvalue()


def load_json(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def cmd_render(jobs_path):
    for job in load_json(jobs_path):
        try:
            with open(job["template"], "rb") as fh:
                template = fh.read()
            result = render_bytes(
                template, load_json(job["context"]), job.get("subdocs"), job.get("images")
            )
            with open(job["out"], "wb") as fh:
                fh.write(result)
            print(json.dumps({"ok": True}), flush=True)
        except Exception as exc:  # reported to the caller, which decides
            print(
                json.dumps({"ok": False, "error_class": type(exc).__name__, "error": str(exc)}),
                flush=True,
            )


def cmd_bench(template_path, context_path, iterations, warmup):
    with open(template_path, "rb") as fh:
        template = fh.read()
    context = load_json(context_path)
    for _ in range(warmup):
        render_bytes(template, context)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        render_bytes(template, context)
        times.append((time.perf_counter() - start) * 1000.0)
    print(
        json.dumps(
            {
                "median_ms": statistics.median(times),
                "min_ms": min(times),
                "iterations": iterations,
                "times_ms": times,
            }
        )
    )


def main(argv):
    if len(argv) == 3 and argv[1] == "render":
        cmd_render(argv[2])
    elif len(argv) == 6 and argv[1] == "bench":
        cmd_bench(argv[2], argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
