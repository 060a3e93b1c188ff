"""Reads a workbook with openpyxl (Debian's python3-openpyxl) and prints what the spreadsheet
tests assert, as JSON: each sheet's cells (value and Python type), number formats, row heights,
merged ranges, tables, conditional formats and validations, and the workbook's defined names.

Usage: /usr/bin/python3 xlsx_read.py < book.xlsx
"""
import datetime
import io
import json
import sys

import openpyxl

wb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()))
out = {"sheets": {}, "names": {}}
for ws in wb.worksheets:
    cells = {}
    for row in ws.iter_rows():
        for c in row:
            if c.value is None:
                continue
            v = c.value
            if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
                v = v.isoformat()
            cells[c.coordinate] = {"value": v, "type": type(c.value).__name__, "format": c.number_format}
    tables = ws.tables.items() if hasattr(ws.tables, "items") else []
    out["sheets"][ws.title] = {
        "cells": cells,
        "heights": {str(r): d.height for r, d in ws.row_dimensions.items() if d.height is not None},
        "merged": sorted(str(r) for r in ws.merged_cells.ranges),
        "tables": {name: ref if isinstance(ref, str) else ref.ref for name, ref in tables},
        "conditional": sorted(str(r.sqref) for r in ws.conditional_formatting),
        "validations": sorted(str(d.sqref) for d in ws.data_validations.dataValidation),
        "print_area": ws.print_area,
    }
for d in wb.defined_names.definedName:
    out["names"][d.name] = d.attr_text
json.dump(out, sys.stdout)
