/**
 * A workbook with an external link to another workbook, as Excel writes one (the fill drops it,
 * never fetches it, and names it in a Warning header).
 */
import PizZip from 'pizzip';

export function withExternalLink(xlsx: Buffer): Buffer {
  const zip = new PizZip(xlsx);
  zip.file(
    'xl/externalLinks/externalLink1.xml',
    '<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><externalBook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:id="rId1"/></externalLink>',
  );
  zip.file(
    'xl/externalLinks/_rels/externalLink1.xml.rels',
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLinkPath" Target="http://127.0.0.1:9/rates.xlsx" TargetMode="External"/></Relationships>',
  );
  const rels = zip.file('xl/_rels/workbook.xml.rels')!.asText();
  zip.file(
    'xl/_rels/workbook.xml.rels',
    rels.replace(
      '</Relationships>',
      '<Relationship Id="rIdX1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLink" Target="externalLinks/externalLink1.xml"/></Relationships>',
    ),
  );
  const types = zip.file('[Content_Types].xml')!.asText();
  zip.file(
    '[Content_Types].xml',
    types.replace(
      '</Types>',
      '<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/></Types>',
    ),
  );
  return zip.generate({ type: 'nodebuffer' });
}
