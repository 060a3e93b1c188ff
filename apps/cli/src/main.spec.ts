import { requestTextFor } from './main';

describe("requestTextFor: REQUEST.json for OUT's format", () => {
  it('gives a page-image request that names no options.output the format OUT names, keeping 9.0 a float', () => {
    const text = '{"template_data": {"total": 9.0}, "options": {"image": {"dpi": 48}}}';
    const out = requestTextFor(text, 'png');
    expect(out).toContain('"total":9.0');
    expect(JSON.parse(out)).toEqual({
      template_data: { total: 9 },
      options: { image: { dpi: 48 }, output: 'png' },
    });
  });

  it("leaves the request's own options.output, other formats and unreadable JSON as they are", () => {
    const own = '{"template_data": {}, "options": {"output": "jpeg"}}';
    expect(requestTextFor(own, 'png')).toBe(own);
    const plain = '{"template_data": {}}';
    expect(requestTextFor(plain, 'pdf')).toBe(plain);
    expect(requestTextFor('{not json', 'png')).toBe('{not json');
  });
});
