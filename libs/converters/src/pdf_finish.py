#!/usr/bin/env python3
"""Finishing a converted PDF: prepend/append, watermark, attachments, Factur-X, encryption.

Run by pdf-finish.ts under time, memory and file-size limits (prlimit), one process per job, so a
hostile PDF from a caller can only kill this process, never the worker. Uses pikepdf (qpdf) for
everything structural and reportlab only to draw the watermark text with an embedded font.

Input: a JSON job on stdin (it holds the passwords: never on the command line, never in a file).
Output: `{"ok": true, "pages": N}` on stdout, or `{"error": {...}}` and exit status 2 for a
problem of the caller's input. Before each input is read, a `step <field>` line goes to stderr so
that when a limit kills the process the worker can still say which input it was.
"""
import json
import sys
import zlib
import xml.etree.ElementTree as ET
from datetime import datetime, timezone

import pikepdf
from pikepdf import Array, Name

CII_NS = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100'
FX_NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#'
# The Factur-X specification (and Akretion's factur-x library, which enforces it): MINIMUM and
# BASIC WL are not complete invoices, so their XML is only `Data`; the others are `Alternative`.
FX_RELATIONSHIP = {'MINIMUM': 'Data', 'BASIC WL': 'Data'}
# A Flate stream that inflates past this is refused as a compression bomb (a 6000×4000 RGB image
# is 72 MB); the process's memory limit (pdf-finish.ts) leaves room for it.
MAX_INFLATED = 128 * 1024 * 1024


class InputProblem(Exception):
    def __init__(self, field, message, kind='invalid_pdf_input'):
        super().__init__(message)
        self.field = field
        self.kind = kind


def step(field):
    sys.stderr.write(f'step {field}\n')
    sys.stderr.flush()


def pdf_date(now):
    return now.strftime("D:%Y%m%d%H%M%S+00'00'")


def check_streams(pdf, field):
    """Refuses Flate streams that inflate past the bound: read raw, inflate with a cap."""
    for obj in pdf.objects:
        if not isinstance(obj, pikepdf.Stream):
            continue
        filters = obj.get('/Filter')
        names = [filters] if isinstance(filters, Name) else list(filters or [])
        if Name.FlateDecode not in names:
            continue
        d = zlib.decompressobj()
        try:
            d.decompress(obj.read_raw_bytes(), MAX_INFLATED)
        except zlib.error:
            continue  # a broken stream is the reader's problem, not a bomb
        if d.unconsumed_tail:
            raise InputProblem(field, f'has a stream that inflates past {MAX_INFLATED} bytes (a compression bomb?)')


def reason(e, path):
    """qpdf's message without our file's path (callers learn nothing of the worker's disk)."""
    text = str(e)
    if path:
        text = text.replace(path + ': ', '').replace(path, 'the file')
    return text[:200]


def open_extra(path, field):
    step(field)
    try:
        src = pikepdf.open(path)
    except pikepdf.PasswordError:
        raise InputProblem(field, 'is encrypted: send it without a password')
    except Exception as e:  # qpdf's own errors: not a readable PDF
        raise InputProblem(field, f'is not a readable PDF ({reason(e, path)})')
    if src.is_encrypted:
        raise InputProblem(field, 'is encrypted: send it without a password')
    try:
        pages = len(src.pages)
    except Exception as e:
        raise InputProblem(field, f'has a broken page tree ({reason(e, path)})')
    if pages == 0:
        raise InputProblem(field, 'has no pages')
    check_streams(src, field)
    return src


def link_targets(src):
    """For each page: (annotation index, 'Dest' or 'A', target page index) of its internal links."""
    index = {page.obj.objgen: i for i, page in enumerate(src.pages)}
    out = []
    for page in src.pages:
        links = []
        for j, annot in enumerate(page.obj.get('/Annots', [])):
            if not isinstance(annot, pikepdf.Dictionary) or annot.get('/Subtype') != Name.Link:
                continue
            for key, dest in (('Dest', annot.get('/Dest')), ('A', (annot.get('/A') or {}).get('/D'))):
                if isinstance(dest, pikepdf.Array) and len(dest) > 0 and isinstance(dest[0], pikepdf.Dictionary):
                    target = index.get(dest[0].objgen)
                    if target is not None:
                        links.append((j, key, target))
        out.append(links)
    return out


def add_pages(pdf, src, at, field):
    """src's pages into pdf at `at`, their links to each other kept (qpdf copies each page alone,
    so a link's page reference would otherwise come out null: a dead link)."""
    step(field)
    try:
        targets = link_targets(src)
        for k, page in enumerate(src.pages):
            pdf.pages.insert(at + k, page)
        for k, links in enumerate(targets):
            annots = pdf.pages[at + k].obj.get('/Annots')
            for j, key, target in links:
                annot = annots[j]
                dest = annot.Dest if key == 'Dest' else annot.A.D
                dest[0] = pdf.pages[at + target].obj
    except Exception as e:  # a structure qpdf read but cannot copy: the caller's file
        raise InputProblem(field, f'could not be added ({reason(e, src.filename)})')


