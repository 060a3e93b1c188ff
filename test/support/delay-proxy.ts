/**
 * A TCP proxy on loopback that delays every chunk by a set time in each direction: a link
 * between hosts, simulated in user space (the kernel here has no netem). Put it between a process
 * and Redis to give that process a host of its own as far as latency goes: one round trip then
 * costs 2 × delayMs more. The delay may be changed at any time (`delayMs`); a chunk never
 * overtakes the one before it in its direction, so the byte stream stays intact.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface DelayProxy {
  port: number;
  /** Added to every chunk, each way; may be changed while connections are open. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startDelayProxy(targetPort: number, delayMs: number): Promise<DelayProxy> {
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) => {
    let lastDue = 0;
    const later = (fn: () => void) => {
      const due = Math.max(performance.now() + proxy.delayMs, lastDue);
      lastDue = due;
      const wait = due - performance.now();
      if (wait <= 0 && proxy.delayMs <= 0) fn();
      else setTimeout(fn, Math.max(0, wait));
    };
    from.on('data', (chunk) => later(() => to.writable && to.write(chunk)));
    from.on('end', () => later(() => to.end()));
    from.on('error', () => to.destroy());
    from.on('close', () => later(() => to.destroy()));
  };
  const proxy: DelayProxy = {
    port: 0,
    delayMs,
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
