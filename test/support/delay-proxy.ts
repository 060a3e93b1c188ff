/**
 * A TCP proxy on loopback that delays every chunk by a set time in each direction: a link
 * between hosts, simulated in user space (the kernel here has no netem). Put it between a process
 * and Redis to give that process a host of its own as far as latency goes: one round trip then
 * costs 2 × delayMs more. The delay may be changed at any time (`delayMs`); a chunk never
 * overtakes the one before it in its direction, so the byte stream stays intact. `bytesPerMs`,
 * when set, also limits each direction's bandwidth (a chunk is due once the link has sent it).
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface DelayProxy {
  port: number;
  /** Added to every chunk, each way; may be changed while connections are open. */
  delayMs: number;
  /** Each direction's bandwidth in bytes per millisecond (125 is 1 Gbit/s); 0: unlimited. */
  bytesPerMs: number;
  close(): Promise<void>;
}

export async function startDelayProxy(
  targetPort: number,
  delayMs: number,
  bytesPerMs = 0,
): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) => {
    let lastDue = 0;
    let linkFree = 0;
    const later = (fn: () => void, bytes = 0) => {
      const now = performance.now();
      let sent = now;
      if (proxy.bytesPerMs > 0) {
        linkFree = Math.max(linkFree, now) + bytes / proxy.bytesPerMs;
        sent = linkFree;
      }
      const due = Math.max(sent + proxy.delayMs, lastDue);
      lastDue = due;
      const wait = due - performance.now();
      if (wait <= 0 && proxy.delayMs <= 0 && proxy.bytesPerMs <= 0) fn();
      else setTimeout(fn, Math.max(0, wait));
    };
    from.on('data', (chunk: Buffer) => later(() => to.writable && to.write(chunk), chunk.length));
    from.on('end', () => later(() => to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => later(() => to.destroy()));
  };
  const proxy: DelayProxy = {
    port: 0,
    delayMs,
    bytesPerMs,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    upstream.setNoDelay(true);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as { port: number }).port;
  return proxy;
}
