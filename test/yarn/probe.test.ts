/**
 * The probe and demo commands against the fixture server over real HTTP, and their failure
 * lines for a bad address or a garbage answer; the probe against RMs of older Hadoop versions
 * (answers from test/fixtures/ours/), where a field the RM does not send shows as "unknown".
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { EXIT } from '../../src/cli/exit-codes';
import { runDemo } from '../fixture-server/demo';
import {
  DEFAULT_PARTITION,
  formatSummary,
  parseUrls,
  runProbe,
  UNKNOWN,
  type ProbeSummary,
} from '../../src/cli/probe';
import { UNKNOWN_PREEMPTION } from '../../src/yarn/conf';
import { startFixtureServer, type FixtureServer } from '../fixture-server/server';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
}

const base = { format: 'json' as const, output: 'json' as const, timeoutMs: 2_000 };

describe('probe', () => {
  let hadoop: FixtureServer;
  let labelled: FixtureServer;
  beforeAll(async () => {
    [hadoop, labelled] = await Promise.all([
      startFixtureServer(),
      startFixtureServer({ labelledNodes: true }),
    ]);
  });
  afterAll(() => Promise.all([hadoop.close(), labelled.close()]));

  it.each(['json', 'xml'] as const)(
    'prints one JSON object with the documented keys (RM spoken in %s)',
    async (format) => {
      const c = io();
      expect(await runProbe({ ...base, format, urls: [hadoop.url] }, c.io)).toBe(0);
      expect(c.err).toEqual([]);
      const s = JSON.parse(c.out.join('')) as ProbeSummary;
      expect(s.rm).toMatchObject({ version: '3.0.0-SNAPSHOT', haState: 'ACTIVE' });
      expect(s.nodes).toEqual({ total: 2, byState: { RUNNING: 2 }, byLabel: { [DEFAULT_PARTITION]: 2 } });
      expect(s.queues.map((q) => [q.name, q.capacity, q.labels])).toEqual([
        ['root', 100, []],
        ['root.a', 12.5, ['*']],
        ['root.b', 50, ['*']],
        ['root.c', 37.5, ['*']],
      ]);
      expect(s.apps).toEqual({ total: 2, byState: { FINISHED: 2 }, byPriority: { '-1': 2 } });
      // The current RM sends every field the probe shows: nothing is unknown.
      expect(s.nodeMetrics).toEqual({
        active: 1,
        lost: 0,
        unhealthy: 0,
        decommissioning: 0,
        decommissioned: 0,
        rebooted: 0,
        shutdown: 0,
      });
      expect(s.queues.map((q) => q.mode)).toEqual(['percentage', 'percentage', 'percentage', 'percentage']);
      expect(c.out.join('')).not.toContain(UNKNOWN);
      expect(s.resources[DEFAULT_PARTITION]).toEqual({
        memoryMB: { total: 16384, used: 0 },
        vcores: { total: 16, used: 0 },
        gpus: { total: 0, used: 0 },
      });
    },
  );

  it('sums memory, vcores and GPUs per label over RUNNING nodes (labelled cluster)', async () => {
    const c = io();
    expect(await runProbe({ ...base, urls: [labelled.url] }, c.io)).toBe(0);
    const s = JSON.parse(c.out.join('')) as ProbeSummary;
    expect(s.nodes.byState).toEqual({ RUNNING: 3, LOST: 1 });
    expect(s.nodes.byLabel).toEqual({ [DEFAULT_PARTITION]: 2, gpu: 2 });
    expect(s.resources.gpu).toEqual({
      memoryMB: { total: 131072, used: 8192 },
      vcores: { total: 64, used: 4 },
      gpus: { total: 8, used: 2 },
    });
    // cpu2 is LOST: its 16 GB do not count.
    expect(s.resources[DEFAULT_PARTITION]!.memoryMB).toEqual({ total: 16384, used: 4096 });
  });

  it('prints the human summary by default', async () => {
    const c = io();
    expect(await runProbe({ ...base, output: 'text', urls: [labelled.url] }, c.io)).toBe(0);
    const text = c.out.join('');
    expect(text).toContain('HA state ACTIVE');
    expect(text).toContain('gpu: memory 8192 / 131072 MB, vcores 4 / 64, GPUs 2 / 8');
    expect(text).toContain('root.a [leaf]: 12.5 / 12.5 / 50 / 0; labels *; mode percentage');
    expect(text).toContain('Apps: 2 (by state: FINISHED=2)');
    expect(text).toContain('App priorities: -1=2');
  });

  it('a bad address: one line on stderr and a non-zero code', async () => {
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const c = io();
    // docs/cli.md: an RM that cannot be reached or answers an error is 69 (unavailable).
    expect(await runProbe({ ...base, urls: [`http://127.0.0.1:${port}`] }, c.io)).toBe(EXIT.unavailable);
    expect(c.out).toEqual([]);
    expect(c.err).toHaveLength(1);
    expect(c.err[0]).toMatch(/^probe failed: RM_UNAVAILABLE: cannot reach .*ECONNREFUSED.*\n$/);
    expect(c.err[0]!.trimEnd()).not.toContain('\n');
  });

  it('an RM that answers garbage: one line on stderr and a non-zero code', async () => {
    const garbage = http.createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>Proxy login</body></html>'),
    );
    await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', r));
    try {
      const c = io();
      const code = await runProbe(
        { ...base, urls: [`http://127.0.0.1:${(garbage.address() as AddressInfo).port}`] },
        c.io,
      );
      expect(code).toBe(EXIT.unavailable);
      expect(c.err).toEqual([
        expect.stringMatching(
          /^probe failed: RM_MALFORMED_RESPONSE: the RM answered an HTML page where JSON was expected \(from http:\/\/\S+\/ws\/v1\/cluster\/info\)\n$/,
        ),
      ]);
    } finally {
      garbage.closeAllConnections();
      await new Promise((r) => garbage.close(r));
    }
  });

  it('takes a comma list of http(s) addresses and rejects anything else', () => {
    expect(parseUrls('http://rm1:8088, https://rm2:8090')).toEqual(['http://rm1:8088', 'https://rm2:8090']);
    expect(() => parseUrls('rm1:8088')).toThrow(/not an http\(s\) URL/);
    expect(() => parseUrls('not a url')).toThrow(/not a URL/);
    expect(() => parseUrls(',')).toThrow(/at least one/);
  });

  it('formats an empty cluster without failing', () => {
    const text = formatSummary({
      rm: { url: 'u', version: 'v', hadoopVersion: 'v', haState: 'ACTIVE', clusterId: 1 },
      scheduler: 'fifo',
      nodes: { total: 0, byState: {}, byLabel: {} },
      nodeMetrics: {
        active: 0,
        lost: 0,
        unhealthy: 0,
        decommissioning: 0,
        decommissioned: 0,
        rebooted: 0,
        shutdown: 0,
      },
      resources: {},
      queues: [],
      apps: { total: 0, byState: {}, byPriority: {} },
      writes: { user: null, priorityCap: 0 },
      lending: {
        queue: 'realtime',
        found: false,
        preemption: UNKNOWN_PREEMPTION,
        partitions: [],
        warnings: [],
      },
    });
    expect(text).toContain('Nodes: 0 (by state: none; by label: none)');
    expect(text).toContain('Preemption: unknown (the RM hides /conf)');
    expect(text).toContain("Real-time queue realtime: not among the scheduler's leaf queues");
    expect(text).toContain('App priorities: none');
    expect(text).toContain(
      'Priority cap (yarn.cluster.max-application-priority): 0 - every app runs at 0: EDF order cannot be written as priorities',
    );
    expect(text).toContain(
      'Writes: anonymous (no --user): an RM with simple authentication refuses them (401)',
    );
  });
});

// --- RMs of older Hadoop versions -------------------------------------------------------------

const OURS = path.join(__dirname, '..', 'fixtures', 'ours');

/** The answers of a 2.7 RM (test/fixtures/ours/*-hadoop-2.7.json), path by path, JSON only. */
const HADOOP_27: Record<string, string> = {
  '/ws/v1/cluster/info': 'cluster-info.response-hadoop-2.7.json',
  '/ws/v1/cluster/metrics': 'cluster-metrics.response-hadoop-2.7.json',
  '/ws/v1/cluster/nodes': 'cluster-nodes.response-hadoop-2.7.json',
  '/ws/v1/cluster/apps': 'cluster-apps.response-hadoop-2.7.json',
  '/ws/v1/cluster/scheduler': 'scheduler-capacity.response-hadoop-2.7.json',
};

