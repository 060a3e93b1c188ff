/**
 * What poppler (pdfinfo, pdffonts, pdfimages, pdftohtml) and fontconfig (fc-list) say about a
 * PDF, for the fidelity tests: which fonts are embedded, which font draws which text, how each
 * image is compressed, what the Info dictionary and the XMP metadata declare.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `tool args… FILE` on the PDF written to a temporary file (not every tool reads stdin). */
function onFile(pdf: Buffer, tool: string, args: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-inspect-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return execFileSync(tool, [...args, file], { maxBuffer: 1 << 26 }).toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pdfinfo's key: value lines (Title, Author, Subject, Keywords, Creator, Producer, Pages, …). */
export function pdfInfo(pdf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of onFile(pdf, 'pdfinfo', ['-enc', 'UTF-8']).split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m) out[m[1].trim()] = m[2].trim();
  }
  return out;
}

/** qpdf --check's report (structure, xref, streams); throws when qpdf finds errors. */
export function qpdfCheck(pdf: Buffer): string {
  return onFile(pdf, 'qpdf', ['--check']);
}

/** The document's XMP metadata stream ('' when there is none). */
export function pdfXmp(pdf: Buffer): string {
  return onFile(pdf, 'pdfinfo', ['-meta']);
}

export interface PdfFont {
  /** Without the subset tag: "Carlito", "NotoSansCJKjp-Regular". */
  name: string;
  type: string;
  embedded: boolean;
}

/** pdffonts' table: the columns from the right (name and type may contain spaces). */
export function pdfFonts(pdf: Buffer): PdfFont[] {
  const lines = onFile(pdf, 'pdffonts', []).split('\n').slice(2).filter(Boolean);
  return lines.map((line) => {
    const cols = line.trim().split(/\s+/);
    // … emb sub uni objectNum gen
    const embedded = cols[cols.length - 5] === 'yes';
    return { name: cols[0].replace(/^[A-Z]{6}\+/, ''), type: cols.slice(1, -6).join(' '), embedded };
  });
}

/** pdfimages -list's rows: page and encoding ("image", "jpeg", "jpx", "ccitt", …). */
export function pdfImages(pdf: Buffer): Array<{ page: number; type: string; enc: string }> {
  const lines = onFile(pdf, 'pdfimages', ['-list']).split('\n').slice(2).filter(Boolean);
  return lines.map((line) => {
    const cols = line.trim().split(/\s+/);
    return { page: Number(cols[0]), type: cols[2], enc: cols[8] };
  });
}

export interface TextRun {
  page: number;
  /** The drawing font's PostScript name without subset tag. */
  font: string;
  text: string;
}

function unescapeXml(text: string): string {
  return text
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
}

/** Text with the font that draws it, from pdftohtml -xml (it starts a run at each font change). */
export function pdfTextRuns(pdf: Buffer): TextRun[] {
  const xml = onFile(pdf, 'pdftohtml', ['-xml', '-i', '-stdout', '-q']);
  const fonts = new Map<string, string>();
  const runs: TextRun[] = [];
  let page = 0;
  const token =
    /<page number="(\d+)"|<fontspec id="(\d+)"[^>]*family="([^"]*)"|<text [^>]*font="(\d+)"[^>]*>(.*?)<\/text>/g;
  for (let m = token.exec(xml); m; m = token.exec(xml)) {
    if (m[1]) page = Number(m[1]);
    else if (m[2]) fonts.set(m[2], m[3].replace(/^[A-Z]{6}\+/, ''));
    else runs.push({ page, font: fonts.get(m[4]) ?? '?', text: unescapeXml(m[5]) });
  }
  return runs;
}

function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const coverCache = new Map<string, string[]>();

/** Font families fontconfig says have a glyph for `char` (`fc-list ':charset=XXXX' family`). */
function familiesCovering(char: string): string[] {
  const hex = char.codePointAt(0)!.toString(16);
  let families = coverCache.get(hex);
  if (!families) {
    const out = execFileSync('fc-list', [`:charset=${hex}`, 'family']).toString('utf8');
    families = [
      ...new Set(
        out
          .split(/[\n,]/)
          .map((f) => f.trim())
          .filter(Boolean),
      ),
    ];
    coverCache.set(hex, families);
  }
  return families;
}

/**
 * Whether fontconfig says the PDF font `font` (a PostScript name, "NotoSansCJKjp-Regular",
 * "Lohit-Devanagari") has a glyph for `char`: its squashed name starts with the squashed name of
 * a family that covers the character ("Noto Sans CJK JP", "Lohit Devanagari").
 */
