import { spawnSync } from 'node:child_process';
import {
  currentTraceparent,
  errorTypeOf,
  recordQueueWait,
  startTelemetry,
  telemetryOn,
  traceLogFields,
  tracingRequested,
  withSpan,
} from './index';

describe('tracingRequested', () => {
  it('is on only with an OTLP endpoint', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
  });

  it('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off despite an endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
  });
});

describe('with traces off', () => {
  it('startTelemetry starts nothing without the endpoint', () => {
    expect(startTelemetry('test', {})).toBe(false);
    expect(telemetryOn()).toBe(false);
  });

  it('withSpan is a plain call: values, promises and throws pass through', async () => {
    let handled = false;
    expect(
      withSpan('x', (span) => {
        span.setAttributes({ a: 1 });
        span.fail('some_error');
        handled = true;
        return 7;
      }),
    ).toBe(7);
    expect(handled).toBe(true);
    await expect(withSpan('y', () => Promise.resolve('done'))).resolves.toBe('done');
    expect(() =>
      withSpan('z', () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    await expect(withSpan('w', () => Promise.reject(new Error('late')))).rejects.toThrow('late');
  });

  it('carries no traceparent, records no wait and adds nothing to log lines', () => {
    expect(currentTraceparent()).toBeUndefined();
    expect(() => recordQueueWait('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 0)).not.toThrow();
    expect(traceLogFields()).toEqual({});
  });
});

describe('errorTypeOf', () => {
  it("reads a typed error's errorType, a failed job's JSON reason, else internal_error", () => {
    expect(errorTypeOf(Object.assign(new Error('x'), { errorType: 'undefined_variable' }))).toBe(
      'undefined_variable',
    );
    expect(errorTypeOf(new Error(JSON.stringify({ error_type: 'conversion_failed', message: 'm' })))).toBe(
      'conversion_failed',
    );
    expect(errorTypeOf(new Error('{not json'))).toBe('internal_error');
    expect(errorTypeOf('a string')).toBe('internal_error');
    expect(errorTypeOf(undefined)).toBe('internal_error');
  });
});

describe('with traces on (a child process, the SDK printing spans to the console)', () => {
  it('continues a traceparent, parents spans, marks failures with error_type, and gives log ids', () => {
    // The console exporter: the SDK's own, no network. tsx runs this TypeScript as it is. The
    // error's message is joined at run time: the resource's process.command_args holds the script.
    const script = `
      const t = require('./libs/telemetry/src/index.ts');
      t.startTelemetry('unit');
      const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const out = {};
      t.withSpan('outer', () => {
        out.traceparent = t.currentTraceparent();
        out.log = t.traceLogFields();
        try { t.withSpan('inner', () => { throw Object.assign(new Error(['secret', 'text'].join(' ')), { errorType: 'template_syntax_error' }); }); } catch {}
      }, { traceparent: parent, kind: 'consumer' });
      t.stopTelemetry().then(() => console.error('RESULT ' + JSON.stringify(out)));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: `${__dirname}/../../..`,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
        OTEL_TRACES_EXPORTER: 'console',
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(0);
    const result = JSON.parse(/RESULT (.*)/.exec(run.stderr)![1]) as {
      traceparent: string;
      log: { trace_id: string; span_id: string };
    };
    // The outer span continues the given trace; its own id is what the job data and the logs carry.
    expect(result.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(result.log.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(result.traceparent.split('-')[2]).toBe(result.log.span_id);
    // The console exporter prints each span: the inner one failed, with its type and not its message.
    expect(run.stdout).toContain("name: 'inner'");
    expect(run.stdout).toContain("error_type: 'template_syntax_error'");
    expect(run.stdout).toContain(`parentSpanContext`);
    expect(run.stdout).not.toContain('secret text');
  });
});