interface VersionedRm {
  url: string;
  paths: string[];
  close(): Promise<void>;
}

/** A stand-in RM that answers each path with one of our version-shaped fixture files. */
async function startVersionedRm(files: Record<string, string>): Promise<VersionedRm> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    paths.push(pathname);
    const file = files[pathname];
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          RemoteException: {
            exception: 'NotFoundException',
            message: `no fixture for ${pathname}`,
            javaClassName: 'org.apache.hadoop.yarn.webapp.NotFoundException',
          },
        }),
      );
      return;
    }
    res
      .writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' })
      .end(fs.readFileSync(path.join(OURS, file), 'utf8'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function probeJson(rm: VersionedRm): Promise<ProbeSummary> {
  const c = io();
  expect(await runProbe({ ...base, urls: [rm.url] }, c.io)).toBe(0);
  expect(c.err).toEqual([]);
  return JSON.parse(c.out.join('')) as ProbeSummary;
}

describe('probe against a Hadoop 2.7 RM', () => {
  let rm: VersionedRm;
  beforeAll(async () => {
    rm = await startVersionedRm(HADOOP_27);
  });
  afterAll(() => rm.close());

  it('succeeds, reads what 2.7 sends and says unknown for what it does not (JSON)', async () => {
    const s = await probeJson(rm);
    expect(s.rm).toMatchObject({
      version: '2.7.7',
      hadoopVersion: '2.7.7',
      haState: 'ACTIVE',
      clusterId: 1700000000000,
    });
    expect(s.scheduler).toBe('capacity');
    expect(s.nodes).toEqual({
      total: 3,
      byState: { RUNNING: 2, LOST: 1 },
      byLabel: { [DEFAULT_PARTITION]: 2, fast: 1 },
    });
    // 2.8 added decommissioning and shutdown nodes to the metrics: unknown, not 0.
    expect(s.nodeMetrics).toEqual({
      active: 2,
      lost: 1,
      unhealthy: 0,
      decommissioning: UNKNOWN,
      decommissioned: 0,
      rebooted: 0,
      shutdown: UNKNOWN,
    });
    // Resources from the nodes' memory/vcore scalars: 2.7 has no totalResource.
    expect(s.resources).toEqual({
      [DEFAULT_PARTITION]: {
        memoryMB: { total: 8192, used: 3072 },
        vcores: { total: 8, used: 2 },
        gpus: { total: 0, used: 0 },
      },
      fast: {
        memoryMB: { total: 8192, used: 0 },
        vcores: { total: 8, used: 0 },
        gpus: { total: 0, used: 0 },
      },
    });
    // 2.7 sends no queuePath (the path is built from the tree) and no capacity mode.
    expect(
      s.queues.map((q) => [q.name, q.kind, q.capacity, q.absoluteCapacity, q.labels, q.defaultLabel, q.mode]),
    ).toEqual([
      ['root', 'parent', 100, 100, [], null, UNKNOWN],
      ['root.default', 'leaf', 70, 70, [], null, UNKNOWN],
      ['root.research', 'parent', 30, 30, ['fast'], null, UNKNOWN],
      ['root.research.fast', 'leaf', 50, 15, ['fast'], null, UNKNOWN],
      ['root.research.batch', 'leaf', 50, 15, [], null, UNKNOWN],
    ]);
    // Application priority arrived in 2.8.
    expect(s.apps).toEqual({ total: 2, byState: { RUNNING: 1, FINISHED: 1 }, byPriority: { [UNKNOWN]: 2 } });
    expect(rm.paths).toEqual(expect.arrayContaining(Object.keys(HADOOP_27)));
  });

  it('prints unknown in the text summary where 2.7 sends nothing', async () => {
    const c = io();
    expect(await runProbe({ ...base, output: 'text', urls: [rm.url] }, c.io)).toBe(0);
    expect(c.err).toEqual([]);
    const text = c.out.join('');
    expect(text).toContain('version 2.7.7, HA state ACTIVE, cluster id 1700000000000');
    expect(text).toContain(
      'Node metrics: active 2, lost 1, unhealthy 0, decommissioning unknown, decommissioned 0, rebooted 0, shutdown unknown',
    );
    expect(text).toContain('root.research.fast [leaf]: 50 / 15 / 100 / 0; labels fast; mode unknown');
    expect(text).toContain('Apps: 2 (by state: RUNNING=1, FINISHED=1)');
    expect(text).toContain('App priorities: unknown=2');
  });

  it('lists every queue of a 2.7 fair scheduler, whose childQueues are a plain list', async () => {
    const fair = await startVersionedRm({
      ...HADOOP_27,
      '/ws/v1/cluster/scheduler': 'scheduler-fair.response-hadoop-2.7.json',
    });
    try {
      const s = await probeJson(fair);
      expect(s.scheduler).toBe('fair');
      expect(
        s.queues.map((q) => [q.name, q.kind, q.capacity, q.maxCapacity, q.usedCapacity, q.mode]),
      ).toEqual([
        ['root', 'parent', 100, 100, 18.75, UNKNOWN],
        ['root.default', 'leaf', 50, 100, 18.75, UNKNOWN],
        ['root.team', 'parent', 50, 75, 0, UNKNOWN],
        ['root.team.alpha', 'leaf', 25, 100, 0, UNKNOWN],
        ['root.team.beta', 'leaf', 25, 100, 0, UNKNOWN],
      ]);
    } finally {
      await fair.close();
    }
  });

  it.each(['json', 'text'] as const)(
    'shows the HA state of an RM before 2.4, which sends none, as unknown (%s output)',
    async (output) => {
      const old = await startVersionedRm({
        ...HADOOP_27,
        '/ws/v1/cluster/info': 'cluster-info.response-before-2.4.json',
      });
      try {
        const c = io();
        expect(await runProbe({ ...base, output, urls: [old.url] }, c.io)).toBe(0);
        expect(c.err).toEqual([]);
        const out = c.out.join('');
        if (output === 'json') {
          expect((JSON.parse(out) as ProbeSummary).rm).toMatchObject({ version: '2.3.0', haState: UNKNOWN });
        } else {
          expect(out).toContain('version 2.3.0, HA state unknown, cluster id 1390000000000');
        }
      } finally {
        await old.close();
      }
    },
  );
});

describe('demo', () => {
  it('probes the built-in fixture server, says so, and exits 0', async () => {
    const c = io();
    expect(await runDemo(c.io)).toBe(0);
    const text = c.out.join('');
    expect(text).toMatch(/Started the built-in fixture server at http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain("Hadoop's documented sample responses");
    expect(text).toContain('Scheduler: capacity');
    expect(text).toMatch(/Done: \d+ REST calls answered by the fixture server; stopped it\./);
  });
});
