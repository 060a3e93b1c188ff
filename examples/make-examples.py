#!/usr/bin/env python3
"""Writes the README's examples:
- examples/invoice.docx (a Word template with Jinja tags) and examples/invoice-request.json (the
  `request_data` of an enhanced request for it, with a PNG logo);
- examples/letter.docx and examples/letter-data.json, the legacy-mode (`data`) example.

    /usr/bin/python3 examples/make-examples.py      # needs python3-docx (Debian)

The template uses what the service supports: variables with dot notation, a table row loop
(`{%tr for ... %}` / `{%tr endfor %}`), a condition and an image variable (`{{ logo }}`, filled
from `images.logo`).
"""
import base64
import json
import os
import struct
import zlib

import docx
from docx.shared import Pt

HERE = os.path.dirname(os.path.abspath(__file__))


def png(width, height, pixel):
    """A truecolour PNG where pixel(x, y) -> (r, g, b)."""
    raw = b''.join(b'\x00' + b''.join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


def logo_pixel(x, y):
    # a blue disc on a white background
    inside = (x - 60) ** 2 + (y - 30) ** 2 < 26 ** 2 or 100 < x < 116
    return (30, 80, 160) if inside else (255, 255, 255)


def make_template(path):
    d = docx.Document()
    d.styles['Normal'].font.name = 'Carlito'
    d.styles['Normal'].font.size = Pt(11)
    d.add_paragraph('{{ logo }}')
    d.add_heading('Invoice {{ invoice.number }}', 1)
    d.add_paragraph('Date: {{ invoice.date }}')
    d.add_paragraph('Bill to: {{ customer.name }}')
    d.add_paragraph('{{ customer.address }}')
    t = d.add_table(rows=4, cols=4)
    t.style = 'Table Grid'
    for cell, text in zip(t.rows[0].cells, ['Item', 'Qty', 'Unit price', 'Amount']):
        cell.text = text
    t.rows[1].cells[0].text = '{%tr for item in items %}'
    for cell, text in zip(
        t.rows[2].cells, ['{{ item.description }}', '{{ item.quantity }}', '{{ item.unit_price }}', '{{ item.amount }}']
    ):
        cell.text = text
    t.rows[3].cells[0].text = '{%tr endfor %}'
    d.add_paragraph('Total: {{ total }} EUR')
    d.add_paragraph('{% if notes %}Notes: {{ notes }}{% endif %}')
    d.save(path)


def make_request(path):
    items = [
        {'description': 'Widget, blue', 'quantity': 3, 'unit_price': '12.50', 'amount': '37.50'},
        {'description': 'Gear assembly', 'quantity': 1, 'unit_price': '249.00', 'amount': '249.00'},
        {'description': 'Service hour', 'quantity': 4, 'unit_price': '85.00', 'amount': '340.00'},
    ]
    request = {
        'template_data': {
            'invoice': {'number': 'INV-2024-0042', 'date': '2024-05-17'},
            'customer': {'name': 'Müller & Söhne GmbH', 'address': 'Hauptstraße 1, 10115 Berlin'},
            'items': items,
            'total': '626.50',
            'notes': 'Payable within 30 days.',
            'logo': 'logo',
        },
        'images': {'logo': {'data': base64.b64encode(png(120, 60, logo_pixel)).decode('ascii'), 'width_mm': 40}},
    }
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(request, f, ensure_ascii=False, indent=2)
        f.write('\n')
    # The same request as the v1.6+ form's separate fields (data, images).
    for name, value in (('invoice-data.json', request['template_data']), ('invoice-images.json', request['images'])):
        with open(os.path.join(HERE, name), 'w', encoding='utf-8') as f:
            json.dump(value, f, ensure_ascii=False, indent=2)
            f.write('\n')


def make_letter(path, data_path):
    """A letter without images: what legacy-mode callers send."""
    d = docx.Document()
    d.styles['Normal'].font.name = 'Carlito'
    d.styles['Normal'].font.size = Pt(11)
    d.add_paragraph('{{ sender }}')
    d.add_paragraph('{{ date }}')
    d.add_paragraph('Dear {{ name }},')
    d.add_paragraph('thank you for your order of {{ items | length }} item{{ "s" if items | length != 1 }}:')
    d.add_paragraph('{%p for item in items %}')
    d.add_paragraph('{{ loop.index }}. {{ item }}', style='List Paragraph')
    d.add_paragraph('{%p endfor %}')
    d.add_paragraph('Kind regards,')
    d.add_paragraph('{{ sender }}')
    d.save(path)
    with open(data_path, 'w', encoding='utf-8') as f:
        json.dump({'name': 'Ada', 'sender': 'ACME Widgets', 'date': '2024-05-17',
                   'items': ['Widget, blue', 'Gear assembly']}, f, indent=2)
        f.write('\n')


if __name__ == '__main__':
    make_template(os.path.join(HERE, 'invoice.docx'))
    make_request(os.path.join(HERE, 'invoice-request.json'))
    make_letter(os.path.join(HERE, 'letter.docx'), os.path.join(HERE, 'letter-data.json'))
    print('wrote examples/invoice.docx, invoice-request.json, letter.docx and letter-data.json')
