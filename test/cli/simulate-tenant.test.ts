import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main';

/**
 * `simulate` with another tenant (docs/simulator.md, "Other tenants in the simulator"): every bad
 * option value is a usage error (exit status 2) that names the option, before anything runs; a
 * good one runs every policy beside the tenant and summary.json says what it did.
 */

async function simulate(args: string[]): Promise<{ code: number | undefined; err: string }> {
  let err = '';
  const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err += String(chunk);
    return true;
  });
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  process.exitCode = undefined;
  try {
    await main(['node', 'yarn-sched-sidecar', 'simulate', ...args]);
    return { code: process.exitCode as number | undefined, err };
  } finally {
    process.exitCode = undefined;
    write.mockRestore();
    out.mockRestore();
  }
}

describe('simulate with another tenant', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-tenant-'));
    writeFileSync(
      join(dir, 'cluster.yaml'),
      [
        'version: 1',
        'slotModel: unified',
        'heartbeatSeconds: 1',
        'nodeClasses:',
        '  - { name: w, count: 2, containers: 4 }',
        'costs:',
        '  cpu: { mapSecondsPerMB: 0.1, reduceSecondsPerMB: 0.1, shuffleRatio: 0.1, jitter: [0.8, 1.0] }',
        '  gpu: { mapSecondsPerMB: 0.1, reduceSecondsPerMB: 0.1, shuffleRatio: 0.1, jitter: [0.8, 1.0] }',
        'hdfs: { blockMB: 128, replication: 2 }',
        '',
      ].join('\n'),
    );
    const jobs = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({
        id: `j${i}`,
        arrival: i * 200,
        deadline: 120,
        maps: 6,
        reduces: 1,
        inputBytes: 6 * 64 * 1024 * 1024,
        type: 'cpu',
        user: 'u',
      }),
    );
    writeFileSync(
      join(dir, 'trace.jsonl'),
      [JSON.stringify({ format: 'yarn-sched-sidecar-trace', version: 1 }), ...jobs, ''].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const custom = () => ['--cluster', join(dir, 'cluster.yaml'), '--trace', join(dir, 'trace.jsonl')];

  it.each([
    [
      ['--experiment', 'efh', '--tenant-share', '1.5'],
      "option '--tenant-share <f>' argument '1.5' is invalid",
    ],
    [['--experiment', 'efh', '--tenant-share', 'half'], 'must be a number in [0, 1]'],
    [['--experiment', 'efh', '--tenant-share', '0.5', '--preemption', 'maybe'], "must be 'on' or 'off'"],
    [
      ['--experiment', 'efh', '--tenant-share', '0.5', '--tenant-releases', 'soon'],
      "must be 'known' or 'unknown'",
    ],
    [
      ['--experiment', 'efh', '--preemption', 'on'],
      '--preemption shapes another tenant: give --tenant-share too',
    ],
    [['--experiment', 'tenants', '--tenant-share', '0.5'], 'the tenants experiment sets its own tenants'],
    [['--experiment', 'efh', '--tenant-share', '1'], '--tenant-share: must be a number in [0, 1)'],
    [
      ['--experiment', 'efh', '--tenant-share', '0.5', '--tenant-max', '0.2'],
      '--tenant-max: must be at least the share (0.5)',
    ],
    [
      ['--experiment', 'rtmr-workload-1', '--tenant-share', '0.5'],
      'cluster: another tenant needs a unified cluster (it holds containers, not mr1 slots)',
    ],
    [
      ['--experiment', 'efh', '--sweep', 'aeThresholdSeconds=60,300', '--tenant-share', '0.5'],
      'the tenant options do not apply to it',
    ],
  ])('refuses %j with exit status 2', async (args, message) => {
    const r = await simulate([...args, '--out', join(dir, 'never'), '--no-png']);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(() => readFileSync(join(dir, 'never', 'summary.json'))).toThrow();
  });

  it('runs every policy beside the tenant, and summary.json says what the tenant did', async () => {
    const out = join(dir, 'out');
    const r = await simulate([
      ...custom(),
      '--policies',
      'rtmr,yarn-greedy',
      '--tenant-share',
      '0.25',
      '--preemption',
      'off',
      '--out',
      out,
      '--no-png',
    ]);
    expect(r.code).toBeUndefined();
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    for (const label of ['rtmr', 'yarn-greedy']) {
      const p = summary.policies[label];
      expect(Object.keys(p.tenant).sort()).toEqual([
        'borrowedContainerSeconds',
        'preempted',
        'rejectedNamingSharing',
      ]);
      expect(p.tenant.preempted).toBe(0);
      expect(p.tenant.borrowedContainerSeconds).toBeGreaterThan(0);
    }
    // rtmr refuses what it cannot keep with the tenant's ends unknown; none it admitted missed.
    expect(summary.policies.rtmr.missed).toBe(0);
    expect(summary.policies.rtmr.tenant.rejectedNamingSharing).toBeGreaterThan(0);
  });
});
