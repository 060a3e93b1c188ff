#!/usr/bin/python3
"""Which installed font draws which script when a Calibri template is converted by LibreOffice.

Builds one .docx (python-docx) with a page per script, every run in Calibri, converts it with the
local soffice, and for each sample character finds the font poppler says draws it (pdftohtml -xml) and whether
fontconfig says that font covers it (`fc-list ':charset=XXXX' family`). A script whose
characters no embedded font covers is drawn as empty boxes (or not at all) even though pdftotext
still extracts the text. Used to choose the font packages in docs/fonts.md.

  /usr/bin/python3 scripts/measure-script-fonts.py [WORKDIR]
  /usr/bin/python3 scripts/measure-script-fonts.py --sample-page docs/multi-script-sample.png
      (all samples on one page, the image in the README)
"""

import html
import os
import re
import subprocess
import sys
import tempfile

from docx import Document
from docx.enum.text import WD_BREAK
from docx.oxml.ns import qn

# Kept in step with test/support/script-samples.ts.
SAMPLES = [
    ("German", "Grüße aus Köln, Straße"),
    ("Greek", "Καλημέρα κόσμε"),
    ("Cyrillic", "Здравствуй, мир"),
    ("Arabic", "مرحبا بالعالم"),
    ("Hebrew", "שלום עולם"),
    ("Chinese", "你好，世界"),
    ("Japanese", "こんにちは世界"),
    ("Korean", "안녕하세요 세계"),
    ("Thai", "สวัสดีชาวโลก"),
    ("Hindi", "नमस्ते दुनिया"),
    ("Emoji", "😀🎉👍"),
]


def calibri(run):
    run.font.name = "Calibri"
    fonts = run._element.get_or_add_rPr().get_or_add_rFonts()
    for attr in ("w:ascii", "w:hAnsi", "w:eastAsia", "w:cs"):
        fonts.set(qn(attr), "Calibri")


def build(path):
    doc = Document()
    for i, (_, text) in enumerate(SAMPLES):
        p = doc.add_paragraph()
        calibri(p.add_run(text))
        if i < len(SAMPLES) - 1:
            p.add_run().add_break(WD_BREAK.PAGE)
    doc.save(path)


def covering_families(char):
    out = subprocess.run(
        ["fc-list", ":charset=%x" % ord(char), "family"], capture_output=True, text=True, check=True
    ).stdout
    return {name.strip() for line in out.splitlines() for name in line.split(",") if name.strip()}


def text_runs(pdf):
    """(font family, text) per text run, from poppler's pdftohtml -xml (it starts a run at each font change)."""
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-stdout", pdf], capture_output=True, text=True, check=True).stdout
    fonts = {m.group(1): re.sub(r"^[A-Z]{6}\+", "", m.group(2))
             for m in re.finditer(r'<fontspec id="(\d+)"[^>]*family="([^"]*)"', xml)}
    return [(fonts.get(m.group(1), "?"), html.unescape(re.sub(r"<[^>]+>", "", m.group(2))))
            for m in re.finditer(r'<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml)]


def normalise(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def drawing_fonts(char, runs):
    """The fonts whose runs contain `char` and that fontconfig says cover it."""
    # pdftohtml names fonts by PostScript name ("NotoSansCJKjp-Regular", "Lohit-Devanagari"),
    # fontconfig by family ("Noto Sans CJK JP", "Lohit Devanagari"): compare without spaces,
    # hyphens or case, the PostScript name starting with the family.
    covering = [normalise(f) for f in covering_families(char)]
    return sorted({font for font, text in runs
                   if char in text and any(normalise(font).startswith(f) for f in covering)})


def sample_page(png):
    work = tempfile.mkdtemp()
    doc = Document()
    calibri(doc.add_paragraph().add_run("Calibri template, LibreOffice " + soffice_version()))
    for script, text in SAMPLES:
        p = doc.add_paragraph()
        calibri(p.add_run("%-10s " % script))
        calibri(p.add_run(text))
    docx = os.path.join(work, "sample.docx")
    doc.save(docx)
    convert(work, docx)
    # The upper part of page 1 at 60 dpi: small enough for the README.
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-singlefile", "-f", "1", "-l", "1", "-H", "330",
                    os.path.join(work, "sample.pdf"), png[:-4]], check=True)


def soffice_version():
    out = subprocess.run(["soffice", "--version"], capture_output=True, text=True).stdout.split()
    return out[1] if len(out) > 1 else "?"


def convert(work, docx):
    subprocess.run(
        ["soffice", "-env:UserInstallation=file://" + os.path.join(work, "profile"), "--headless",
         "--convert-to", "pdf", "--outdir", work, docx],
        check=True, capture_output=True,
    )


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--sample-page":
        return sample_page(sys.argv[2])
    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    docx = os.path.join(work, "scripts.docx")
    build(docx)
    convert(work, docx)
    pdf = os.path.join(work, "scripts.pdf")
    runs = text_runs(pdf)
    drawn = 0
    for script, text in SAMPLES:
        used, missing = set(), []
        for char in sorted(set(text) - set(" ,，")):
            fonts = drawing_fonts(char, runs)
            used.update(fonts)
            if not fonts:
                missing.append(char)
        drawn += not missing
        print("%-9s %-4s %s%s" % (script, "no" if missing else "yes", ", ".join(sorted(used)),
                                  "  not drawn: " + "".join(missing) if missing else ""))
    print("%d of %d scripts drawn; pdf: %s" % (drawn, len(SAMPLES), pdf))


if __name__ == "__main__":
    main()
