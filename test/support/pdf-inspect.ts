/**
 * What poppler (pdfinfo, pdffonts, pdfimages, pdftohtml) and fontconfig (fc-list) say about a
 * PDF, for the fidelity tests: which fonts are embedded, which font draws which text, how each
 * image is compressed, what the Info dictionary and the XMP metadata declare.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
export function familiesCovering(char: string): string[] {
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
