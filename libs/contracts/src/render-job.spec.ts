import { httpStatusOf, TypedError } from './errors';
import {
  decodeFailure,
  extensionOf,
  OUTPUT_MEDIA,
  decodeReply,
  encodeFailure,
  encodeReply,
  heartbeatKey,
  payloadKeys,
  type Reply,
  replyKey,
  templateKey,
} from './render-job';
import { ServiceUnavailableError } from './service-errors';

class TemplateRuntimeError extends TypedError {
  readonly errorType = 'template_runtime_error';
}
class InvalidTemplateError extends TypedError {
  readonly errorType = 'invalid_template';
}

describe('render job protocol', () => {
  it('keeps every key in the queue prefix hash slot', () => {
    const q = { prefix: '{docx}', name: 'render' };
    const keys = payloadKeys(q, 'abc');
    const template = templateKey(q, 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=');
    for (const key of [...Object.values(keys), template, heartbeatKey(q), replyKey(q, 'api-1')])
      expect(key.startsWith('{docx}:')).toBe(true);
    expect(keys.requestKey).toBe('{docx}:render-payload:abc:request');
    // base64url: no '/' to read as a path, no '+' or '=' to quote
    expect(template).toBe('{docx}:render-template:n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg');
  });

  it('carries a reply with its job id, content type and bytes unchanged', () => {
    const body = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0a, 0x7b]); // any bytes, '{' too
    const frame = encodeReply({ jobId: 'j-1', contentType: 'application/pdf', body });
    const reply = decodeReply(frame);
    expect(reply).toEqual({ jobId: 'j-1', contentType: 'application/pdf', body });
    const empty = decodeReply(encodeReply({ jobId: 'e', contentType: 'x', body: Buffer.alloc(0) })) as Reply;
    expect(empty.body).toHaveLength(0);
  });

  it('carries a final failure with its reason', () => {
    const failedReason = JSON.stringify({ error_type: 'template_syntax_error', message: 'x', details: {} });
    expect(decodeReply(encodeReply({ jobId: 'j-2', failedReason }))).toEqual({ jobId: 'j-2', failedReason });
  });

  it('ignores frames that are not replies', () => {
    const lying = Buffer.alloc(8);
    lying.writeUInt32BE(100); // a header longer than the frame
    const notJson = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{{{pdf')]);
    const noJobId = encodeReply({ jobId: 'x', contentType: 'y', body: Buffer.alloc(0) });
    noJobId.write('X', 10); // '{"jobIX":…': the header no longer names a job
    for (const frame of [Buffer.alloc(0), Buffer.from([0, 0]), lying, notJson, noJobId])
      expect(decodeReply(frame)).toBeNull();
  });

  it('carries a typed error across the queue with type and details; the catalogue gives its status', () => {
    const original = new TemplateRuntimeError("'total' is not a number", { tag: '{{ total + 1 }}' });
    const rebuilt = decodeFailure(encodeFailure(original));
    expect(rebuilt.errorType).toBe('template_runtime_error');
    expect(httpStatusOf(rebuilt.errorType)).toBe(422);
    expect(rebuilt.toBody()).toEqual(original.toBody());
  });

  it('keeps the type, and so the status, of the service errors', () => {
    const rebuilt = decodeFailure(encodeFailure(new ServiceUnavailableError('busy', 5)));
    expect(httpStatusOf(rebuilt.errorType)).toBe(503);
    expect(httpStatusOf(decodeFailure(encodeFailure(new InvalidTemplateError('not a docx'))).errorType)).toBe(
      400,
    );
  });

  it('turns a foreign reason into an internal error without its text', () => {
    const e = decodeFailure('job stalled more than allowable limit');
    expect(httpStatusOf(e.errorType)).toBe(500);
    expect(e.errorType).toBe('internal_error');
    expect(e.message).toMatch(/stopped more often than allowed/);
    const other = decodeFailure('Error: boom at /srv/app/x.js:10');
    expect(other.errorType).toBe('internal_error');
    expect(JSON.stringify(other.toBody())).not.toContain('/srv/app');
  });
});

describe("OUTPUT_MEDIA: each output format's media type and extension, written once", () => {
  it('names pdf and docx, and finds the extension of a reply by its media type', () => {
    expect(OUTPUT_MEDIA.pdf).toEqual({ contentType: 'application/pdf', extension: 'pdf' });
    expect(OUTPUT_MEDIA.docx.extension).toBe('docx');
    expect(extensionOf(OUTPUT_MEDIA.docx.contentType)).toBe('docx');
    expect(extensionOf('application/pdf')).toBe('pdf');
    expect(extensionOf('application/octet-stream')).toBe('bin');
  });
});