export function fontCovers(font: string, char: string): boolean {
  const name = squash(font);
  return familiesCovering(char).some((family) => name.startsWith(squash(family)));
}

// ---- options.pdf's finishing step (docs/pdf.md): what qpdf and poppler read back ----

/** A tool's exit status and output, run on the PDF (for tools expected to fail, like pdftotext without a password). */
export function onFileStatus(
  pdf: Buffer,
  tool: string,
  args: string[],
): { status: number | null; stdout: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-inspect-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync(tool, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], {
      maxBuffer: 1 << 26,
    });
    const stdout = r.stdout.toString('utf8');
    return { status: r.status, stdout, out: stdout + r.stderr.toString('utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** qpdf --check, with a password when the file is encrypted; throws on errors. */
export function qpdfCheckWith(pdf: Buffer, password?: string): string {
  return onFile(pdf, 'qpdf', ['--check', ...(password !== undefined ? [`--password=${password}`] : [])]);
}

/** qpdf --show-encryption: `R = 6`, `P = …`, `print low resolution: allowed`, … as key → value. */
export function pdfEncryption(pdf: Buffer, password?: string): Record<string, string> {
  const args = ['--show-encryption', ...(password !== undefined ? [`--password=${password}`] : [])];
  const out: Record<string, string> = {};
  for (const line of onFile(pdf, 'qpdf', args).split('\n')) {
    const m = /^(.+?)(?:\s*=\s*|:\s+)(.+)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
    else if (line.trim()) out[line.trim()] = 'yes'; // "Supplied password is user password"
  }
  return out;
}

/** The text of one page (1-based), with the user password if any. */
export function pageText(pdf: Buffer, page: number, password?: string): string {
  const args = ['-enc', 'UTF-8', '-f', String(page), '-l', String(page)];
  if (password !== undefined) args.push('-upw', password);
  const r = onFileStatus(pdf, 'pdftotext', args);
  if (r.status !== 0) throw new Error(`pdftotext failed on page ${page}: ${r.out}`);
  return r.stdout;
}

/** The embedded files pdfdetach lists, by name, with their bytes. */
export function pdfAttachments(pdf: Buffer): Map<string, Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-detach-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const list = execFileSync('pdfdetach', ['-list', '-enc', 'UTF-8', file]).toString('utf8');
    const names = [...list.matchAll(/^\d+: (.+)$/gm)].map((m) => m[1]);
    const out = new Map<string, Buffer>();
    names.forEach((name, i) => {
      const target = join(dir, `file-${i}`);
      execFileSync('pdfdetach', ['-save', String(i + 1), '-o', target, file]);
      out.set(name, readFileSync(target));
    });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The PDF/A-3 associated files: each file spec's /AFRelationship by its /UF name, and the names
 * the catalog's /AF array holds (qpdf --json=2).
 */
export function associatedFiles(pdf: Buffer): { relationships: Record<string, string>; catalogAf: string[] } {
  const json = JSON.parse(onFile(pdf, 'qpdf', ['--json=2', '--json-key=qpdf'])) as {
    qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
  };
  const objects = json.qpdf[1];
  const text = (v: unknown) => (typeof v === 'string' ? v.replace(/^u:/, '') : '');
  const relationships: Record<string, string> = {};
  let catalogAf: string[] = [];
  for (const [, obj] of Object.entries(objects)) {
    const v = obj.value;
    if (!v || typeof v !== 'object') continue;
    if (v['/Type'] === '/Filespec' && typeof v['/AFRelationship'] === 'string')
      relationships[text(v['/UF'])] = (v['/AFRelationship'] as string).slice(1);
    if (v['/Type'] === '/Catalog' && Array.isArray(v['/AF']))
      catalogAf = (v['/AF'] as string[]).map((ref) => text(objects[`obj:${ref}`]?.value?.['/UF']));
  }
  return { relationships, catalogAf };
}

/** Pages, read by qpdf (with the password when the file is encrypted). */
export function pdfPages(pdf: Buffer, password?: string): number {
  const args = ['--show-npages', ...(password !== undefined ? [`--password=${password}`] : [])];
  return Number(onFile(pdf, 'qpdf', args).trim());
}

/** qpdf --encrypt USER OWNER 256 of a PDF. */
export function qpdfEncrypt(pdf: Buffer, user: string, owner: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-encrypt-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', ['--encrypt', user, owner, '256', '--', join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The file as qpdf's QDF (streams uncompressed, one object per block), as text. */
export function qdf(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-qdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), pdf);
    return execFileSync('qpdf', ['--qdf', '--object-streams=disable', join(dir, 'in.pdf'), '-'], {
      maxBuffer: 1 << 27,
    }).toString('latin1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
