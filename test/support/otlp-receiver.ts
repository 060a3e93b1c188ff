/**
 * An OTLP/HTTP trace receiver on loopback for the traces test and the service bench: accepts
 * POST /v1/traces in OTLP's JSON encoding (the exporters' OTEL_EXPORTER_OTLP_PROTOCOL=http/json)
 * and keeps each span flattened, with its service's name; protobuf exports are only counted.
 * Anything else is answered 404.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  /** 0 unset, 1 ok, 2 error (OTLP's StatusCode). */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  status?: { code?: number };
  attributes?: KeyValue[];
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
  }>;
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  return '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Export requests received (bodies that parsed or not, protobuf ones included), and their bytes. */
  requests = 0;
  bytes = 0;

  private readonly server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        this.requests++;
        this.bytes += Buffer.concat(chunks).length;
        // Protobuf (the exporters' default) is counted, not decoded: the bench needs only the load.
        if (!String(req.headers['content-type'] ?? '').includes('json')) {
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
        try {
          this.add(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch {
          res.writeHead(400).end();
        }
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    const { port } = receiver.server.address() as AddressInfo;
    receiver.url = `http://127.0.0.1:${port}`;
    return receiver;
  }

  private add(body: ExportRequest): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            kind: s.kind ?? 0,
            startMs: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
            endMs: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
            statusCode: s.status?.code ?? 0,
            attributes: attributesOf(s.attributes),
          });
        }
      }
    }
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}
