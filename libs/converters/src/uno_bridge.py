#!/usr/bin/python3
"""Persistent UNO bridge: keeps one headless LibreOffice (soffice.bin) running and converts
documents to PDF on request, spoken to over stdin/stdout with line-delimited JSON.

Why hand-written: there is no maintained Node library that speaks UNO (the URP protocol) and
the Python ones (unoserver, unoconv) either run their own server process per call or a
XML-RPC server we would then have to supervise as well. Debian's python3-uno gives us the
UNO runtime itself; the ~150 lines below are just the glue. Run it with /usr/bin/python3, whose
dist-packages hold `uno`.

Process layout: Node spawns this script in a process group of its own; this script spawns
soffice.bin in the same group with PR_SET_PDEATHSIG, so
  * Node kills the whole group (kill(-pgid)) to stop a hung or stuck instance,
  * soffice dies with this script if Node or this script dies (no orphaned soffice),
  * this script exits when its stdin closes (Node went away).

Protocol (one JSON object per line):
  <- {"starting": true, "elapsed_ms": 3000, "cpu_ms": 800}       once a second while soffice starts
  <- {"ready": true, "pid": <soffice pid>, "ms": <start time>, "cpu_ms": <soffice's CPU>}
                                                                    once soffice accepts UNO calls
  -> {"id": 1, "in": "/abs/in.docx", "out": "/abs/out.pdf",         convert (default command)
      "updateIndexes": true,                                          refresh TOCs, indexes, fields
      "metadata": {"title": "...", "author": "...", ...},             document properties
      "filterData": {"SelectPdfVersion": 2, "UseLosslessCompression": true, ...}}
      "part": {"table": 0, "headerRows": 1, "lead": 48, "last": false,    one part of a long table (find_cut)
               "leadTop": 5120, "cutTable": 1, "cutHeaderRows": 1, "cutRows": 230},
      "target": {"filter": "writer8", "options": "..."}}               another export filter than PDF
                                                                    (ODT, HTML, text; filterData is then
                                                                    not passed: it is the PDF filter's)
  <- {"id": 1, "ok": true, "ms": 87, "load_ms": 40, "export_ms": 45}
  <- {"id": 1, "ok": true, ..., "pages": 9, "cutRow": 459, "rowsPerPage": 51, "leadShift": 0, "leadTop": null}
  <- {"id": 1, "ok": false, "error": "...", "crashed": false}     crashed: soffice died meanwhile
  -> {"id": 2, "cmd": "ping"}                                       one UNO round trip
  -> {"id": 3, "cmd": "quit"}                                       terminate soffice, then exit
  <- {"event": "exited", "code": <soffice exit code>}             soffice died; this script exits 3
"""

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException

# soffice.bin exits with this code after it created a fresh profile and wants a restart
# (oosplash normally handles it; we start soffice.bin directly to know its real pid).
EXIT_RESTART = 81
EXIT_SOFFICE_DIED = 3
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

_out_lock = threading.Lock()
_quitting = threading.Event()


def send(obj):
    line = json.dumps(obj, separators=(",", ":")) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def die_with_parent():
    # Runs in the child between fork and exec: SIGKILL soffice when this script dies.
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def parse_args(argv):
    args = {}
    it = iter(argv)
    for key in it:
        if not key.startswith("--"):
            raise SystemExit("unexpected argument: " + key)
        args[key[2:]] = next(it)
    for required in ("soffice", "profile", "pipe"):
        if required not in args:
            raise SystemExit("missing --" + required)
    return args


