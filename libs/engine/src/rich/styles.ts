/**
 * The template's styles (word/styles.xml), so rich content uses the author's look: a style named
 * by a caller ("Heading 2") is found by its display name (w:name, case-insensitive, as Word's
 * built-in names are stored in lower case) or by its id ("Heading2").
 */
import { readStyles, type StyleEntry, type StyleType } from '@app/ooxml';

export { readStyles, STYLES_PART, type StyleEntry, type StyleType } from '@app/ooxml';

const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();

export class TemplateStyles {
  readonly entries: StyleEntry[];

  constructor(
    stylesXml: string | undefined,
    /** The main document, to find the table style the author's own tables use. */
    private readonly documentXml = '',
  ) {
    this.entries = readStyles(stylesXml);
  }

  private readonly resolved = new Map<string, string | undefined>();
  private tableStyle?: { id: string | undefined };

  /** The style id for a name or id of the given type, or undefined. */
  resolve(name: string, type: StyleType): string | undefined {
    const key = `${type}\u0000${name}`;
    if (!this.resolved.has(key)) this.resolved.set(key, this.lookup(name, type));
    return this.resolved.get(key);
  }

  private lookup(name: string, type: StyleType): string | undefined {
    const ofType = this.entries.filter((s) => s.type === type);
    const exact = ofType.find((s) => s.id === name) ?? ofType.find((s) => s.name === name);
    if (exact) return exact.id;
    const key = squash(name);
    return (ofType.find((s) => squash(s.name) === key) ?? ofType.find((s) => squash(s.id) === key))?.id;
  }

  hasId(id: string): boolean {
    return this.entries.some((s) => s.id === id);
  }

  /** The table style for HTML tables: the one the template's tables use, else "Table Grid". */
  tableStyleId(): string | undefined {
    if (!this.tableStyle) {
      const used = /<w:tblStyle w:val="([^"]+)"/.exec(this.documentXml)?.[1];
      const id =
        used && this.entries.some((s) => s.id === used && s.type === 'table')
          ? used
          : this.resolve('Table Grid', 'table');
      this.tableStyle = { id };
    }
    return this.tableStyle.id;
  }
}
