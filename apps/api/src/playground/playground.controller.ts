/**
 * GET /playground: one HTML page (its script and styles inline, no external assets) that talks
 * to the public endpoints: inspect and lint a dropped template, edit the data skeleton, add PNG
 * images, render and show the PDF. Mounted only with PLAYGROUND=on (the default).
 */
import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Copied beside the compiled code by scripts/build.js (it copies every non-TypeScript file). */
const PAGE = readFileSync(join(__dirname, 'playground.html'), 'utf8');

/** The page may run its own inline script and show blob: PDFs; it reaches nothing but this origin. */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; " +
  "frame-src blob:; object-src blob:; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'";

@ApiTags('template tools')
@Controller()
export class PlaygroundController {
  @Get('playground')
  @ApiOperation({
    summary: 'The template playground page (PLAYGROUND=on)',
    description:
      'Drop a .docx, .xlsx or .pptx, see its variables and problems, edit the data, add PNG images, render the PDF inline.',
  })
  @ApiProduces('text/html')
  @ApiResponse({
    status: 200,
    description: 'The page',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', CSP)
  @Header('Cache-Control', 'no-cache')
  page(): string {
    return PAGE;
  }
}