class Office:
    def __init__(self, soffice, profile, pipe, start_timeout, start_max, preload=None):
        self.soffice = soffice
        self.profile = profile
        self.pipe = pipe
        self.start_timeout = start_timeout
        self.start_max = start_max
        self.cpu_before = 0.0
        self.start_cpu_ms = 0
        # A library for soffice.bin's LD_PRELOAD only (the allocator, allocator.ts): this
        # interpreter keeps its own.
        self.env = None
        if preload:
            self.env = dict(os.environ)
            self.env["LD_PRELOAD"] = " ".join(p for p in (preload, os.environ.get("LD_PRELOAD")) if p)
        self.proc = None
        self.desktop = None

    def launch(self):
        cmd = [
            self.soffice,
            "-env:UserInstallation=" + uno.systemPathToFileUrl(self.profile),
            "--headless",
            "--invisible",
            "--nocrashreport",
            "--nodefault",
            "--nologo",
            "--nofirststartwizard",
            "--norestore",
            "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % self.pipe,
        ]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sys.stderr,
            env=self.env,
            preexec_fn=die_with_parent,
        )

    def cpu_seconds(self):
        """CPU time (user + system, every thread) soffice has used so far, over relaunches."""
        try:
            with open("/proc/%d/stat" % self.proc.pid) as f:
                # Fields after the command name (which may hold spaces): utime, stime are 14, 15.
                fields = f.read().rsplit(")", 1)[1].split()
            return self.cpu_before + (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        except (OSError, IndexError, ValueError):
            return self.cpu_before

    def start(self):
        """Waits for soffice to accept UNO connections. The start timeout counts time without
        progress, not time: on a starved machine (load 10 on 2 cores) soffice needs minutes of
        wall clock for its ~2 s of CPU, and a fixed deadline killed every start there. It gives
        up when soffice used no CPU for `start_timeout` (stopped, blocked: hung), when it used
        `start_timeout` of CPU without answering (spinning), when it exits, or after
        `start_max` in all. Reports progress once a second ({"starting": true, ...})."""
        started = time.monotonic()
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        url = "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % self.pipe
        self.cpu_before = 0.0
        self.launch()
        relaunches = 0
        cpu = 0.0
        progress_at = started
        reported_at = started
        while True:
            code = self.proc.poll()
            if code is not None:
                if code == EXIT_RESTART and relaunches < 3:
                    relaunches += 1
                    self.cpu_before = cpu
                    self.launch()
                    continue
                raise RuntimeError("soffice exited with code %s during start" % code)
            try:
                ctx = resolver.resolve(url)
                break
            except NoConnectException:
                now = time.monotonic()
                used = self.cpu_seconds()
                if used > cpu:
                    cpu, progress_at = used, now
                if now - progress_at > self.start_timeout:
                    raise RuntimeError("soffice made no progress (used no CPU) for %.1fs during start "
                                       "(%.1fs CPU in %.1fs)" % (self.start_timeout, cpu, now - started))
                if cpu > self.start_timeout:
                    raise RuntimeError("soffice used %.1fs of CPU without accepting UNO connections"
                                       % cpu)
                if now - started > self.start_max:
                    raise RuntimeError("soffice did not accept UNO connections within %.1fs (%.1fs CPU)"
                                       % (self.start_max, cpu))
                if now - reported_at >= 1.0:
                    reported_at = now
                    send({"starting": True, "elapsed_ms": int((now - started) * 1000),
                          "cpu_ms": int(cpu * 1000)})
                time.sleep(0.05)
        self.desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        self.start_cpu_ms = int(max(cpu, self.cpu_seconds()) * 1000)
        return int((time.monotonic() - started) * 1000)

    def convert(self, src, dst, update_indexes=False, metadata=None, filter_data=None, part=None, target=None):
        load_props = (
            prop("Hidden", True),
            prop("ReadOnly", True),
            # The input is a filled .docx unless the target names its import filter (a filled
            # .xlsx: "Calc MS Excel 2007 XML"; a filled .pptx: "Impress MS PowerPoint 2007 XML",
            # exported by impress_pdf_Export, one page per slide): naming the filter skips type detection and
            # makes a corrupt file fail instead of being imported as plain text.
            prop("FilterName", str((target or {}).get("importFilter") or "MS Word 2007 XML")),
            prop("UpdateDocMode", 0),  # NO_UPDATE: never fetch linked content
            prop("MacroExecutionMode", 0),  # NEVER_EXECUTE
        )
        started = time.monotonic()
        doc = self.desktop.loadComponentFromURL(uno.systemPathToFileUrl(src), "_blank", 0, load_props)
        loaded = time.monotonic()
        if doc is None:
            raise ValueError("LibreOffice could not open the document")
        try:
            if (target or {}).get("importFilter") and hasattr(doc, "calculateAll"):
                # A filled workbook's formulas carry no cached results (rows moved): computed now.
                doc.calculateAll()
            elif update_indexes:
                refresh_fields_and_indexes(doc)
            set_metadata(doc, metadata or {})
            filter_data = dict(filter_data or {})
            found = {}
            if part is not None:
                found = find_cut(doc, part)
                if not found["pages"]:  # nowhere to cut, or the lead to change: nothing to export
                    return dict(found, load_ms=int((loaded - started) * 1000), export_ms=0)
                filter_data["PageRange"] = "%d-%d" % (found["first"], found["first"] + found["pages"] - 1)
            # FilterData is an Any holding a PropertyValue sequence: pyuno cannot infer that type
            # from a Python tuple, so uno.Any names it and uno.invoke passes it on as it is.
            if target:
                # One bridge for every output: the same load, refresh and properties, another filter
                # (its options string, e.g. HTML's "EmbedImages" or the text filter's encoding).
                export = (prop("FilterName", str(target["filter"])),)
                if target.get("options"):
                    export += (prop("FilterOptions", str(target["options"])),)
                if target.get("withFilterData"):
                    data = uno.Any("[]com.sun.star.beans.PropertyValue",
                                   tuple(prop(k, v) for k, v in sorted(filter_data.items())))
                    export += (prop("FilterData", data),)
            else:
                data = uno.Any("[]com.sun.star.beans.PropertyValue",
                               tuple(prop(k, v) for k, v in sorted(filter_data.items())))
                export = (prop("FilterName", "writer_pdf_Export"), prop("FilterData", data))
            uno.invoke(doc, "storeToURL", (uno.systemPathToFileUrl(dst), export))
        finally:
            try:
                doc.close(True)
            except Exception:
                doc.dispose()
        # Import and export apart: where a long document's time goes (bench/bigdocs.bench.ts).
        return dict(found, load_ms=int((loaded - started) * 1000), export_ms=int((time.monotonic() - loaded) * 1000))

    def ping(self):
        self.desktop.getFrames().getCount()

    def soffice_dead(self):
        # A call failing because soffice died can race with the exit: give it a moment.
        try:
            self.proc.wait(timeout=0.2)
            return True
        except subprocess.TimeoutExpired:
            pass
        # Not reaped yet is not alive: the watch thread holds the wait, and a SIGKILLed soffice
        # with a large heap takes a while to exit. One UNO round trip tells.
        try:
            self.ping()
            return False
        except Exception:
            return True

    def quit(self):
        try:
            self.desktop.terminate()
        except Exception:
            pass  # terminate() usually drops the connection before it answers
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# Fields whose value the layout itself gives, on every page, at export: refreshing them only lays
# the document out once more.
LAYOUT_FIELDS = ("com.sun.star.text.TextField.PageNumber", "com.sun.star.text.TextField.PageCount")


# A part of a split conversion shows the whole document's page count through a DOCPROPERTY field
# on this custom property (split/docx-parts.ts): a refresh would read the same value again.
TOTAL_PAGES_PROPERTY = "DocgenTotalPages"


def is_total_pages(field):
    return (field.supportsService("com.sun.star.text.TextField.DocInfo.Custom")
            and field.getPropertyValue("Name") == TOTAL_PAGES_PROPERTY)


def only_layout_fields(fields):
    """No field, or only page numbers and page counts (Word's PAGE and NUMPAGES, and a part's total)."""
    items = fields.createEnumeration()
    while items.hasMoreElements():
        field = items.nextElement()
        if not any(field.supportsService(name) for name in LAYOUT_FIELDS) and not is_total_pages(field):
            return False
    return True


def refresh_fields_and_indexes(doc):
    """What Word does on "Update field" for the whole document: indexes (tables of contents,
    alphabetical indexes, tables of figures) rebuilt from the headings, then fields (PAGE,
    NUMPAGES, cross-references, dates) recomputed. Indexes go twice: a rebuilt table of contents
    can change the page count and so its own page numbers."""
    indexes = doc.getDocumentIndexes() if hasattr(doc, "getDocumentIndexes") else None
    count = indexes.getCount() if indexes is not None else 0
    fields = doc.getTextFields() if hasattr(doc, "getTextFields") else None
    if not count and (fields is None or only_layout_fields(fields)):
        # Nothing a refresh could change, and its layout pass is the export's to do anyway: an
        # invoice of 500 rows converts 14 % faster without it (bench/service.bench.ts floor), a
        # 2,000-row statement with "Page X of Y" in its footer 28 % (3.03 -> 2.17 s, same pages).
        return
    for _ in range(2 if count else 0):
        for i in range(count):
            indexes.getByIndex(i).update()
    if fields is not None:
        fields.refresh()
    if hasattr(doc, "refresh"):
        doc.refresh()  # the document's own XRefreshable: lays it out again with the new content


# Attempts at a spacer that puts a part's first lead row where the page before the cut has it.
SPACER_TRIES = 4


def find_cut(doc, part):
    """Where a part of a long table may end (libs/converters/src/split/): the first row of the
    last page that its rows reach, provided the row before it ends on the page before (a row split
    across the break is no place to cut). The pages before that row are the part's share of the
    whole document; the caller starts the next part at that row. Also the rows that start on the
    page before (the next part's lead) and, when that page does not itself start at a row (a row
    broken across its top, or the text before the table on the document's first page), where the
    first of them stands on it ("leadTop").

    A part after the first starts with `lead` rows of the page before it, which fill a first page
    that is not exported: its own first row then starts page 2 as a continued table, as in the
    whole document (a table's first page lays its repeated header out 1 pt taller than a
    continued one). With "leadTop", the part's first paragraph (1 pt, before the table) is made a
    spacer that puts the first lead row at that height, so the lead rows end that page where the
    whole document's do. When the part's own first row does not start page 2, "leadShift" says by
    how many rows to change `lead`, and nothing is exported.

    Layout positions come from the view cursor (XPageCursor.getPage, the physical page;
    XTextViewCursor.getPosition, 1/100 mm down the pages laid out one under the other): each
    query costs a few milliseconds on a laid-out document, so rows are found by binary search
    (about 30 queries a part), not row by row. Returns {"first", "pages", "cutRow", "rowsPerPage",
    "leadShift", "leadTop"}: export pages first..first+pages-1; "cutRow" (counted from the part's
    own first row) is None when no page break falls between two rows."""
    cursor = doc.getCurrentController().getViewCursor()
    # Rows after "cutRows" in the cut table only pad it (docx-parts.ts, LARGE_TABLE_ROWS): no cut there.
    limit = part.get("cutRows")
    lead_rows = TableRows(cursor, body_table(doc, int(part["table"])), int(part.get("headerRows", 0)),
                          None if part.get("cutTable") not in (None, part["table"]) else limit)
    lead = int(part.get("lead", 0))
    lead_top = part.get("leadTop")
    own = lead_rows.header + lead  # the part's own first row, in the table
    # The table the cut is looked for in: the part's last (of several long ones), else the same.
    if part.get("cutTable") is not None and int(part["cutTable"]) != int(part["table"]):
        rows = TableRows(cursor, body_table(doc, int(part["cutTable"])), int(part.get("cutHeaderRows", 0)), limit)
        own_cut = rows.header
    else:
        rows, own_cut = lead_rows, own

    def page_top(page):
        """Height of `page`'s first character down the laid-out pages."""
        cursor.jumpToPage(page)
        cursor.jumpToStartOfPage()
        return cursor.getPosition().Y

    result = {"first": 1, "pages": None, "cutRow": None, "rowsPerPage": None, "leadShift": 0, "leadTop": None}
    if lead_rows.count <= own:
        return result
    if lead and lead_top is not None:
        if not place_lead(doc, lead_rows.row_y, lead_rows.header, int(lead_top)):
            return result
        lead_rows.starts.clear()
        rows.starts.clear()
    cursor.jumpToLastPage()
    layout_pages = cursor.getPage()
    if lead:
        # The lead page is the table's first page: page 1, unless LibreOffice put a blank page
        # before it (seen on 25.2 when the table itself carried an even page number offset; the
        # part's first paragraph carries it now). Pages before the table are never exported.
        lead_page = lead_rows.start_page(0)
        if not lead_rows.starts_page(own, lead_page + 1):
            if lead_top is not None:
                return result  # the spacer was right and the rows still end elsewhere: no cut here
            second = lead_rows.first_row_on(lead_page + 1)
            # No row starts the page after the lead page (the lead rows end with the part): one row more.
            result["leadShift"] = (second - own) if second is not None and second != own else 1
            return result
        result["first"] = lead_page + 1
    if part.get("last"):
        result["pages"] = layout_pages - result["first"] + 1
        return result
    if rows.count <= own_cut:
        return result
    top = rows.start_page(own_cut)
    table_page = rows.start_page(rows.header)  # the table's first page
    page = rows.start_page(rows.count - 1)
    # Rows may break across page breaks (Word's default): a page that starts at a row is looked
    # for on every page the part's own rows reach, last first. The next part's lead page holds
    # the rows that start on the page before it; when that page starts otherwise (a row broken
    # across its top, or a page with text before the table), a spacer puts them where they
    # stand here (leadTop), measured from the page's top.
    stride = None
    clean_start = lead and rows is lead_rows  # the part's own first row starts a page
    while page > top:
        row = rows.first_row_on(page)
        if row is not None and row > own_cut and rows.starts_page(row, page):
            before = rows.first_row_on(page - 1)
            if before is not None and own_cut <= before < row:
                if (before > own_cut or clean_start) and rows.starts_page(before, page - 1) or (
                        before == own_cut and clean_start):
                    result.update(pages=page - result["first"], cutRow=row - own_cut, rowsPerPage=row - before)
                    return result
                # Pages lie one under the other, each the same height and gap: from two
                # continued pages of the table (which start alike), the height of each.
                if page - 1 > 1 and stride is None and page - 1 > table_page:
                    stride = (page_top(page) - page_top(table_page + 1)) / (page - table_page - 1)
                if page - 1 == 1 or stride is not None:
                    _, y = rows.row_y(before)
                    origin = 0 if page - 1 == 1 else (page - 2) * stride
                    result.update(pages=page - result["first"], cutRow=row - own_cut, rowsPerPage=row - before,
                                  leadTop=int(round(y - origin)))
                    return result
        page -= 1
    return result


class TableRows:
    """A table's rows as laid out: the page each starts on (cached), found through the view cursor."""

    def __init__(self, cursor, table, header, limit=None):
        self.cursor = cursor
        self.table = table
        self.header = header
        self.rows = row_cells(table)
        self.count = len(self.rows) if limit is None else min(len(self.rows), int(limit))
        self.starts = {}

    def page_at(self, text_range):
        self.cursor.gotoRange(text_range, False)
        return self.cursor.getPage()

    def row_y(self, i):
        """The page of row i's first character, and its height down the laid-out pages."""
        self.cursor.gotoRange(self.table.getCellByName(self.rows[i][0]).getStart(), False)
        return self.cursor.getPage(), self.cursor.getPosition().Y

    def start_page(self, i):
        if i not in self.starts:
            self.starts[i] = self.page_at(self.table.getCellByName(self.rows[i][0]).getStart())
        return self.starts[i]

    def first_row_on(self, page):
        lo, hi = self.header, self.count - 1
        if self.start_page(hi) < page:
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if self.start_page(mid) >= page:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def starts_page(self, row, page):
        """Row `row` is the first on `page` and the row before it ends on the page before."""
        if row <= self.header or row >= self.count or self.start_page(row) != page or self.first_row_on(page) != row:
            return False
        return max(self.page_at(self.table.getCellByName(name).getEnd()) for name in self.rows[row - 1]) < page


def place_lead(doc, row_y, first_lead_row, lead_top):
    """Sets the line height of the part's first paragraph (its 1-pt spacer, docx-parts.ts) so
    that row `first_lead_row` starts `lead_top` (1/100 mm) down page 1; False when it cannot."""
    items = doc.getText().createEnumeration()
    spacer = items.nextElement() if items.hasMoreElements() else None
    if spacer is None or not spacer.supportsService("com.sun.star.text.Paragraph"):
        return False
    for _ in range(SPACER_TRIES):
        page, y = row_y(first_lead_row)
        if page != 1:
            return False
        shift = lead_top - y
        if abs(shift) <= 1:
            return True
        spacing = spacer.getPropertyValue("ParaLineSpacing")
        height = spacing.Height + shift
        if spacing.Mode != 3 or height < 1:  # 3: FIX, what a w:lineRule="exact" imports as
            return False
        spacing.Height = height
        spacer.setPropertyValue("ParaLineSpacing", spacing)
    page, y = row_y(first_lead_row)
    return page == 1 and abs(lead_top - y) <= 1


def body_table(doc, ordinal):
    """The ordinal-th table among the body's top-level paragraphs and tables."""
    seen = 0
    items = doc.getText().createEnumeration()
    while items.hasMoreElements():
        item = items.nextElement()
        if item.supportsService("com.sun.star.text.TextTable"):
            if seen == ordinal:
                return item
            seen += 1
    raise ValueError("the document has no table %d" % ordinal)


def row_cells(table):
    """Each row's cell names, top to bottom (names are column letters and a row number; merged
    cells leave gaps, split cells add ".n" parts, which are left out). Names, not cells: one
    getCellNames call, where fetching every cell would be a UNO round trip each (over a second
    for a part of 240 rows)."""
    by_row = {}
    for name in table.getCellNames():
        letters = name.rstrip("0123456789")
        digits = name[len(letters):]
        if not letters.isalpha() or not digits:
            continue
        by_row.setdefault(int(digits), []).append(name)
    return [by_row[r] for r in sorted(by_row)]


METADATA_PROPERTIES = {"title": "Title", "author": "Author", "subject": "Subject"}


def set_metadata(doc, metadata):
    """The caller's title, author, subject and keywords; the PDF export writes the
    document properties into the PDF's Info dictionary and XMP."""
    if not metadata:
        return
    props = doc.getDocumentProperties()
    for key, name in METADATA_PROPERTIES.items():
        if key in metadata:
            setattr(props, name, metadata[key])
    if "keywords" in metadata:
        props.Keywords = tuple(k.strip() for k in metadata["keywords"].split(",") if k.strip())
    # "creator" has no document property LibreOffice 7.4's export reads: it always writes
    # Creator "Writer". Gotenberg sets it afterwards (docs/fonts.md, PDF options).


def describe(exc):
    message = getattr(exc, "Message", None) or str(exc) or ""
    return "%s: %s" % (type(exc).__name__, message.strip()) if message else type(exc).__name__


def watch(office):
    code = office.proc.wait()
    if _quitting.is_set():
        return
    send({"event": "exited", "code": code})
    os._exit(EXIT_SOFFICE_DIED)


def main():
    args = parse_args(sys.argv[1:])
    start_timeout = float(args.get("start-timeout", "20"))
    office = Office(args["soffice"], args["profile"], args["pipe"], start_timeout,
                    float(args.get("start-max", str(start_timeout))), args.get("preload"))
    try:
        ms = office.start()
    except Exception as exc:
        if office.proc is not None and office.proc.poll() is None:
            office.proc.kill()
        send({"ready": False, "error": describe(exc)})
        return 1
    send({"ready": True, "pid": office.proc.pid, "ms": ms, "cpu_ms": office.start_cpu_ms})
    threading.Thread(target=watch, args=(office,), daemon=True).start()

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError as exc:
            send({"ok": False, "error": "bad request line: %s" % exc})
            continue
        rid = msg.get("id")
        cmd = msg.get("cmd", "convert")
        if cmd == "quit":
            _quitting.set()
            office.quit()
            send({"id": rid, "ok": True})
            return 0
        started = time.monotonic()
        phases = {}
        try:
            if cmd == "ping":
                office.ping()
            elif cmd == "convert":
                phases = office.convert(msg["in"], msg["out"], bool(msg.get("updateIndexes")),
                                        msg.get("metadata"), msg.get("filterData"), msg.get("part"),
                                        msg.get("target"))
            else:
                raise ValueError("unknown command " + str(cmd))
            send(dict({"id": rid, "ok": True, "ms": int((time.monotonic() - started) * 1000)}, **phases))
        except Exception as exc:
            crashed = isinstance(exc, DisposedException) or office.soffice_dead()
            send({"id": rid, "ok": False, "error": describe(exc), "crashed": crashed})
            if crashed:
                os._exit(EXIT_SOFFICE_DIED)

    # stdin closed: whoever drove us is gone, take soffice along.
    _quitting.set()
    office.proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
