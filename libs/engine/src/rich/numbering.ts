/**
 * Word numbering for lists (HTML ul/ol, Markdown lists) and for sub-documents' own lists: new
 * `w:abstractNum` / `w:num` entries in word/numbering.xml with ids above the template's, creating
 * the part (with its content type and relationship) when the template has none.
 */
import type PizZip from 'pizzip';
import type { ListInfo } from './model';
import { addOverrideContentType, REL_NUMBERING, type RelationshipWriter } from './relationships';

const NUMBERING_PART = 'word/numbering.xml';
const NUMBERING_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml';
const NS_W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const BULLETS = ['\u2022', '\u25e6', '\u25aa'];

function maxId(xml: string, pattern: RegExp): number {
  let max = 0;
  for (const m of xml.matchAll(pattern)) max = Math.max(max, Number(m[1]));
  return max;
}

export class NumberingWriter {
  private readonly existing: string;
  private nextAbstract: number;
  private nextNum: number;
  private readonly abstracts: string[] = [];
  private readonly nums: string[] = [];
  private readonly listNums = new Map<ListInfo, number>();

  constructor(private readonly zip: PizZip) {
    this.existing = zip.file(NUMBERING_PART)?.asText() ?? '';
    this.nextAbstract = maxId(this.existing, /w:abstractNumId="(\d+)"/g) + 1;
    this.nextNum = maxId(this.existing, /<w:num\b[^>]*w:numId="(\d+)"/g) + 1;
  }

  /** The numId of a list (one per list, so each ordered list starts at its own number). */
  numIdFor(list: ListInfo): number {
    let id = this.listNums.get(list);
    if (id !== undefined) return id;
    const abstractId = this.nextAbstract++;
    const levels = Array.from({ length: 9 }, (_, i) => {
      const kind = list.levels[i] ?? 'bullet';
      const start = i === 0 && list.start !== undefined ? list.start : 1;
      const text = kind === 'bullet' ? BULLETS[i % BULLETS.length] : `%${i + 1}.`;
      return (
        `<w:lvl w:ilvl="${i}"><w:start w:val="${start}"/><w:numFmt w:val="${kind}"/>` +
        `<w:lvlText w:val="${text}"/><w:lvlJc w:val="left"/>` +
        `<w:pPr><w:ind w:left="${720 * (i + 1)}" w:hanging="360"/></w:pPr></w:lvl>`
      );
    }).join('');
    this.abstracts.push(
      `<w:abstractNum w:abstractNumId="${abstractId}"><w:multiLevelType w:val="hybridMultilevel"/>${levels}</w:abstractNum>`,
    );
    id = this.addNum(abstractId);
    this.listNums.set(list, id);
    return id;
  }

  /** A fresh abstractNum id, for copying a sub-document's definitions. */
  allocateAbstractId(): number {
    return this.nextAbstract++;
  }

  addAbstractXml(xml: string): void {
    this.abstracts.push(xml);
  }

  /** A `w:num` pointing at an abstractNum; `inner` holds its level overrides, if any. */
  addNum(abstractId: number, inner = ''): number {
    const id = this.nextNum++;
    this.nums.push(`<w:num w:numId="${id}"><w:abstractNumId w:val="${abstractId}"/>${inner}</w:num>`);
    return id;
  }

  finalize(rels: RelationshipWriter): void {
    if (!this.abstracts.length && !this.nums.length) return;
    let xml = this.existing;
    if (!xml) {
      xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:numbering xmlns:w="${NS_W}"></w:numbering>`;
      addOverrideContentType(this.zip, '/word/numbering.xml', NUMBERING_TYPE);
      rels.add('word/document.xml', REL_NUMBERING, 'numbering.xml', false);
    }
    // The schema wants every abstractNum before the first num.
    const abstracts = this.abstracts.join('');
    const firstNum = xml.search(/<w:num\b[\s>]/);
    xml =
      firstNum >= 0
        ? xml.slice(0, firstNum) + abstracts + xml.slice(firstNum)
        : xml.replace(/<\/w:numbering>\s*$/, `${abstracts}</w:numbering>`);
    xml = xml.replace(/<\/w:numbering>\s*$/, `${this.nums.join('')}</w:numbering>`);
    this.zip.file(NUMBERING_PART, xml);
  }
}
