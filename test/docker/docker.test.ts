import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, posix } from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import { loadConfigFile } from '../../src/config/load';
import { DASHBOARD_FILES } from '../../src/dashboard';
import type { SidecarConfig } from '../../src/config/schema';
import {
  accessibleLabels,
  allQueues,
  capacityOf,
  capacityProblems,
  childQueues,
  type HadoopConf,
  parseHadoopConf,
  reaches,
} from './hadoop-conf';

const root = join(__dirname, '..', '..');
const dockerDir = join(root, 'docker');
const hadoopDir = join(dockerDir, 'hadoop');
const CONF_DIR = '/opt/hadoop/etc/hadoop';

const xmlFiles = readdirSync(hadoopDir).filter((f) => f.endsWith('.xml'));
const conf = (file: string): HadoopConf =>
  parseHadoopConf(readFileSync(join(hadoopDir, file), 'utf8'), `docker/hadoop/${file}`);

/** The two sidecar configurations whose queue and label names the cluster must provide. */
const sidecarConfigs: Array<[string, SidecarConfig]> = [
  ['config/default.yaml', loadConfigFile(join(root, 'config', 'default.yaml'))],
  ['config/docker.yaml', loadConfigFile(join(root, 'config', 'docker.yaml'))],
];
const dockerConfig = sidecarConfigs[1]![1];

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  hostname?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
  user?: string;
  restart?: string;
  entrypoint?: string[];
  depends_on?: Record<string, { condition: string }>;
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
const compose = YAML.parse(readFileSync(join(dockerDir, 'compose.yaml'), 'utf8'), { merge: true }) as Compose;
const services = compose.services;
const HADOOP_SERVICES = [
  'namenode',
  'datanode',
  'resourcemanager',
  'nodemanager-cpu',
  'nodemanager-gpu',
  'historyserver',
] as const;

/** `host:port` of an http URL or a Hadoop address property. */
function hostPort(address: string): { host: string; port: string } {
  const m = /^(?:[a-z]+:\/\/)?([^:/]+):(\d+)/.exec(address);
  if (!m) throw new Error(`no host:port in ${address}`);
  return { host: m[1]!, port: m[2]! };
}

/** Volume entries `source:target[:mode]` of a service. */
function mounts(service: ComposeService): Array<{ source: string; target: string }> {
  return (service.volumes ?? []).map((v) => {
    const [source, target] = v.split(':');
    return { source: source!, target: target! };
  });
}

describe('Hadoop configuration files under docker/hadoop', () => {
  it('has the five files the daemons read, plus the reservable variant', () => {
    expect(xmlFiles.sort()).toEqual([
      'capacity-scheduler-reservable.xml',
      'capacity-scheduler.xml',
      'core-site.xml',
      'hdfs-site.xml',
      'mapred-site.xml',
      'yarn-site.xml',
    ]);
  });

  it.each(xmlFiles)('%s is well-formed and names each property once', (file) => {
    const c = conf(file);
    expect(c.size).toBeGreaterThan(0);
  });

  it('the reader rejects malformed XML and a property named twice', () => {
    expect(() => parseHadoopConf('<configuration><property><name>a</name></configuration>')).toThrow(
      /not well-formed/,
    );
    const twice =
      '<configuration><property><name>a</name><value>1</value></property>' +
      '<property><name>a</name><value>2</value></property></configuration>';
    expect(() => parseHadoopConf(twice)).toThrow(/a is defined twice/);
  });
});

