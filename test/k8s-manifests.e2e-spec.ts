/**
 * The Kubernetes manifests (deploy/k8s) against the code they deploy: every document parses, the
 * images are the Dockerfile's and compose's, ports, probe paths and environment variable names
 * are the ones the code defines, selectors match, grace periods cover JOB_TIMEOUT_MS, and the
 * KEDA trigger reads the list BullMQ really writes (checked against a real Redis).
 *
 * The code's constants are imported, not copied: the API's and the worker's settings
 * (the settings.ts of apps/api and apps/worker, composed of the libraries' groups) and health-paths.ts are plain
 * modules with no NestJS import, so Jest loads them as they are.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Job, Queue, QueueKeys, Worker } from 'bullmq';
import { parse, parseAllDocuments } from 'yaml';
import { settingsVariables } from '@app/config';
import { converterConfigFromEnv, converterSettings } from '@app/converters';
import { API_SETTINGS, loadApiSettings } from '../apps/api/src/config/settings';
import { loadWorkerSettings, WORKER_SETTINGS } from '../apps/worker/src/settings';
import { API_PATHS, jobQueueNames, WORKER_HTTP_PATHS, WORKER_HTTP_PORT_DEFAULT } from '@app/contracts';
import { ENTRY, NODE_ARGS, RedisServer } from './service-harness';

const ROOT = join(__dirname, '..');
const K8S = join(ROOT, 'deploy/k8s');
const NAMESPACE = 'docx-pdf';
/** The Secret that is a template on purpose (placeholders), never listed in a kustomization. */
const SECRET_TEMPLATE = join(K8S, 'base/secret.yaml');

// ---- loading ----

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects are free-form YAML */
type Obj = Record<string, any>;

interface Doc {
  file: string;
  obj: Obj;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return yamlFiles(path);
      return /\.ya?ml$/.test(name) ? [path] : [];
    })
    .sort();
}

const FILES = yamlFiles(K8S);
const KUSTOMIZATIONS = FILES.filter((f) => /kustomization\.ya?ml$/.test(f));
const MANIFEST_FILES = FILES.filter((f) => !KUSTOMIZATIONS.includes(f));

function loadFile(file: string): Doc[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .filter((d) => d.contents !== null)
    .map((d) => {
      if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
      return { file, obj: d.toJS() as Obj };
    });
}

/** The manifest files a kustomization pulls in, following bases (directories) recursively. */
function resolveKustomization(dir: string): string[] {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Obj;
  return (k.resources as string[]).flatMap((r) => {
    const path = resolve(dir, r);
    return statSync(path).isDirectory() ? resolveKustomization(path) : [path];
  });
}

const ALL_DOCS = MANIFEST_FILES.flatMap(loadFile);
/** The two ways to deploy: workers on a CPU HPA (root) or on KEDA (keda/). */
const VARIANTS = {
  hpa: K8S,
  keda: join(K8S, 'keda'),
};
const variantDocs = (dir: string) => resolveKustomization(dir).flatMap(loadFile);

function find(kind: string, name: string, docs: Doc[] = ALL_DOCS): Obj {
  const matches = docs.filter((d) => d.obj.kind === kind && d.obj.metadata?.name === name);
  if (matches.length !== 1) throw new Error(`expected one ${kind} ${name}, found ${matches.length}`);
  return matches[0].obj;
}

const ofKind = (kind: string, docs: Doc[] = ALL_DOCS) => docs.filter((d) => d.obj.kind === kind);

const configMap = find('ConfigMap', 'docx-pdf-config');
const CONFIG: Record<string, string> = configMap.data;
const api = find('Deployment', 'api');
const worker = find('Deployment', 'worker');
const gotenberg = find('Deployment', 'gotenberg');
const redis = find('Deployment', 'redis');
const scaledObject = find('ScaledObject', 'worker');

function container(deployment: Obj, name?: string): Obj {
  const containers = deployment.spec.template.spec.containers as Obj[];
  return name ? containers.find((c) => c.name === name)! : containers[0];
}

/** The environment a container sees: envFrom ConfigMaps and Secrets, then env. */
function containerEnv(c: Obj, docs: Doc[] = ALL_DOCS): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of (c.envFrom ?? []) as Obj[]) {
    if (from.configMapRef) Object.assign(env, find('ConfigMap', from.configMapRef.name, docs).data);
    if (from.secretRef && !from.secretRef.optional) {
      Object.assign(env, find('Secret', from.secretRef.name, docs).stringData);
    }
  }
  for (const e of (c.env ?? []) as Obj[]) env[e.name] = e.value;
  return env;
}

