/**
 * The cell budget: a filled .docx headed to LibreOffice with more table cells than the service
 * converts within its time budget is refused before conversion, in a second, rather than time
 * out a minute later (LibreOffice's import of long tables grows faster than linearly with their
 * cells). Not for a .docx returned as it is.
 */
import { PayloadTooLargeError } from '@app/contracts';
import type PizZip from 'pizzip';
import { packagePartsOfType } from '@app/ooxml';
import { LAID_OUT_PART_TYPES } from './word-parts';

/** `<w:tc>` elements in the filled Word parts (a substring count: no parse needed). */
export function countTableCells(zip: PizZip): number {
  let cells = 0;
  for (const name of packagePartsOfType(zip, LAID_OUT_PART_TYPES)) {
    // The bytes as rendered, not decoded to a string: the tags counted are ASCII.
    const u8 = zip.files[name].asUint8Array();
    const xml = Buffer.from(u8.buffer, u8.byteOffset, u8.length);
    for (let i = xml.indexOf('<w:tc'); i >= 0; i = xml.indexOf('<w:tc', i + 5)) {
      const next = xml[i + 5];
      if (next === 0x3e /* > */ || next === 0x20 /* space */ || next === 0x2f /* / */) cells++;
    }
  }
  return cells;
}

/** Throws the typed 413 (`reason: conversion_budget`) when the package holds more than `limit` cells. */
export function checkTableCells(zip: PizZip, limit: number): void {
  const cells = countTableCells(zip);
  if (cells > limit)
    throw new PayloadTooLargeError(
      `The filled document has ${cells} table cells; this service converts at most ${limit} within its time budget ` +
        '(the conversion of long tables grows faster than their length). Split the document or send fewer rows',
      { reason: 'conversion_budget', table_cells: cells, limit },
    );
}
