/**
 * A deck's slides as a reader sees them, in presentation order: each slide's part, its text by
 * paragraph, its pictures (name, alternative text and the media part they show) and its notes'
 * text. The tests read filled decks back with it; it reads only what PresentationML says.
 */
import { relsPathOf, zipPathOf } from '@app/ooxml';
import PizZip from 'pizzip';
import { posix } from 'node:path';
import { decodeXmlText } from '../syntax/tag-scanner';
import { attr } from '../xlsx/sheet-xml';

export interface DeckPicture {
  name: string;
  descr: string;
  /** The media part the picture shows (`ppt/media/image1.png`). */
  media: string;
}

export interface DeckSlide {
  part: string;
  /** Each paragraph's text (shapes and tables, in document order). */
  paragraphs: string[];
  pictures: DeckPicture[];
  notes: string[];
}

function target(owner: string, t: string): string {
  return t.startsWith('/') ? zipPathOf(t) : posix.normalize(posix.join(posix.dirname(owner), t));
}

function relTargets(zip: PizZip, owner: string): Map<string, { type: string; path: string }> {
  const xml = zip.file(relsPathOf(owner))?.asText() ?? '';
  return new Map(
    [...xml.matchAll(/<Relationship\b[^>]*>/g)].map((m) => [
      attr(m[0], 'Id') ?? '',
      { type: attr(m[0], 'Type') ?? '', path: target(owner, attr(m[0], 'Target') ?? '') },
    ]),
  );
}

function paragraphs(xml: string): string[] {
  return [...xml.matchAll(/<a:p>[\s\S]*?<\/a:p>|<a:p\s[\s\S]*?<\/a:p>/g)].map((p) =>
    [...p[0].matchAll(/<a:t(?:\s[^>]*)?>([^<]*)<\/a:t>/g)].map((t) => decodeXmlText(t[1])).join(''),
  );
}

export function readDeck(pptx: Buffer): DeckSlide[] {
  const zip = new PizZip(pptx);
  const root = relTargets(zip, '');
  const presentation =
    [...root.values()].find((r) => r.type.endsWith('/officeDocument'))?.path ?? 'ppt/presentation.xml';
  const rels = relTargets(zip, presentation);
  const xml = zip.file(presentation)?.asText() ?? '';
  return [...xml.matchAll(/<p:sldId\b[^>]*>/g)].map((m) => {
    const part = rels.get(attr(m[0], 'r:id') ?? '')?.path ?? '';
    const slide = zip.file(part)?.asText() ?? '';
    const slideRels = relTargets(zip, part);
    const pictures = [...slide.matchAll(/<p:pic>[\s\S]*?<\/p:pic>/g)].map((p) => {
      const cNvPr = /<p:cNvPr\b[^>]*>/.exec(p[0])?.[0] ?? '';
      const embed = /<a:blip\b[^>]*\br:embed="([^"]*)"/.exec(p[0])?.[1] ?? '';
      return {
        name: attr(cNvPr, 'name') ?? '',
        descr: attr(cNvPr, 'descr') ?? '',
        media: slideRels.get(embed)?.path ?? '',
      };
    });
    const notesPart = [...slideRels.values()].find((r) => r.type.endsWith('/notesSlide'))?.path;
    const notesXml = notesPart ? (zip.file(notesPart)?.asText() ?? '') : '';
    return {
      part,
      paragraphs: paragraphs(slide),
      pictures,
      notes: paragraphs(notesXml).filter((t) => t !== ''),
    };
  });
}
