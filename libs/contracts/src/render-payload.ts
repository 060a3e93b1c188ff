/**
 * The request payload a job's requestKey holds for the worker (JSON, Redis, with a TTL): the checked
 * request and, as a typed field, the PDF finishing options (PDF_FINISH_KEY), which stay out of the
 * job data. One place writes it (the API) and one reads it (the worker).
 */
import { plainNumbers } from './json-numbers';
import type { RenderRequest } from './payload/render-request';
import type { PdfFinishOptions } from './pdf-options';

/** What the API stores under a job's requestKey for the worker: the checked request, and the finishing options. */
export interface RenderPayload extends RenderRequest {
  pdf_finish?: PdfFinishOptions;
}

/** The payload of `request` with `finish` (absent: the request as it is, one object less). */
export function renderPayload(request: RenderRequest, finish: PdfFinishOptions | undefined): RenderPayload {
  return finish ? { ...request, pdf_finish: finish } : request;
}

/**
 * The request and the finishing options of a payload read back from Redis. The field has had this
 * name since the options were split off, so a payload queued by the previous version during a
 * rolling deploy reads the same. The finishing options are settings, not template data: plain
 * numbers, where the data reader keeps `1.0` a PyFloat.
 */
export function openRenderPayload(payload: RenderPayload): {
  request: RenderRequest;
  finish: PdfFinishOptions | undefined;
} {
  const { pdf_finish: finish, ...request } = payload;
  return { request, finish: finish == null ? undefined : plainNumbers(finish) };
}
