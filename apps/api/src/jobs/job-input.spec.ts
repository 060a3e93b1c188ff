import type { Request } from 'express';
import type { ApiSettings } from '../config/settings';
import { PDF_FINISH_KEY } from '@app/contracts';
import { parseJobFields } from '@app/contracts';
import { jobInput } from './job-input';

const LIMITS = { maxJsonDepth: 16, maxDocuments: 10, maxBatchItems: 5, maxPdfExtraBytes: 1 << 20 };
const DEFAULTS = {
  undefined: 'silent',
  locale: 'de_DE',
  timezone: 'Europe/Berlin',
} as unknown as ApiSettings['defaults'];
const FILE = { buffer: Buffer.from('PK'), originalname: 'rechnung.docx', size: 2 };
const req = { id: 'req-1', headers: {} } as unknown as Request;

describe('jobInput: the job options of /api/v1/jobs and of synchronous batches', () => {
  it('carries the service defaults for locale and time zone, as the synchronous endpoint does', () => {
    const parsed = parseJobFields(
      { request_data: '{"template_data": {}, "batch": [{"template_data": {}}]}' },
      LIMITS,
    );
    const input = jobInput(req, FILE, parsed, 'digest', 'http://h', DEFAULTS);
    expect(input.options).toEqual({
      undefined: 'silent',
      output: 'pdf',
      locale: 'de_DE',
      timezone: 'Europe/Berlin',
    });
    expect(input.requestId).toBe('req-1');
  });

  it("takes the request's own locale, time zone and PDF options; passwords go to the payload", () => {
    const parsed = parseJobFields(
      {
        request_data: JSON.stringify({
          template_data: {},
          options: {
            locale: 'fr-FR',
            timezone: 'Europe/Paris',
            pdf: { encryption: { owner_password: 'owner-secret' } },
          },
        }),
      },
      LIMITS,
    );
    const input = jobInput(req, FILE, parsed, 'digest', 'http://h', DEFAULTS);
    expect(input.options).toMatchObject({ locale: 'fr-FR', timezone: 'Europe/Paris' });
    expect(JSON.stringify(input.options)).not.toContain('owner-secret');
    expect(input.requests[0]).toHaveProperty(
      [PDF_FINISH_KEY, 'encryption', 'owner_password'],
      'owner-secret',
    );
  });
});
