/**
 * The probe and demo commands against the fixture server over real HTTP, and their failure
 * lines for a bad address or a garbage answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runDemo } from '../../src/cli/fixture-demo';
import {
  DEFAULT_PARTITION,
  formatSummary,
  parseUrls,
  runProbe,
  type ProbeSummary,
} from '../../src/cli/probe';
import { startFixtureServer, type FixtureServer } from '../../src/fixtures/server';

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
      expect(s.apps).toEqual({ total: 2, byState: { FINISHED: 2 } });
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
    expect(text).toContain('root.a [leaf]: 12.5 / 12.5 / 50 / 0; labels *');
    expect(text).toContain('Apps: 2 (by state: FINISHED=2)');
  });

  it('a bad address: one line on stderr and a non-zero code', async () => {
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const c = io();
    expect(await runProbe({ ...base, urls: [`http://127.0.0.1:${port}`] }, c.io)).toBe(2);
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
      expect(code).toBe(2);
      expect(c.err).toEqual([
        expect.stringMatching(
          /^probe failed: RM_MALFORMED_RESPONSE: the RM answered an HTML page where JSON was expected\n$/,
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
      resources: {},
      queues: [],
      apps: { total: 0, byState: {} },
    });
    expect(text).toContain('Nodes: 0 (by state: none; by label: none)');
  });
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