function portNumber(c: Obj, port: string | number): number {
  if (typeof port === 'number') return port;
  const p = (c.ports as Obj[]).find((x) => x.name === port);
  if (!p) throw new Error(`container ${c.name} has no port named ${port}`);
  return p.containerPort;
}

function preStopSleepSeconds(c: Obj): number {
  const command = c.lifecycle?.preStop?.exec?.command as string[] | undefined;
  if (!command) return 0;
  expect(command[0]).toBe('sleep');
  return Number(command[1]);
}

function cpu(q: string | number): number {
  const s = String(q);
  return s.endsWith('m') ? Number(s.slice(0, -1)) / 1000 : Number(s);
}

function bytes(q: string): number {
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(q);
  if (!m) throw new Error(`unparsed quantity ${q}`);
  return Number(m[1]) * (m[2] ? units[m[2]] : 1);
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

const DEPLOYMENTS = ofKind('Deployment').map((d) => d.obj);

// ---- the Dockerfile and compose ----

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Obj;
const packageVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Obj)
  .version as string;

/** `docker build --target api -t docx-pdf-api .` in the Dockerfile's header → docx-pdf-api. */
function dockerfileImage(target: string): string {
  expect(dockerfile).toMatch(new RegExp(`^FROM \\S+ AS ${target}$`, 'm'));
  const m = new RegExp(`--target ${target} -t (\\S+)`).exec(dockerfile);
  if (!m) throw new Error(`the Dockerfile names no image for target ${target}`);
  return m[1];
}

const splitImage = (image: string) => {
  const i = image.lastIndexOf(':');
  return i > image.lastIndexOf('/') ? { repo: image.slice(0, i), tag: image.slice(i + 1) } : { repo: image };
};

// ---- tests ----