def hex_color(text):
    return tuple(int(text[i:i + 2], 16) / 255 for i in (1, 3, 5))


def watermark_font(text):
    """DejaVu Sans (in both worker images); a CJK font when DejaVu lacks the text's characters."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    candidates = [
        ('WmDejaVu', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 0),
        ('WmZenHei', '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc', 0),
    ]
    chosen = None
    for name, path, index in candidates:
        try:
            font = TTFont(name, path, subfontIndex=index)
        except Exception:
            continue
        chosen = chosen or name
        if name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(font)
        cmap = font.face.charToGlyph
        if all(ord(c) in cmap or c.isspace() for c in text):
            return name
    if chosen is None:
        raise RuntimeError('no watermark font found (fonts-dejavu-core)')
    return chosen


def add_watermark(pdf, w, tagged):
    import io
    import math

    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfgen import canvas

    text = w['text']
    font = watermark_font(text)
    angle = float(w.get('angle', 45))
    opacity = float(w.get('opacity', 0.3))
    r, g, b = hex_color(w.get('color', '#808080'))
    # One watermark page per page geometry (size and /Rotate), drawn in that page's own space.
    shapes = {}
    order = []
    for page in pdf.pages:
        box = [float(v) for v in page.mediabox]
        rotate = int(page.obj.get('/Rotate', 0)) % 360
        key = (round(box[2] - box[0], 2), round(box[3] - box[1], 2), rotate)
        if key not in shapes:
            shapes[key] = len(order)
            order.append(key)
    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    for width, height, rotate in order:
        c.setPageSize((width, height))
        size = w.get('font_size')
        if size is None:
            # Fitted: the text spans about 70 % of the page's diagonal, at most 144 pt.
            unit = pdfmetrics.stringWidth(text, font, 1) or 1
            size = min(144.0, 0.7 * math.hypot(width, height) / unit)
        # No saveState/restoreState: poppler drops the ActualText of a span holding q…Q.
        c.setFillColorRGB(r, g, b)
        c.setFillAlpha(opacity)
        c.setFont(font, size)
        c.translate(width / 2, height / 2)
        # A page shown rotated by /Rotate: the text is drawn turned back so it reads at `angle`.
        c.rotate(angle + rotate)
        c.drawCentredString(0, -size * 0.35, text)
        c.showPage()
    c.save()
    wm = pikepdf.open(io.BytesIO(buf.getvalue()))
    for wm_page in wm.pages:
        # Text drawn on a slant is read back as scattered letters: an ActualText span gives text
        # extraction and search the words. A tagged (PDF/UA) document marks it as a pagination
        # artifact instead, which PDF/UA asks of watermarks (readers then skip it).
        if tagged:
            tag, props = Name.Artifact, pikepdf.Dictionary(Type=Name.Pagination, Subtype=Name.Watermark)
        else:
            tag, props = Name.Span, pikepdf.Dictionary(ActualText=pikepdf.String(text))
        ops = pikepdf.parse_content_stream(wm_page)
        ops.insert(0, pikepdf.ContentStreamInstruction([tag, props], pikepdf.Operator('BDC')))
        ops.append(pikepdf.ContentStreamInstruction([], pikepdf.Operator('EMC')))
        wm_page.obj.Contents = wm.make_stream(pikepdf.unparse_content_stream(ops))
    marks = [pdf.copy_foreign(wm.pages[i].as_form_xobject()) for i in range(len(order))]
    for page in pdf.pages:
        box = [float(v) for v in page.mediabox]
        rotate = int(page.obj.get('/Rotate', 0)) % 360
        key = (round(box[2] - box[0], 2), round(box[3] - box[1], 2), rotate)
        page.add_overlay(marks[shapes[key]], pikepdf.Rectangle(*box))


def attach(pdf, name, data, mime, description, relationship, now):
    spec = pikepdf.AttachedFileSpec(
        pdf,
        data,
        description=description or '',
        filename=name,
        mime_type=mime,
        creation_date=pdf_date(now),
        mod_date=pdf_date(now),
    )
    pdf.attachments[name] = spec
    # PDF/A-3 associated files: the relationship on the file spec, the spec in the catalog's /AF.
    filespec = pdf.Root.Names.EmbeddedFiles.Names
    obj = None
    for i in range(0, len(filespec), 2):
        if str(filespec[i]) == name:
            obj = filespec[i + 1]
    obj.AFRelationship = Name('/' + relationship)
    if '/AF' not in pdf.Root:
        pdf.Root.AF = Array()
    pdf.Root.AF.append(obj)


def check_cii(data, field):
    step(field)
    if b'<!DOCTYPE' in data or b'<!ENTITY' in data:
        raise InputProblem(field, 'must not declare a DOCTYPE or entities', 'invalid_einvoice')
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        raise InputProblem(field, f'is not well-formed XML ({e})', 'invalid_einvoice')
    if root.tag != '{%s}CrossIndustryInvoice' % CII_NS:
        raise InputProblem(
            field,
            f'must have the root rsm:CrossIndustryInvoice in {CII_NS}, not {root.tag}',
            'invalid_einvoice',
        )


FX_XMP = '''<rdf:Description rdf:about="" xmlns:fx="{ns}">
<fx:DocumentType>INVOICE</fx:DocumentType>
<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
<fx:Version>1.0</fx:Version>
<fx:ConformanceLevel>{level}</fx:ConformanceLevel>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
<pdfaSchema:namespaceURI>{ns}</pdfaSchema:namespaceURI>
<pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property><rdf:Seq>{props}</rdf:Seq></pdfaSchema:property>
</rdf:li></rdf:Bag></pdfaExtension:schemas>
</rdf:Description>
'''
FX_PROPS = [
    ('DocumentFileName', 'Name of the embedded XML invoice file'),
    ('DocumentType', 'INVOICE'),
    ('Version', 'The actual version of the Factur-X XML schema'),
    ('ConformanceLevel', 'The conformance level of the embedded Factur-X data'),
]


def facturx_xmp(pdf, profile):
    """Adds the fx properties and their PDF/A extension schema to the converter's XMP packet."""
    if '/Metadata' not in pdf.Root:
        raise RuntimeError('the converter wrote no XMP metadata (PDF/A-3b was asked for)')
    xmp = pdf.Root.Metadata.read_bytes().decode('utf-8')
    props = ''.join(
        '<rdf:li rdf:parseType="Resource"><pdfaProperty:name>%s</pdfaProperty:name>'
        '<pdfaProperty:valueType>Text</pdfaProperty:valueType>'
        '<pdfaProperty:category>external</pdfaProperty:category>'
        '<pdfaProperty:description>%s</pdfaProperty:description></rdf:li>' % p
        for p in FX_PROPS
    )
    block = FX_XMP.format(ns=FX_NS, level=profile, props=props)
    end = xmp.rfind('</rdf:RDF>')
    if end < 0:
        raise RuntimeError('the converter\'s XMP has no rdf:RDF')
    pdf.Root.Metadata.write((xmp[:end] + block + xmp[end:]).encode('utf-8'))


