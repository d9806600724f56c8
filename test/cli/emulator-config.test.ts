import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProbe, type ProbeSummary } from '../../src/cli/probe';
import { spawnCli, startEmulatorProc, stopAll } from '../e2e/support/procs';

/**
 * `yarn-sched-sidecar emulator --config FILE` end to end: the CLI in its own process on ports
 * the OS picks, read by `probe` over real HTTP; an invalid file stops it with exit code 2 and
 * one line per problem.
 */
async function probe(url: string): Promise<ProbeSummary> {
  let out = '';
  const code = await runProbe(
    { urls: [url], format: 'json', output: 'json', timeoutMs: 5000 },
    { out: (t) => (out += t), err: (t) => (out += t) },
  );
  expect(code).toBe(0);
  return JSON.parse(out) as ProbeSummary;
}

const leaves = (s: ProbeSummary) =>
  s.queues
    .filter((q) => q.kind === 'leaf')
    .map((q) => ({ name: q.name, capacity: q.capacity, maxCapacity: q.maxCapacity, labels: q.labels }));

describe('emulator --config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'emucfg-'));
  afterEach(stopAll);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the queues of examples/emulator.yaml', async () => {
    const emu = await startEmulatorProc('emulator', ['--config', 'examples/emulator.yaml']);
    const s = await probe(emu.url);
    expect(leaves(s)).toEqual([
      { name: 'root.realtime', capacity: 40, maxCapacity: 100, labels: ['gpu'] },
      { name: 'root.besteffort', capacity: 30, maxCapacity: 100, labels: ['gpu'] },
      { name: 'root.default', capacity: 30, maxCapacity: 100, labels: [] },
    ]);
    expect(s.nodes).toMatchObject({ total: 6, byLabel: { gpu: 2 } });
  });

  it("serves an operator's own queues, cluster file and WebHDFS files", async () => {
    writeFileSync(
      join(dir, 'cluster.yaml'),
      `version: 1
slotModel: unified
gpuLabel: gpu
nodeClasses:
  - { name: cpu, count: 3, containers: 4 }
  - { name: big, count: 2, containers: 16, gpuContainers: 2, labels: [gpu] }
`,
    );
    writeFileSync(
      join(dir, 'emulator.yaml'),
      `format: yarn-sched-sidecar-emulator
version: 1
cluster: cluster.yaml
queues:
  - { name: etl, capacity: 70, maxCapacity: 90, accessibleNodeLabels: [gpu], labelCapacity: { gpu: 100 } }
  - { name: adhoc, capacity: 30, maxCapacity: 50 }
hdfsFiles:
  - { path: /data/logs/day-1, bytes: 300000000, label: gpu }
`,
    );
    const emu = await startEmulatorProc('emulator', ['--config', join(dir, 'emulator.yaml')]);
    const s = await probe(emu.url);
    expect(leaves(s)).toEqual([
      { name: 'root.etl', capacity: 70, maxCapacity: 90, labels: ['gpu'] },
      { name: 'root.adhoc', capacity: 30, maxCapacity: 50, labels: [] },
    ]);
    expect(s.nodes).toMatchObject({ total: 5, byLabel: { gpu: 2 } });
    const status = await fetch(`${emu.url}/webhdfs/v1/data/logs/day-1?op=GETFILESTATUS`);
    expect(status.status).toBe(200);
    expect(((await status.json()) as { FileStatus: { length: number } }).FileStatus.length).toBe(300000000);
  });

  it('exits 2 on an invalid file, one line per problem with file and line', async () => {
    const proc = spawnCli('emulator', [
      'emulator',
      '--port',
      '0',
      '--jhs-port',
      '0',
      '--config',
      'examples/bad/emulator-capacities.yaml',
    ]);
    expect(await proc.exited).toBe(2);
    expect(proc.output().trim().split('\n')).toEqual([
      'invalid input, emulator not started:',
      "  examples/bad/emulator-capacities.yaml:6: queues: children's capacities in the partition gpu add up to 80, not 100",
      '  examples/bad/emulator-capacities.yaml:13: queues[1].maxCapacity: maximum 30 is below the capacity 40',
    ]);
  });
});
