"""Reads a deck (.pptx) with Python's own zipfile and ElementTree, independently of the engine's
reader, and prints as JSON what the slide tests assert: the slides in presentation order, each
with its text (a:t by paragraph), the pictures it draws (p:pic) and its notes' text.

Usage: /usr/bin/python3 pptx_read.py < deck.pptx
"""
import io
import json
import posixpath
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = {
    "p": "http://schemas.openxmlformats.org/presentationml/2006/main",
    "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
}
NOTES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide"


def rels_of(z, part):
    folder, name = posixpath.split(part)
    path = posixpath.join(folder, "_rels", name + ".rels")
    if path not in z.namelist():
        return {}
    out = {}
    for r in ET.fromstring(z.read(path)).findall("rel:Relationship", NS):
        if r.get("TargetMode") == "External":
            continue
        out[r.get("Id")] = (r.get("Type"), posixpath.normpath(posixpath.join(folder, r.get("Target"))))
    return out


def paragraphs(root):
    out = []
    for p in root.iter("{%s}p" % NS["a"]):
        text = "".join(t.text or "" for t in p.iter("{%s}t" % NS["a"]))
        if text:
            out.append(text)
    return out


z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
pres = "ppt/presentation.xml"
prels = rels_of(z, pres)
slides = []
for sld in ET.fromstring(z.read(pres)).findall("p:sldIdLst/p:sldId", NS):
    part = prels[sld.get("{%s}id" % NS["r"])][1]
    root = ET.fromstring(z.read(part))
    notes = [t for (typ, target) in rels_of(z, part).values() if typ == NOTES for t in [target]]
    note_text = []
    for n in notes:
        # The notes' body placeholder, not the slide image or the slide number.
        for sp in ET.fromstring(z.read(n)).iter("{%s}sp" % NS["p"]):
            ph = sp.find(".//p:nvPr/p:ph", NS)
            if ph is not None and ph.get("type") == "body":
                note_text += paragraphs(sp)
    slides.append(
        {
            "part": part,
            "text": paragraphs(root),
            "pictures": len(list(root.iter("{%s}pic" % NS["p"]))),
            "notes": note_text,
        }
    )
json.dump({"slides": slides}, sys.stdout)