describe('deploy/k8s manifests', () => {
  it('finds the manifests and both kustomization variants', () => {
    expect(MANIFEST_FILES.map((f) => relative(K8S, f))).toEqual(
      expect.arrayContaining([
        'base/api.yaml',
        'base/worker.yaml',
        'worker-hpa.yaml',
        'keda/worker-keda.yaml',
      ]),
    );
    expect(KUSTOMIZATIONS.map((f) => relative(K8S, f)).sort()).toEqual([
      'base/kustomization.yaml',
      'keda/kustomization.yaml',
      'kustomization.yaml',
    ]);
  });

  it.each(FILES.map((f) => [relative(K8S, f), f]))('%s parses without errors', (_name, file) => {
    const docs = parseAllDocuments(readFileSync(file, 'utf8'));
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(d.errors).toEqual([]);
  });

  it('every document has apiVersion, kind and metadata.name, and names are unique per kind', () => {
    const seen = new Set<string>();
    for (const { file, obj } of ALL_DOCS) {
      expect({ file, apiVersion: typeof obj.apiVersion, kind: typeof obj.kind }).toEqual({
        file,
        apiVersion: 'string',
        kind: 'string',
      });
      expect(obj.metadata?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      const key = `${obj.kind}/${obj.metadata.name}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });

  it('every namespaced object names the namespace the Namespace and the kustomizations create', () => {
    expect(find('Namespace', NAMESPACE).metadata.name).toBe(NAMESPACE);
    for (const { obj } of ALL_DOCS.filter((d) => d.obj.kind !== 'Namespace')) {
      expect(`${obj.kind}/${obj.metadata.name}: ${obj.metadata.namespace}`).toBe(
        `${obj.kind}/${obj.metadata.name}: ${NAMESPACE}`,
      );
    }
    for (const k of KUSTOMIZATIONS) expect((parse(readFileSync(k, 'utf8')) as Obj).namespace).toBe(NAMESPACE);
  });

  describe('kustomizations', () => {
    it('every resource they list exists, and every manifest but the Secret template is listed', () => {
      const listed = new Set([...resolveKustomization(VARIANTS.hpa), ...resolveKustomization(VARIANTS.keda)]);
      for (const f of listed) expect(existsSync(f)).toBe(true);
      const unlisted = MANIFEST_FILES.filter((f) => !listed.has(f));
      expect(unlisted).toEqual([SECRET_TEMPLATE]);
    });

    it.each(Object.entries(VARIANTS))(
      'variant %s has exactly one autoscaler for the worker and the Gotenberg HPA',
      (variant, dir) => {
        const docs = variantDocs(dir);
        const workerHpas = ofKind('HorizontalPodAutoscaler', docs).filter(
          (d) => d.obj.spec.scaleTargetRef.name === 'worker',
        );
        const scaledObjects = ofKind('ScaledObject', docs);
        expect({ hpa: workerHpas.length, keda: scaledObjects.length }).toEqual(
          variant === 'keda' ? { hpa: 0, keda: 1 } : { hpa: 1, keda: 0 },
        );
        expect(find('HorizontalPodAutoscaler', 'gotenberg', docs).spec.scaleTargetRef.name).toBe('gotenberg');
        for (const name of ['api', 'worker', 'gotenberg', 'redis'])
          expect(find('Deployment', name, docs)).toBeTruthy();
      },
    );

    // `kubectl kustomize` is not on a plain Debian machine, so it is not part of the suite (a
    // conditional skip would be a skipped test); both variants were built with it by hand:
    // `kubectl kustomize deploy/k8s` and `kubectl kustomize deploy/k8s/keda` give 14 objects each.
  });

  describe('images', () => {
    it('api and worker run the Dockerfile targets under the names the Dockerfile and compose give them', () => {
      expect(compose.services.api.build.target).toBe('api');
      expect(compose.services.worker.build.target).toBe('worker');
      for (const [deployment, target] of [
        [api, 'api'],
        [worker, 'worker'],
      ] as const) {
        const name = dockerfileImage(target);
        // compose names a built image <project>-<service>
        expect(name).toBe(`${compose.name}-${target}`);
        expect(splitImage(container(deployment).image)).toEqual({ repo: name, tag: packageVersion });
      }
    });

    it("the images start the API and the worker with Node's arguments from scripts/build.js, as npm start does", () => {
      /** Each stage's own CMD (exec form), by stage name; a stage without one inherits its base's. */
      const cmds = new Map<string, string[]>();
      for (const stage of dockerfile.split(/^(?=FROM )/m).slice(1)) {
        const name = /^FROM \S+ AS (\S+)$/m.exec(stage)?.[1];
        const cmd = /^CMD (\[.*\])$/m.exec(stage)?.[1];
        if (name && cmd) cmds.set(name, JSON.parse(cmd) as string[]);
      }
      for (const target of ['api', 'worker'] as const)
        expect(cmds.get(target)).toEqual([
          'node',
          ...NODE_ARGS[target],
          relative(ROOT, ENTRY[target]).split('\\').join('/'),
        ]);
      expect(NODE_ARGS.worker).toContain('--heap-growing-percent=200');
      // worker-libreoffice is built FROM worker and keeps its CMD; the Deployments keep the images'.
      expect(cmds.has('worker-libreoffice')).toBe(false);
      expect(dockerfile).toMatch(/^FROM worker AS worker-libreoffice$/m);
      for (const deployment of [api, worker]) {
        expect(container(deployment).command).toBeUndefined();
        expect(container(deployment).args).toBeUndefined();
      }
    });

    it('the kustomize image mappings name the images the Deployments use', () => {
      const base = parse(readFileSync(join(K8S, 'base/kustomization.yaml'), 'utf8')) as Obj;
      const names = (base.images as Obj[]).map((i) => i.name).sort();
      expect(names).toEqual(
        [splitImage(container(api).image).repo, splitImage(container(worker).image).repo].sort(),
      );
      for (const i of base.images as Obj[]) expect(i.newTag).toBe(packageVersion);
    });

    it('Gotenberg and Redis use the images of docker-compose.yml (gotenberg/gotenberg:8)', () => {
      expect(container(gotenberg).image).toBe('gotenberg/gotenberg:8');
      expect(container(gotenberg).image).toBe(compose.services.gotenberg.image);
      expect(container(redis).image).toBe(compose.services.redis.image);
    });
  });

  describe('ports', () => {
    it("the API listens on the config schema's default PORT, as the Dockerfile exposes it", () => {
      const port = loadApiSettings({}).http.port;
      expect(port).toBe(8000);
      expect(portNumber(container(api), 'http')).toBe(port);
      expect(containerEnv(container(api)).PORT ?? String(port)).toBe(String(port));
      expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
    });

    it("the worker's listener port is WORKER_HTTP_PORT (default WORKER_HTTP_PORT_DEFAULT)", () => {
      const env = containerEnv(container(worker));
      const port = Number(env.WORKER_HTTP_PORT ?? WORKER_HTTP_PORT_DEFAULT);
      expect(port).toBe(WORKER_HTTP_PORT_DEFAULT);
      expect(loadWorkerSettings(env).worker.httpPort).toBe(port);
      expect(portNumber(container(worker), 'http')).toBe(port);
    });

    it('GOTENBERG_URL names the gotenberg Service and its port 3000, which Gotenberg listens on', () => {
      const url = new URL(containerEnv(container(worker)).GOTENBERG_URL);
      const service = find('Service', 'gotenberg');
      expect(url.hostname).toBe(service.metadata.name);
      expect(Number(url.port)).toBe(3000);
      const servicePort = (service.spec.ports as Obj[]).find((p) => p.port === Number(url.port));
      expect(servicePort).toBeDefined();
      expect(portNumber(container(gotenberg), servicePort!.targetPort)).toBe(3000);
      expect(container(gotenberg).args).toContain('--api-port=3000');
    });

    it('REDIS_URL names the redis Service and its port', () => {
      const url = new URL(CONFIG.REDIS_URL);
      const service = find('Service', url.hostname);
      const servicePort = (service.spec.ports as Obj[]).find((p) => p.port === Number(url.port || 6379));
      expect(servicePort).toBeDefined();
      expect(portNumber(container(redis), servicePort!.targetPort)).toBe(6379);
    });
  });

  describe('environment', () => {
    const known = new Set<string>([
      ...settingsVariables(API_SETTINGS),
      ...settingsVariables(WORKER_SETTINGS),
    ]);

    it('the code lists the variables it reads (a guard on the lists themselves)', () => {
      expect([...known]).toEqual(
        expect.arrayContaining(['PORT', 'REDIS_URL', 'QUEUE_PREFIX', 'JOB_TIMEOUT_MS', 'GOTENBERG_URL']),
      );
      expect(settingsVariables({ converterSettings })).toContain('LIBREOFFICE_INSTANCES');
      expect(known.has('NOT_A_SETTING')).toBe(false);
    });

    it('every variable the ConfigMap, the Secret template and the Deployments set is one the code reads', () => {
      const names = [
        ...Object.keys(CONFIG),
        ...Object.keys(find('Secret', 'docx-pdf-bull-board').stringData),
        ...[api, worker].flatMap((d) => ((container(d).env ?? []) as Obj[]).map((e) => e.name as string)),
      ];
      expect(names.length).toBeGreaterThan(10);
      expect(names.filter((n) => !known.has(n))).toEqual([]);
    });

    it("the API's and the worker's environment pass the code's own validation", () => {
      expect(() => loadApiSettings(containerEnv(container(api)))).not.toThrow();
      expect(() => loadWorkerSettings(containerEnv(container(worker)))).not.toThrow();
      expect(converterConfigFromEnv(containerEnv(container(worker))).gotenbergUrl).toBe(
        'http://gotenberg:3000',
      );
    });

    it('envFrom refers to the ConfigMap, and to the Bull Board Secret only as optional', () => {
      for (const d of [api, worker]) {
        const refs = container(d).envFrom as Obj[];
        expect(refs.map((r) => r.configMapRef?.name).filter(Boolean)).toEqual(['docx-pdf-config']);
        for (const r of refs.filter((x) => x.secretRef)) {
          expect(r.secretRef).toEqual({ name: 'docx-pdf-bull-board', optional: true });
        }
      }
      expect((container(api).envFrom as Obj[]).some((r) => r.secretRef)).toBe(true);
    });

    it('the Secret template holds exactly the Bull Board login, with placeholders that cannot pass for real', () => {
      const secret = find('Secret', 'docx-pdf-bull-board');
      expect(Object.keys(secret.stringData).sort()).toEqual(['BULL_BOARD_PASSWORD', 'BULL_BOARD_USER']);
      for (const v of Object.values(secret.stringData)) expect(v).toMatch(/^REPLACE-ME/);
      // valid values (no colon in the user): replacing them is all it takes, no format to learn
      expect(loadApiSettings(secret.stringData as Record<string, string>).http.board).toBeDefined();
    });

    it("Gotenberg's --api-timeout equals the workers' CONVERSION_TIMEOUT_MS", () => {
      const arg = (container(gotenberg).args as string[]).find((a) => a.startsWith('--api-timeout='));
      expect(arg).toBe(`--api-timeout=${Number(CONFIG.CONVERSION_TIMEOUT_MS) / 1000}s`);
    });
  });

  describe('probes and metrics', () => {
    it("the API's liveness, readiness and startup probes use API_PATHS on its port", () => {
      const c = container(api);
      expect(c.livenessProbe.httpGet.path).toBe(API_PATHS.live);
      // Readiness is the process answering, not the whole render path: see api.yaml's comment.
      expect(c.readinessProbe.httpGet.path).toBe(API_PATHS.live);
      expect(c.startupProbe.httpGet.path).toBe(API_PATHS.live);
      for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        expect(portNumber(c, p.httpGet.port)).toBe(loadApiSettings({}).http.port);
      }
    });

    it("the worker's probes use WORKER_HTTP_PATHS on its listener, and its startup outlasts CONVERTER_WARMUP_MS", () => {
      const c = container(worker);
      expect(c.livenessProbe.httpGet.path).toBe(WORKER_HTTP_PATHS.live);
      expect(c.readinessProbe.httpGet.path).toBe(WORKER_HTTP_PATHS.ready);
      expect(c.startupProbe.httpGet.path).toBe(WORKER_HTTP_PATHS.live);
      for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        expect(portNumber(c, p.httpGet.port)).toBe(WORKER_HTTP_PORT_DEFAULT);
      }
      const startupSeconds = c.startupProbe.periodSeconds * c.startupProbe.failureThreshold;
      expect(startupSeconds).toBeGreaterThan(Number(CONFIG.CONVERTER_WARMUP_MS) / 1000);
    });

    it("Gotenberg's probes use its /health route on port 3000", () => {
      const c = container(gotenberg);
      for (const p of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        expect(p.httpGet.path).toBe('/health');
        expect(portNumber(c, p.httpGet.port)).toBe(3000);
      }
    });

    it('Prometheus scrape annotations on api and worker pods name their metrics path and port', () => {
      for (const [d, path] of [
        [api, API_PATHS.metrics],
        [worker, WORKER_HTTP_PATHS.metrics],
      ] as const) {
        const a = d.spec.template.metadata.annotations as Record<string, string>;
        expect(a['prometheus.io/scrape']).toBe('true');
        expect(a['prometheus.io/path']).toBe(path);
        expect(Number(a['prometheus.io/port'])).toBe(portNumber(container(d), 'http'));
      }
    });
  });

  describe('selectors', () => {
    it.each(DEPLOYMENTS.map((d) => [d.metadata.name, d]))(
      'Deployment %s selects its own pod template',
      (_name, d) => {
        expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
        // and no other Deployment's pods
        const others = DEPLOYMENTS.filter(
          (o) => o !== d && matches(d.spec.selector.matchLabels, o.spec.template.metadata.labels),
        );
        expect(others).toEqual([]);
      },
    );

    it.each(ofKind('Service').map((s) => [s.obj.metadata.name, s.obj]))(
      'Service %s selects one Deployment (or StatefulSet), and its target ports exist on that container',
      (_name, service) => {
        const targets = [...DEPLOYMENTS, ...ofKind('StatefulSet').map((d) => d.obj)].filter((d) =>
          matches(service.spec.selector, d.spec.template.metadata.labels),
        );
        expect(targets.map((d) => d.metadata.name)).toEqual([service.metadata.name]);
        for (const p of service.spec.ports as Obj[]) {
          expect(() => portNumber(container(targets[0]), p.targetPort)).not.toThrow();
        }
      },
    );

    it('api, worker and gotenberg each have a PDB selecting exactly their pods, leaving one pod up', () => {
      const pdbs = ofKind('PodDisruptionBudget').map((d) => d.obj);
      for (const name of ['api', 'worker', 'gotenberg']) {
        const own = pdbs.filter((p) =>
          matches(p.spec.selector.matchLabels, find('Deployment', name).spec.template.metadata.labels),
        );
        expect(own.map((p) => p.metadata.name)).toEqual([name]);
      }
      for (const p of pdbs) {
        const selected = DEPLOYMENTS.filter((d) =>
          matches(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
        );
        expect(selected).toHaveLength(1);
        const d = selected[0];
        // the fewest replicas the Deployment may run: its autoscaler's minimum, or its replicas
        const minimum = Math.min(
          d.spec.replicas,
          ...ofKind('HorizontalPodAutoscaler')
            .filter((h) => h.obj.spec.scaleTargetRef.name === d.metadata.name)
            .map((h) => h.obj.spec.minReplicas as number),
          ...(d.metadata.name === 'worker' ? [scaledObject.spec.minReplicaCount as number] : []),
        );
        expect(p.spec.maxUnavailable).toBeLessThan(minimum);
      }
    });

    it.each(
      [...ofKind('HorizontalPodAutoscaler'), ...ofKind('ScaledObject')].map((h) => [
        h.obj.kind,
        h.obj.metadata.name,
        h.obj,
      ]),
    )('%s %s targets an existing Deployment with resource requests', (_kind, _name, h) => {
      const d = find('Deployment', h.spec.scaleTargetRef.name);
      expect(h.spec.scaleTargetRef.kind ?? 'Deployment').toBe('Deployment');
      // CPU utilisation is relative to the request: without one the HPA cannot compute it
      expect(container(d).resources.requests.cpu).toBeDefined();
    });
  });

  describe('shutdown', () => {
    const jobTimeoutSeconds = Number(CONFIG.JOB_TIMEOUT_MS) / 1000;

    it.each([
      ['api', api],
      ['worker', worker],
    ])('%s: terminationGracePeriodSeconds ≥ preStop + JOB_TIMEOUT_MS, so work in hand finishes', (_n, d) => {
      const grace = d.spec.template.spec.terminationGracePeriodSeconds as number;
      expect(grace).toBeGreaterThanOrEqual(preStopSleepSeconds(container(d)) + jobTimeoutSeconds + 1);
    });

    it('the API waits in preStop for the Service to stop routing to it before SIGTERM', () => {
      expect(preStopSleepSeconds(container(api))).toBeGreaterThanOrEqual(5);
    });

    it("Gotenberg's grace covers preStop and its own graceful shutdown", () => {
      const c = container(gotenberg);
      const shutdown = (c.args as string[]).find((a) =>
        a.startsWith('--gotenberg-graceful-shutdown-duration='),
      );
      const seconds = Number(/=(\d+)s$/.exec(shutdown ?? '')?.[1]);
      expect(seconds).toBeGreaterThan(0);
      expect(gotenberg.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
        preStopSleepSeconds(c) + seconds,
      );
    });
  });

  describe('pods', () => {
    it.each(DEPLOYMENTS.map((d) => [d.metadata.name, d]))(
      '%s runs as non-root with a read-only root filesystem, writable /tmp or data from emptyDir, and requests and limits',
      (_name, d) => {
        const spec = d.spec.template.spec;
        expect(spec.securityContext.runAsNonRoot).toBe(true);
        expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
        // Writable: scratch (emptyDir) or, for Redis' append-only file, a claim.
        const emptyDirs = new Set(
          (spec.volumes as Obj[]).filter((v) => v.emptyDir || v.persistentVolumeClaim).map((v) => v.name),
        );
        for (const c of spec.containers as Obj[]) {
          expect(c.securityContext).toMatchObject({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
          });
          const writable = (c.volumeMounts as Obj[])
            .filter((m) => emptyDirs.has(m.name))
            .map((m) => m.mountPath);
          expect(writable.length).toBeGreaterThan(0);
          if (d.metadata.name !== 'redis') expect(writable).toContain('/tmp');
          expect(c.resources.requests.cpu).toBeDefined();
          expect(c.resources.requests.memory).toBeDefined();
          expect(c.resources.limits.memory).toBeDefined();
          expect(bytes(c.resources.limits.memory)).toBeGreaterThanOrEqual(bytes(c.resources.requests.memory));
        }
      },
    );

    it("the worker's alive file is on its writable /tmp", () => {
      const file =
        containerEnv(container(worker)).WORKER_ALIVE_FILE ?? loadWorkerSettings({}).worker.aliveFile;
      expect(dirname(file)).toBe('/tmp');
    });

    it('workers request LibreOffice-class resources and Gotenberg about a core and 1–2 Gi per replica', () => {
      const w = container(worker).resources;
      expect(cpu(w.requests.cpu)).toBeGreaterThanOrEqual(0.5);
      expect(bytes(w.requests.memory)).toBeGreaterThanOrEqual(bytes('1Gi'));
      const g = container(gotenberg).resources;
      expect(cpu(g.requests.cpu)).toBeGreaterThanOrEqual(1);
      expect(bytes(g.requests.memory)).toBeGreaterThanOrEqual(bytes('1Gi'));
      expect(bytes(g.limits.memory)).toBeLessThanOrEqual(bytes('2Gi'));
    });

    it('Redis keeps an append-only file fsynced every second on a claim, here and in docker-compose.yml', () => {
      const args = container(redis).args as string[];
      expect(args[args.indexOf('--appendonly') + 1]).toBe('yes');
      expect(args[args.indexOf('--appendfsync') + 1]).toBe('everysec');
      const data = (container(redis).volumeMounts as Obj[]).find((m) => m.mountPath === '/data')!;
      const volume = (redis.spec.template.spec.volumes as Obj[]).find((v) => v.name === data.name)!;
      expect(find('PersistentVolumeClaim', volume.persistentVolumeClaim.claimName).spec.accessModes).toEqual([
        'ReadWriteOnce',
      ]);
      const command = compose.services.redis.command as string[];
      expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
      expect(command[command.indexOf('--appendfsync') + 1]).toBe('everysec');
      expect(compose.services.redis.volumes).toEqual(['redis-data:/data']);
    });

    it('PostgreSQL runs as a StatefulSet keeping its data on a claim of its own, as compose keeps it on a volume', () => {
      const postgres = find('StatefulSet', 'postgres');
      expect(postgres.spec.replicas).toBe(1);
      expect(find('Service', postgres.spec.serviceName)).toBeDefined();
      const [claim] = postgres.spec.volumeClaimTemplates as Obj[];
      expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
      expect(bytes(claim.spec.resources.requests.storage)).toBeGreaterThanOrEqual(bytes('1Gi'));
      const c = container(postgres);
      const data = (c.volumeMounts as Obj[]).find((m) => m.name === claim.metadata.name)!;
      expect(data.mountPath).toBe('/var/lib/postgresql/data');
      // PGDATA below the mount (initdb refuses a mount point holding lost+found).
      const env = containerEnv(c);
      expect(env.PGDATA.startsWith(`${data.mountPath}/`)).toBe(true);
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
      expect(postgres.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(c.image).toBe(compose.services.postgres.image);
      expect(compose.services.postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
      // Every variant deploys it.
      for (const dir of Object.values(VARIANTS)) {
        expect(
          variantDocs(dir)
            .filter((d) => d.obj.kind === 'StatefulSet')
            .map((d) => d.obj.metadata.name),
        ).toEqual(['postgres']);
      }
    });

    it("DATABASE_URL names the postgres Service, its port and the StatefulSet's user and database, here and in compose", () => {
      const postgres = find('StatefulSet', 'postgres');
      const env = containerEnv(container(postgres));
      const url = new URL(containerEnv(container(api)).DATABASE_URL);
      const service = find('Service', 'postgres');
      expect(url.protocol).toBe('postgres:');
      expect(url.hostname).toBe(service.metadata.name);
      const servicePort = (service.spec.ports as Obj[]).find((p) => p.port === Number(url.port));
      expect(portNumber(container(postgres), servicePort!.targetPort)).toBe(5432);
      expect(url.username).toBe(env.POSTGRES_USER);
      expect(url.pathname).toBe(`/${env.POSTGRES_DB}`);
      expect(compose.services.api.environment.DATABASE_URL).toBe(
        `postgres://${env.POSTGRES_USER}@postgres:5432/${env.POSTGRES_DB}`,
      );
    });

    it('Redis never evicts (BullMQ needs noeviction) and runs as a single replica that is never doubled', () => {
      const args = container(redis).args as string[];
      expect(args[args.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
      expect(redis.spec.replicas).toBe(1);
      expect(redis.spec.strategy.type).toBe('Recreate');
    });
  });

  describe('KEDA', () => {
    const keys = new QueueKeys(CONFIG.QUEUE_PREFIX);
    const triggers = scaledObject.spec.triggers as Obj[];
    const redisTriggers = triggers.filter((t) => t.type === 'redis');

    it("reads BullMQ's wait and active lists for the ConfigMap's QUEUE_PREFIX and QUEUE_NAME", () => {
      expect(CONFIG.QUEUE_PREFIX).toBe('{docx}');
      expect(CONFIG.QUEUE_NAME).toBe('render');
      // the render queue, and the items of asynchronous jobs' batches (their own queue)
      const { items } = jobQueueNames({ prefix: CONFIG.QUEUE_PREFIX, name: CONFIG.QUEUE_NAME });
      expect(redisTriggers.map((t) => t.metadata.listName).sort()).toEqual(
        [
          keys.toKey(CONFIG.QUEUE_NAME, 'active'),
          keys.toKey(CONFIG.QUEUE_NAME, 'wait'),
          keys.toKey(items, 'active'),
          keys.toKey(items, 'wait'),
        ].sort(),
      );
      expect(keys.toKey(CONFIG.QUEUE_NAME, 'wait')).toBe('{docx}:render:wait');
    });

    it('connects to the Redis of REDIS_URL, by the Service name KEDA resolves from its own namespace', () => {
      const url = new URL(CONFIG.REDIS_URL);
      for (const t of redisTriggers) {
        expect(t.metadata.address).toBe(`${url.hostname}.${NAMESPACE}.svc.cluster.local:${url.port || 6379}`);
      }
    });

    it('scales the worker Deployment, and the wait trigger can ask for every replica below MAX_WAITING_JOBS', () => {
      expect(scaledObject.spec.scaleTargetRef.name).toBe(worker.metadata.name);
      const wait = redisTriggers.find((t) => t.metadata.listName.endsWith(':wait'))!;
      const perReplica = Number(wait.metadata.listLength);
      expect(perReplica).toBeGreaterThan(0);
      expect(perReplica * scaledObject.spec.maxReplicaCount).toBeLessThanOrEqual(
        Number(CONFIG.MAX_WAITING_JOBS),
      );
      expect(scaledObject.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
      expect(scaledObject.spec.maxReplicaCount).toBeGreaterThan(scaledObject.spec.minReplicaCount);
    });

    it("the active trigger's target is one worker's concurrency, so busy workers are kept", () => {
      const active = redisTriggers.find((t) => t.metadata.listName.endsWith(':active'))!;
      const env = containerEnv(container(worker));
      const concurrency = Number(env.WORKER_CONCURRENCY ?? env.LIBREOFFICE_INSTANCES);
      expect(Number(active.metadata.listLength)).toBe(concurrency);
    });

    describe('against a real Redis', () => {
      let server: RedisServer;
      beforeAll(async () => {
        server = await RedisServer.start();
      });
      afterAll(async () => {
        await server?.stop();
      });

      it('a queued job is counted in the wait list, and a job in hand in the active list', async () => {
        const connection = { url: server.url, maxRetriesPerRequest: null };
        const opts = { connection, prefix: CONFIG.QUEUE_PREFIX };
        const listOf = (suffix: string) =>
          redisTriggers.find((t) => t.metadata.listName.endsWith(suffix))!.metadata.listName;
        const queue = new Queue(CONFIG.QUEUE_NAME, opts);
        const client = server.client();
        let release!: () => void;
        const held = new Promise<void>((r) => (release = r));
        let taken!: () => void;
        const takenP = new Promise<void>((r) => (taken = r));
        let w: Worker | undefined;
        try {
          await queue.add('render', { n: 1 });
          await queue.add('render', { n: 2 });
          expect(await client.llen(listOf(':wait'))).toBe(2);
          expect(await client.llen(listOf(':active'))).toBe(0);

          w = new Worker(
            CONFIG.QUEUE_NAME,
            async (_job: Job) => {
              taken();
              await held;
            },
            { ...opts, concurrency: 1 },
          );
          await takenP;
          expect(await client.llen(listOf(':active'))).toBe(1);
          expect(await client.llen(listOf(':wait'))).toBe(1);
        } finally {
          release();
          await w?.close();
          await queue.obliterate({ force: true }).catch(() => undefined);
          await queue.close();
          client.disconnect();
        }
      });
    });
  });
});
