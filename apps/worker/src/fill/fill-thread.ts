/**
 * A fill thread (node:worker_threads) of the worker's FillPool: parses a request's JSON, fills
 * the template and runs its output's preparation passes (libs/pipeline's fillDocument) off the
 * worker's event loop. Keeps its own compiled templates, as the worker does.
 * Answers each task with the .docx bytes (transferred, not copied), a typed error's body
 * (encodeFailure, rebuilt by the pool) or an unexpected error's text.
 */
import { encodeFailure, isTypedError, openRenderPayload, type RenderPayload } from '@app/contracts';
import { CompiledTemplates, parseDataJson } from '@app/engine';
import { fillDocument } from '@app/pipeline';
import { parentPort } from 'node:worker_threads';
import type { FillTask, FillAnswer } from './fill-pool';

const compiledTemplates = new CompiledTemplates();

function fill(task: FillTask): FillAnswer {
  try {
    // The PDF finishing options ride in the payload; the worker read them already.
    const { request } = openRenderPayload(parseDataJson(task.requestJson) as RenderPayload);
    const template = Buffer.from(task.template.buffer, task.template.byteOffset, task.template.length);
    const docx = fillDocument(template, request, task.job, { compiledTemplates });
    return { id: task.id, docx };
  } catch (e) {
    if (isTypedError(e)) return { id: task.id, failure: encodeFailure(e) };
    return { id: task.id, crash: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

parentPort?.on('message', (task: FillTask) => {
  const answer = fill(task);
  // A Buffer of its own ArrayBuffer moves to the main thread; one on Node's shared slab is copied.
  const own =
    answer.docx && answer.docx.byteOffset === 0 && answer.docx.byteLength === answer.docx.buffer.byteLength;
  parentPort?.postMessage(answer, own && answer.docx ? [answer.docx.buffer as ArrayBuffer] : []);
});
