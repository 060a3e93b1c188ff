import { parseDataJson, PyFloat, stringifyDataJson } from './json-numbers';
import { openRenderPayload, PDF_FINISH_KEY, renderPayload, type RenderPayload } from './index';

describe('the request payload for the worker (RenderPayload)', () => {
  const request = { template_data: { total: new PyFloat(9) }, images: { logo: { data: 'iVBO' } } };

  it('carries the finishing options as a typed field, and gives them back apart', () => {
    const finish = { watermark: { text: 'COPY', opacity: 0.5 } };
    const back = openRenderPayload(
      parseDataJson(stringifyDataJson(renderPayload(request, finish))) as RenderPayload,
    );
    expect(back.finish).toEqual(finish);
    expect(Object.keys(back.request)).toEqual(['template_data', 'images']);
    // The template data keeps its float as written; the settings are plain numbers.
    expect(back.request.template_data.total).toBeInstanceOf(PyFloat);
  });

  it('is the request itself without finishing options', () => {
    expect(renderPayload(request, undefined)).toBe(request);
    expect(openRenderPayload(request).finish).toBeUndefined();
  });

  it("reads a payload the previous version queued (its key was already 'pdf_finish')", () => {
    const old = `{"template_data":{"n":1},"${PDF_FINISH_KEY}":{"encryption":{"owner_password":"x"},"watermark":{"text":"A","opacity":1.0}}}`;
    const { request: r, finish } = openRenderPayload(parseDataJson(old) as RenderPayload);
    expect(r).toEqual({ template_data: { n: 1 } });
    expect(finish).toEqual({ encryption: { owner_password: 'x' }, watermark: { text: 'A', opacity: 1 } });
    expect(typeof finish?.watermark?.opacity).toBe('number');
  });
});