describe('capacity-scheduler.xml against the sidecar configurations', () => {
  const cs = conf('capacity-scheduler.xml');
  const ys = conf('yarn-site.xml');

  it('uses the Capacity Scheduler', () => {
    expect(ys.get('yarn.resourcemanager.scheduler.class')).toBe(
      'org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler',
    );
  });

  it.each(sidecarConfigs)('defines the queues %s names, as leaves under root', (_name, config) => {
    const leaves = childQueues(cs, 'root');
    for (const q of [config.yarn.realtimeQueue, config.yarn.besteffortQueue, config.yarn.defaultQueue]) {
      expect(leaves).toContain(`root.${q}`);
      expect(childQueues(cs, `root.${q}`)).toEqual([]);
      expect(cs.get(`yarn.scheduler.capacity.root.${q}.state`)).toBe('RUNNING');
    }
  });

  it('has capacities adding up to 100 at each level, in the default and the gpu partition', () => {
    expect(capacityProblems(cs, [dockerConfig.yarn.gpuLabel])).toEqual([]);
    expect(childQueues(cs, 'root')).toEqual([
      'root.realtime',
      'root.besteffort',
      'root.default',
      'root.reserved',
    ]);
    expect(childQueues(cs, 'root').map((q) => capacityOf(cs, q))).toEqual([50, 30, 10, 10]);
    expect(childQueues(cs, 'root').map((q) => capacityOf(cs, q, 'gpu'))).toEqual([70, 30, 0, 0]);
  });

  it.each(sidecarConfigs)(
    "lets %s's real-time and best-effort queues reach the gpu label with a capacity, and not default",
    (_name, config) => {
      const { realtimeQueue, besteffortQueue, defaultQueue, gpuLabel } = config.yarn;
      for (const q of [realtimeQueue, besteffortQueue]) {
        expect(reaches(cs, `root.${q}`, gpuLabel)).toBe(true);
        expect(capacityOf(cs, `root.${q}`, gpuLabel)).toBeGreaterThan(0);
      }
      // A single space: explicitly no labelled partition (an empty value would inherit root's `*`).
      expect(cs.get(`yarn.scheduler.capacity.root.${defaultQueue}.accessible-node-labels`)).toBe(' ');
      expect(accessibleLabels(cs, `root.${defaultQueue}`)).toEqual([]);
      expect(reaches(cs, `root.${defaultQueue}`, gpuLabel)).toBe(false);
    },
  );

  it.each(sidecarConfigs)(
    'enables application priorities, at least as high as %s caps them when it sets a cap',
    (_name, config) => {
      const max = Number(ys.get('yarn.cluster.max-application-priority'));
      expect(Number.isInteger(max)).toBe(true);
      expect(max).toBeGreaterThan(0);
      // Unset, the sidecar reads the cap from the RM's /conf.
      if (config.yarn.maxApplicationPriority !== undefined)
        expect(config.yarn.maxApplicationPriority).toBeLessThanOrEqual(max);
    },
  );

  it('orders the real-time queue by priority (fifo ordering compares priority first)', () => {
    expect(cs.get('yarn.scheduler.capacity.root.realtime.ordering-policy')).toBe('fifo');
  });

  it('enables centralized node labels with a file system store in yarn-site.xml, outside /tmp', () => {
    expect(ys.get('yarn.node-labels.enabled')).toBe('true');
    expect(ys.get('yarn.node-labels.configuration-type')).toBe('centralized');
    const store = ys.get('yarn.node-labels.fs-store.root-dir')!;
    expect(store).toMatch(/^file:\/\/\//);
    expect(store).not.toMatch(/^file:\/\/\/tmp\//);
  });

  it('enables the reservation system with a reservable queue to act on, a RUNNING leaf of root', () => {
    expect(ys.get('yarn.resourcemanager.reservation-system.enable')).toBe('true');
    const reservableQueues = allQueues(cs).filter(
      (q) => cs.get(`yarn.scheduler.capacity.${q}.reservable`) === 'true',
    );
    expect(reservableQueues).toEqual(['root.reserved']);
    expect(childQueues(cs, 'root.reserved')).toEqual([]);
    expect(cs.get('yarn.scheduler.capacity.root.reserved.state')).toBe('RUNNING');
    expect(capacityOf(cs, 'root.reserved')).toBeGreaterThan(0);
    // Not one of the queues the sidecar uses: apps there run in its plan's default child.
    for (const [, config] of sidecarConfigs)
      expect([
        config.yarn.realtimeQueue,
        config.yarn.besteffortQueue,
        config.yarn.defaultQueue,
      ]).not.toContain('reserved');
  });

  it('makes the real-time queue reservable too only in the reservable variant', () => {
    const reservable = conf('capacity-scheduler-reservable.xml');
    const key = 'yarn.scheduler.capacity.root.realtime.reservable';
    expect(cs.get(key)).toBe('false');
    expect(reservable.get(key)).toBe('true');
    const differing = [...new Set([...cs.keys(), ...reservable.keys()])].filter(
      (k) => cs.get(k) !== reservable.get(k),
    );
    expect(differing).toEqual([key]);
  });

  it('allows REST writes: an authentication filter sets the user the sidecar sends as user.name', () => {
    const core = conf('core-site.xml');
    expect(core.get('hadoop.http.filter.initializers')).toBe(
      'org.apache.hadoop.security.AuthenticationFilterInitializer',
    );
    expect(core.get('hadoop.http.authentication.type')).toBe('simple');
    expect(dockerConfig.rm.user).toBe('hadoop');
  });
});

describe('the capacity checker', () => {
  const xmlOf = (props: Record<string, string>): HadoopConf =>
    parseHadoopConf(
      `<configuration>${Object.entries(props)
        .map(([n, v]) => `<property><name>${n}</name><value>${v}</value></property>`)
        .join('')}</configuration>`,
    );
  const P = 'yarn.scheduler.capacity.';

  it('names the parent and the partition whose children do not add up to 100', () => {
    const c = xmlOf({
      [`${P}root.queues`]: 'a,b',
      [`${P}root.a.capacity`]: '60',
      [`${P}root.b.capacity`]: '30',
      [`${P}root.a.accessible-node-labels`]: 'gpu',
      [`${P}root.a.accessible-node-labels.gpu.capacity`]: '80',
      [`${P}root.b.accessible-node-labels`]: ' ',
    });
    expect(capacityProblems(c, ['gpu'])).toEqual([
      "root: children's capacities in the default partition add up to 90, not 100",
      "root: children's capacities in the partition gpu add up to 80, not 100",
    ]);
  });

  interface QueueNode {
    children: Array<{ share: number; node: QueueNode }>;
  }
  /** Random queue trees; each child has a relative share of its parent. */
  const tree = fc.letrec<{ node: QueueNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant<QueueNode>({ children: [] }),
      fc
        .array(fc.tuple(fc.integer({ min: 1, max: 10 }), tie('node')), { minLength: 1, maxLength: 4 })
        .map((kids): QueueNode => ({ children: kids.map(([share, node]) => ({ share, node })) })),
    ),
  }));

  /** The tree as capacity-scheduler properties whose children add up to exactly 100 under every parent. */
  function toProps(node: QueueNode, path: string, out: Record<string, string>): void {
    if (node.children.length === 0) return;
    const names = node.children.map((_, i) => `q${i}`);
    out[`${P}${path}.queues`] = names.join(',');
    const total = node.children.reduce((s, c) => s + c.share, 0);
    // Integer percentages with the rounding remainder on the last child.
    let given = 0;
    node.children.forEach((c, i) => {
      const pct = i === node.children.length - 1 ? 100 - given : Math.floor((100 * c.share) / total);
      given += pct;
      out[`${P}${path}.${names[i]}.capacity`] = String(pct);
      toProps(c.node, `${path}.${names[i]}`, out);
    });
  }

  it('finds nothing in any tree that adds up, and exactly the parent of a changed capacity', () => {
    fc.assert(
      fc.property(tree.node, fc.nat(), fc.integer({ min: 1, max: 50 }), (t, pick, delta) => {
        const props: Record<string, string> = {};
        toProps(t, 'root', props);
        expect(capacityProblems(xmlOf(props), [])).toEqual([]);
        const keys = Object.keys(props).filter((k) => k.endsWith('.capacity'));
        if (keys.length === 0) return;
        const key = keys[pick % keys.length]!;
        const changed = { ...props, [key]: String(Number(props[key]) + delta) };
        const parent = key.slice(P.length, key.lastIndexOf('.', key.length - '.capacity'.length - 1));
        expect(capacityProblems(xmlOf(changed), [])).toEqual([
          `${parent}: children's capacities in the default partition add up to ${100 + delta}, not 100`,
        ]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('docker/compose.yaml', () => {
  it('has the Hadoop services, the one-shot label service and the sidecar', () => {
    expect(Object.keys(services).sort()).toEqual(
      [...HADOOP_SERVICES, 'node-labels', 'rm-volume-owner', 'sidecar'].sort(),
    );
  });

  it('runs every Hadoop service from the one image built from docker/hadoop-image (Hadoop 3.4.x)', () => {
    const names = [...HADOOP_SERVICES, 'node-labels', 'rm-volume-owner'];
    expect(new Set(names.map((s) => services[s]!.image))).toEqual(
      new Set(['yarn-sched-sidecar/hadoop:3.4.3']),
    );
    for (const s of names) expect(services[s]!.build).toEqual({ context: './hadoop-image' });
    const pom = readFileSync(join(dockerDir, 'hadoop-image', 'pom.xml'), 'utf8');
    const launcherPom = readFileSync(join(root, 'hadoop', 'launcher', 'pom.xml'), 'utf8');
    const version = (text: string) => /<hadoop\.version>([^<]+)<\/hadoop\.version>/.exec(text)?.[1];
    // The image's Hadoop is the release the real-Hadoop tests run.
    expect(version(pom)).toBe(version(launcherPom));
    expect(services['namenode']!.image).toBe(`yarn-sched-sidecar/hadoop:${version(pom)}`);
  });

  it.each([...HADOOP_SERVICES, 'node-labels'])(
    '%s mounts the configuration files from docker/hadoop over the image defaults',
    (name) => {
      const byTarget = new Map(mounts(services[name]!).map((m) => [m.target, m.source]));
      for (const file of [
        'core-site.xml',
        'hdfs-site.xml',
        'yarn-site.xml',
        'mapred-site.xml',
        'capacity-scheduler.xml',
      ]) {
        expect(byTarget.get(posix.join(CONF_DIR, file))).toBe(`./hadoop/${file}`);
      }
    },
  );

  it('mounts only files and directories that exist in the repository', () => {
    const sources = Object.values(services)
      .flatMap((s) => mounts(s))
      .map((m) => m.source)
      .filter((s) => s.startsWith('.'));
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) expect(existsSync(join(dockerDir, s))).toBe(true);
    const overlay = YAML.parse(readFileSync(join(dockerDir, 'compose.reservations.yaml'), 'utf8')) as Compose;
    const [m] = mounts(overlay.services['resourcemanager']!);
    expect(existsSync(join(dockerDir, m!.source))).toBe(true);
    expect(m!.target).toBe(posix.join(CONF_DIR, 'capacity-scheduler.xml'));
  });

  it("keeps the RM's node-label store on a named volume owned by the RM's user", () => {
    const store = new URL(conf('yarn-site.xml').get('yarn.node-labels.fs-store.root-dir')!).pathname;
    const rm = services['resourcemanager']!;
    const volume = new Map(mounts(rm).map((m) => [m.target, m.source])).get(store);
    expect(volume).toBe('rm-node-labels');
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    // A new named volume is root's; the one-shot gives it to `hadoop` before the RM starts.
    const owner = services['rm-volume-owner']!;
    expect(new Map(mounts(owner).map((m) => [m.target, m.source])).get(store)).toBe(volume);
    expect(owner).toMatchObject({
      user: 'root',
      restart: 'no',
      entrypoint: ['chown', '-R', 'hadoop', store],
    });
    expect(rm.depends_on!['rm-volume-owner']).toEqual({ condition: 'service_completed_successfully' });
    // The reservations overlay replaces the scheduler file only: the store stays on the volume.
    const overlay = YAML.parse(readFileSync(join(dockerDir, 'compose.reservations.yaml'), 'utf8')) as Compose;
    expect(mounts(overlay.services['resourcemanager']!).map((m) => m.target)).not.toContain(store);
  });

  it('gives every Hadoop service its own name as host name (node ids and RPC addresses use it)', () => {
    for (const s of HADOOP_SERVICES) expect(services[s]!.hostname).toBe(s);
  });

  it('formats the NameNode in the directory hdfs-site.xml names', () => {
    const nameDir = conf('hdfs-site.xml').get('dfs.namenode.name.dir')!;
    expect(`file://${services['namenode']!.environment!['ENSURE_NAMENODE_DIR']}`).toBe(nameDir);
  });

  it('points Hadoop addresses at compose services', () => {
    const serviceNames = Object.keys(services);
    const addresses = [
      conf('core-site.xml').get('fs.defaultFS')!,
      conf('hdfs-site.xml').get('dfs.namenode.http-address')!,
      conf('yarn-site.xml').get('yarn.resourcemanager.webapp.address')!,
      conf('yarn-site.xml').get('yarn.resourcemanager.admin.address')!,
      conf('mapred-site.xml').get('mapreduce.jobhistory.webapp.address')!,
    ];
    for (const a of addresses) expect(serviceNames).toContain(hostPort(a).host);
  });

  it("points the sidecar's configuration at the RM, the JobHistory server and the NameNode of the cluster", () => {
    const rmWeb = conf('yarn-site.xml').get('yarn.resourcemanager.webapp.address')!;
    const jhsWeb = conf('mapred-site.xml').get('mapreduce.jobhistory.webapp.address')!;
    const nnWeb = conf('hdfs-site.xml').get('dfs.namenode.http-address')!;
    expect(dockerConfig.rm.addresses.map(hostPort)).toEqual([hostPort(rmWeb)]);
    expect(hostPort(dockerConfig.rm.jobHistoryAddress)).toEqual(hostPort(jhsWeb));
    expect(hostPort(dockerConfig.rm.webHdfsAddress!)).toEqual(hostPort(nnWeb));
    expect(hostPort(rmWeb).host).toBe('resourcemanager');
    expect(hostPort(jhsWeb).host).toBe('historyserver');
  });

  it('starts the sidecar with config/docker.yaml, the ledger on a named volume, in shadow mode by default', () => {
    const sidecar = services['sidecar']!;
    const command = sidecar.command!;
    expect(command.slice(0, 2)).toEqual(['start', '--config']);
    const byTarget = new Map(mounts(sidecar).map((m) => [m.target, m.source]));
    expect(byTarget.get(command[2]!)).toBe('../config/docker.yaml');
    const ledgerDir = dirname(dockerConfig.ledger.path);
    expect(ledgerDir).toBe('/var/lib/yarn-sched-sidecar');
    const volume = byTarget.get(ledgerDir)!;
    expect(Object.keys(compose.volumes ?? {})).toContain(volume);
    const port = dockerConfig.server.port;
    expect(sidecar.ports).toContain(`\${YSS_SIDECAR_PORT:-${port}}:${port}`);
    expect(dockerConfig.enforcement.shadow).toBe(true);
    expect(sidecar.environment!['YSS_SHADOW']).toBe('${YSS_SHADOW:-true}');
    expect(sidecar.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
  });

  it('orders the start with depends_on conditions, each on a service that can satisfy it', () => {
    expect(services['sidecar']!.depends_on).toEqual({
      resourcemanager: { condition: 'service_healthy' },
      historyserver: { condition: 'service_healthy' },
      'node-labels': { condition: 'service_completed_successfully' },
    });
    expect(services['node-labels']!.depends_on).toEqual({
      resourcemanager: { condition: 'service_healthy' },
      'nodemanager-gpu': { condition: 'service_healthy' },
    });
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        if (condition === 'service_healthy') expect(services[dep]!.healthcheck?.test?.[0]).toBe('CMD-SHELL');
      }
    }
    expect(services['node-labels']!).toMatchObject({ restart: 'no' });
  });

  it('labels exactly the gpu NodeManager with the label of both sidecar configurations', () => {
    const env = services['node-labels']!.environment!;
    for (const [, config] of sidecarConfigs) expect(env['NODE_LABEL']).toBe(config.yarn.gpuLabel);
    expect(env['LABELLED_NODES']!.split(/\s+/)).toEqual(['nodemanager-gpu']);
    expect(env['RM_WEB']).toBe(`http://${conf('yarn-site.xml').get('yarn.resourcemanager.webapp.address')}`);
  });
});

describe('docker/Dockerfile', () => {
  const text = readFileSync(join(dockerDir, 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => !l.trimStart().startsWith('#'));
  const stages = lines.filter((l) => /^FROM\s/i.test(l));
  const runtime = lines.slice(lines.findIndex((l) => l === stages[stages.length - 1]));

  it('builds in one stage with the toolchain better-sqlite3 needs and runs in a slim one', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]).toMatch(/ AS build$/);
    expect(stages[1]).toMatch(/^FROM node:20-bookworm-slim AS runtime$/);
    expect(text).toMatch(/apt-get install[^\n]*python3 make g\+\+/);
    expect(runtime.some((l) => l.startsWith('COPY --from=build'))).toBe(true);
  });

  it('runs as a non-root user, with a healthcheck on /healthz and the ledger directory as a volume', () => {
    const users = runtime.filter((l) => l.startsWith('USER '));
    expect(users).toEqual(['USER node']);
    const health = runtime.find((l) => l.startsWith('HEALTHCHECK'));
    expect(health).toBeDefined();
    expect(text).toContain(`http://127.0.0.1:${dockerConfig.server.port}/healthz`);
    expect(runtime).toContain(`VOLUME ["${dirname(dockerConfig.ledger.path)}"]`);
    expect(runtime).toContain('ENTRYPOINT ["node", "bin/yarn-sched-sidecar.js"]');
  });

  it('sizes the young generation in NODE_OPTIONS, which Node takes there and acts on', () => {
    const line = runtime.find((l) => l.startsWith('ENV NODE_OPTIONS='));
    expect(line).toBe('ENV NODE_OPTIONS="--max-semi-space-size=32"');
    const options = JSON.parse(line!.slice('ENV NODE_OPTIONS='.length)) as string;
    // Node refuses to start (exit 9) with a flag NODE_OPTIONS does not allow.
    const heapLimit = (nodeOptions: string) =>
      Number(
        execFileSync(process.execPath, ['-p', "require('v8').getHeapStatistics().heap_size_limit"], {
          env: { ...process.env, NODE_OPTIONS: nodeOptions },
          encoding: 'utf8',
        }),
      );
    expect(heapLimit(options)).toBeGreaterThan(heapLimit(''));
  });

  it('ships every file the dashboard needs at start, where the compiled code looks for them', () => {
    // `start` mounts the dashboard, which refuses to start without its assets.
    expect(runtime).toContain(
      'COPY --from=build --chown=root:root /app/src/dashboard/public ./src/dashboard/public',
    );
    for (const f of DASHBOARD_FILES)
      expect(existsSync(join(dockerDir, '..', 'src', 'dashboard', 'public', f))).toBe(true);
  });
});

describe('docker/labels/label-nodes.sh against a stand-in RM', () => {
  const script = join(dockerDir, 'labels', 'label-nodes.sh');
  let stubs: string;
  let state: string;

  beforeEach(() => {
    stubs = mkdtempSync(join(tmpdir(), 'label-stubs-'));
    state = mkdtempSync(join(tmpdir(), 'label-state-'));
    for (const tool of ['curl', 'yarn']) {
      copyFileSync(join(__dirname, 'stubs', tool), join(stubs, tool));
      chmodSync(join(stubs, tool), 0o755);
    }
  });
  afterEach(() => {
    rmSync(stubs, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  const run = (env: Record<string, string>) =>
    spawnSync('bash', [script], {
      encoding: 'utf8',
      env: {
        PATH: `${stubs}:${process.env['PATH']}`,
        STUB_STATE: state,
        DELAY_SECONDS: '0',
        NODE_LABEL: 'gpu',
        LABELLED_NODES: 'nodemanager-gpu',
        RM_WEB: 'http://resourcemanager:8088',
        ...env,
      },
    });
  const yarnCalls = () => readFileSync(join(state, 'yarn.log'), 'utf8').trim().split('\n');
  const calls = (url: string) =>
    readFileSync(join(state, 'curl.log'), 'utf8')
      .split('\n')
      .filter((l) => l.endsWith(url)).length;

  it('waits for the RM and the NodeManager, adds the label, maps the node and checks it', () => {
    const r = run({ RM_DOWN_CALLS: '3', NM_LATE_CALLS: '2', ATTEMPTS: '10' });
    expect(r.stderr.trim().split('\n')).toEqual(Array(3).fill('curl: (7) Failed to connect'));
    expect(r.status).toBe(0);
    expect(calls('/ws/v1/cluster/info')).toBe(4);
    expect(r.stdout).toContain('ResourceManager answers: attempt 3/10 failed');
    expect(r.stdout).toContain('NodeManager nodemanager-gpu registered: attempt 2/10 failed');
    expect(yarnCalls()).toEqual([
      'rmadmin -addToClusterNodeLabels gpu(exclusive=true)',
      'rmadmin -replaceLabelsOnNode nodemanager-gpu=gpu',
      'node -status nodemanager-gpu:45454',
      'node -list -showDetails',
    ]);
    expect(r.stdout).toMatch(/label-nodes: finished\n$/);
  });

  it('leaves an existing label alone when run again', () => {
    expect(run({ ATTEMPTS: '3' }).status).toBe(0);
    expect(run({ ATTEMPTS: '3' }).status).toBe(0);
    expect(yarnCalls().filter((c) => c.startsWith('rmadmin -addToClusterNodeLabels'))).toHaveLength(1);
    expect(yarnCalls().filter((c) => c.startsWith('rmadmin -replaceLabelsOnNode'))).toHaveLength(2);
  });

  it('fails, without touching labels, when the RM never answers', () => {
    const r = run({ RM_DOWN_CALLS: '1000', ATTEMPTS: '3' });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('ResourceManager answers: gave up after 3 attempts');
    expect(existsSync(join(state, 'yarn.log'))).toBe(false);
  });

  it('is the script the compose service mounts and runs', () => {
    const s = services['node-labels']!;
    const target = mounts(s).find((m) => m.source === './labels/label-nodes.sh')!.target;
    expect(s.command).toEqual(['bash', target]);
    expect(basename(target)).toBe('label-nodes.sh');
  });
});
