/**
 * A Redis Cluster of masters without replicas on loopback, for the cluster e2e test: one
 * redis-server per master (cluster mode, no persistence), joined with `redis-cli --cluster
 * create`. Each node keeps its identity and slots in its nodes-<port>.conf, so a master restarted
 * on its port rejoins the cluster with the same slots and no data (as after a crash).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ManagedProcess, sleep, spawnManaged, waitUntil } from '../service-harness';

export class ClusterNode {
  constructor(
    readonly port: number,
    public proc: ManagedProcess,
  ) {}

  /** A redis-cli command against this node; its output, trimmed. */
  cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(this.port), ...args], {
      encoding: 'utf8',
      timeout: 10_000,
    }).trim();
  }
}

export class RedisCluster {
  private constructor(
    private readonly dir: string,
    readonly nodes: ClusterNode[],
  ) {}

  /** REDIS_CLUSTER_NODES for the service: every master as host:port. */
  get seedNodes(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  static async start(masters = 3): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'redis-cluster-'));
    const ports: number[] = [];
    while (ports.length < masters) {
      const port = await freePort();
      // the cluster bus listens on port + 10000, which must be free as well
      if (port + 10_000 < 65_536 && !ports.includes(port)) ports.push(port);
    }
    const cluster = new RedisCluster(
      dir,
      ports.map((port) => new ClusterNode(port, RedisCluster.spawn(dir, port))),
    );
    await Promise.all(cluster.nodes.map((n) => RedisCluster.waitReady(n.proc)));
    execFileSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    await cluster.waitOk();
    return cluster;
  }

  private static spawn(dir: string, port: number): ManagedProcess {
    return spawnManaged(
      `redis-cluster:${port}`,
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--protected-mode',
        'no',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--dir',
        dir,
        '--appendonly',
        'no',
        '--save',
        '',
      ],
      process.env,
    );
  }

  private static async waitReady(proc: ManagedProcess): Promise<void> {
    await proc.waitFor(/Ready to accept connections/, 10_000);
  }

  /** Until every node reports cluster_state:ok and all 16384 slots assigned. */
  async waitOk(timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      () =>
        this.nodes.every((n) => {
          try {
            const info = n.cli('cluster', 'info');
            return /cluster_state:ok/.test(info) && /cluster_slots_ok:16384/.test(info);
          } catch {
            return false;
          }
        }),
      timeoutMs,
      'cluster_state:ok on every node',
    );
  }

  /** The master that serves `key` (CLUSTER KEYSLOT, then the node whose ranges hold the slot). */
  ownerOf(key: string): ClusterNode {
    const slot = Number(this.nodes[0].cli('cluster', 'keyslot', key));
    const owner = this.nodes.find((n) =>
      n
        .cli('cluster', 'nodes')
        .split('\n')
        .filter((line) => line.includes('myself'))
        .flatMap((line) => line.split(' ').slice(8))
        .some((range) => {
          const [from, to = from] = range.split('-').map(Number);
          return slot >= from && slot <= to;
        }),
    );
    if (!owner) throw new Error(`no master serves slot ${slot}`);
    return owner;
  }

  /** Keys held by a node (on loopback test clusters only: KEYS walks them all). */
  keyCount(node: ClusterNode): number {
    return Number(node.cli('dbsize'));
  }

  /** Kills a master outright (SIGKILL): its data is gone, the other masters see it fail. */
  async kill(node: ClusterNode): Promise<void> {
    node.proc.killGroup('SIGKILL');
    await node.proc.exited;
  }

  /** Starts a killed master again on its port with its nodes.conf: same slots, no data. */
  async start(node: ClusterNode): Promise<void> {
    for (let i = 0; ; i++) {
      node.proc = RedisCluster.spawn(this.dir, node.port);
      try {
        await RedisCluster.waitReady(node.proc);
        break;
      } catch (e) {
        if (i >= 10) throw e;
        await sleep(300); // the port may linger for a moment
      }
    }
    await this.waitOk();
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.proc.stop(5_000)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