def permissions(p):
    print_level = p.get('print', 'high')
    modify = p.get('modify', True)
    return pikepdf.Permissions(
        accessibility=p.get('accessibility', True),
        extract=p.get('copy', True),
        modify_annotation=p.get('annotate', True),
        modify_assembly=modify,
        modify_form=p.get('fill_forms', True),
        modify_other=modify,
        print_lowres=print_level in ('low', 'high'),
        print_highres=print_level == 'high',
    )


def finish(job):
    now = datetime.now(timezone.utc)
    step('converted document')
    pdf = pikepdf.open(job['main'])
    root = job['path']
    xml = None
    if job.get('facturx'):
        # Checked first: a bad invoice is refused before any PDF work.
        with open(job['facturx']['path'], 'rb') as f:
            xml = f.read()
        check_cii(xml, f'{root}.facturx.xml')
    extras = []  # kept open until saved: copied pages refer to their source
    for i, path in enumerate(job.get('prepend', [])):
        src = open_extra(path, f'{root}.prepend[{i}].data')
        extras.append(src)
    at = 0
    for i, src in enumerate(extras):
        add_pages(pdf, src, at, f'{root}.prepend[{i}].data')
        at += len(src.pages)
    for i, path in enumerate(job.get('append', [])):
        field = f'{root}.append[{i}].data'
        src = open_extra(path, field)
        extras.append(src)
        add_pages(pdf, src, len(pdf.pages), field)
    if job.get('watermark'):
        step('watermark')
        add_watermark(pdf, job['watermark'], job.get('tagged', False))
    for i, a in enumerate(job.get('attachments', [])):
        step(f'{root}.attachments[{i}]')
        with open(a['path'], 'rb') as f:
            data = f.read()
        attach(pdf, a['name'], data, a['mime_type'], a.get('description'), a.get('relationship', 'Unspecified'), now)
    if job.get('facturx'):
        step('facturx')
        profile = job['facturx']['profile']
        attach(pdf, 'factur-x.xml', xml, 'text/xml', 'Factur-X invoice', FX_RELATIONSHIP.get(profile, 'Alternative'), now)
        facturx_xmp(pdf, profile)
    step('save')
    encryption = None
    e = job.get('encryption')
    if e:
        encryption = pikepdf.Encryption(
            owner=e['owner_password'],
            user=e.get('user_password', ''),
            R=6,
            aes=True,
            allow=permissions(e.get('permissions', {})),
        )
    pages = len(pdf.pages)
    pdf.save(job['out'], encryption=encryption if encryption else False)
    return pages


def main():
    job = json.loads(sys.stdin.read())
    try:
        pages = finish(job)
    except InputProblem as p:
        sys.stdout.write(json.dumps({'error': {'kind': p.kind, 'field': p.field, 'message': str(p)}}))
        sys.exit(2)
    sys.stdout.write(json.dumps({'ok': True, 'pages': pages}))


if __name__ == '__main__':
    main()
