import type { Request, Response } from 'express';
import { routeOf } from './route-label';

const res = (locals: Record<string, unknown> = {}) => ({ locals }) as unknown as Response;
const req = (route?: string, baseUrl = '') =>
  ({ route: route ? { path: route } : undefined, baseUrl }) as unknown as Request;

describe('route label', () => {
  it('is the route pattern, never the raw URL', () => {
    expect(routeOf(req('/api/v1/process-template-document'), res())).toBe(
      '/api/v1/process-template-document',
    );
    expect(routeOf(req('/'), res())).toBe('/');
  });

  it('is "unmatched" for 404s, including the catch-all global middleware hangs on', () => {
    expect(routeOf(req(), res())).toBe('unmatched');
    expect(routeOf(req('{/*splat}'), res())).toBe('unmatched');
  });

  it('is the name a subtree gives itself (Bull Board)', () => {
    expect(routeOf(req('{/*splat}'), res({ metricsRoute: '/admin/queues' }))).toBe('/admin/queues');
  });
});
