import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReplayCli, windowOf, type ReplayCliOptions } from '../../src/cli/replay';
import { buildConfig } from '../../src/config/load';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { DEFAULT_SYNTHETIC_HISTORY, SyntheticHistory } from '../../src/emulator/synthetic-history';
import { ValidationError } from '../../src/errors/validation';
import { replayFromCluster } from '../../src/replay';
import { taskSeconds } from '../../src/replay/history';
import { writeReplay } from '../../src/replay/output';
import { AS_RAN, allAdmissionPolicies, fidelityOf, type ReplayReport } from '../../src/replay/replay';
import { parseDeadlineRules } from '../../src/replay/workload';
import { readTraceFile } from '../../src/sim/formats/trace-reader';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';

/**
 * `replay` end to end on the emulator: its RM's nodes and its JobHistory server's synthetic
 * history, every admission policy, the fidelity of the as-ran run, and the files written (the
 * SLS and Rumen traces read back by the simulator's own readers).
 */
const NOW = Date.UTC(2026, 0, 2);
const history = { ...DEFAULT_SYNTHETIC_HISTORY, jobs: 60, startMs: NOW - 6 * 3_600_000, meanGapSeconds: 300 };
const truth = new SyntheticHistory(history);

let emu: RunningEmulator;
let out: string;
beforeAll(async () => {
  emu = await startEmulator({ history });
  out = mkdtempSync(join(tmpdir(), 'yss-replay-'));
});
afterAll(async () => {
  await emu.close();
  rmSync(out, { recursive: true, force: true });
});

describe('replay of the emulator\u2019s history', () => {
  let run: Awaited<ReturnType<typeof replayFromCluster>>;
  let files: string[];
  beforeAll(async () => {
    run = await replayFromCluster({
      jhs: JobHistoryClient.forHistoryServer({ urls: [emu.jhsUrl], timeoutMs: 10_000 }),
      rm: new HttpResourceManagerClient({ urls: [emu.url], timeoutMs: 10_000 }),
      config: buildConfig({}),
      rules: parseDeadlineRules(['slack=1.5x']),
      fromMs: NOW - 86_400_000,
      toMs: NOW,
    });
    files = await writeReplay(out, run.result, run.history.jobs, { png: false });
  });

  it('replays every succeeded job under FIFO as it ran and under every admission policy', () => {
    const r = run.result.report;
    const succeeded = Array.from({ length: history.jobs }, (_, i) => truth.job(i)).filter(
      (j) => j.state === 'SUCCEEDED',
    );
    expect(r.jobs).toBe(succeeded.length);
    expect(Object.keys(r.policies)).toEqual([AS_RAN, ...allAdmissionPolicies()]);
    expect(r.deadlines.slack).toBe(r.jobs);
    for (const f of Object.values(r.policies)) {
      expect(f.admitted + f.rejected).toBe(r.jobs);
      expect(f.met + f.missed).toBe(f.admitted);
    }
    // The cluster the RM showed: 4 nodes of 16 containers, 2 GPU nodes.
    expect(r.cluster.nodeClasses.map((c) => [c.count, c.containers])).toEqual([
      [4, 16],
      [2, 16],
    ]);
  });

  it('the as-ran run finishes each job within 10 % of its real finish (median), and says the distribution', () => {
    const f = run.result.report.fidelity;
    expect(f.jobs).toBe(run.result.report.jobs);
    expect(f.medianAbsError).toBeLessThanOrEqual(0.1);
    expect(f.ok).toBe(true);
    expect(f.buckets.reduce((n, b) => n + b.jobs, 0)).toBe(f.jobs);
    // Computed from the run's outcomes: recomputing gives the same figures.
    expect(fidelityOf(run.history.jobs, run.result.workload, run.result.smallRuns[0]!.outcomes)).toEqual(f);
  });

  it('the task times replayed are the history server\u2019s', () => {
    for (const [i, j] of run.history.jobs.entries()) {
      const t = truth.byId(j.id)!;
      const maps = t.tasks.filter((x) => x.type === 'MAP').map((x) => (x.finishTime - x.startTime) / 1000);
      expect(run.result.workload.jobs[i]!.replay!.mapSeconds).toEqual(maps);
      expect(maps.map((_, k) => taskSeconds(j.maps, k))).toEqual(maps);
    }
  });

  it('writes the report, one CSV and JSON row per job, the plots, and SLS and Rumen traces the simulator reads back', () => {
    for (const f of [
      'replay.json',
      'jobs.csv',
      'jobs.jsonl',
      'sls.json',
      'rumen.json',
      'policies.svg',
      'fidelity.svg',
    ])
      expect(files).toContain(f);
    const report = JSON.parse(readFileSync(join(out, 'replay.json'), 'utf8')) as { jobs: number };
    expect(report.jobs).toBe(run.result.report.jobs);
    const csv = readFileSync(join(out, 'jobs.csv'), 'utf8').trimEnd().split('\n');
    expect(csv).toHaveLength(report.jobs + 1);
    expect(csv[0]).toMatch(/^job,name,user,queue,source,submit,realSeconds,deadlineSeconds,deadlineSource/);
    const row = JSON.parse(readFileSync(join(out, 'jobs.jsonl'), 'utf8').split('\n')[0]!) as {
      policies: Record<string, { decision: string }>;
    };
    expect(Object.keys(row.policies)).toContain('rtmr');
    for (const format of ['sls', 'rumen'] as const) {
      const read = readTraceFile(join(out, `${format}.json`), { format }).jobs(1);
      expect(read.map((j) => j.id)).toEqual(run.history.jobs.map((j) => j.id));
      expect(read.map((j) => j.replay!.mapSeconds)).toEqual(
        run.result.workload.jobs.map((j) => j.replay!.mapSeconds),
      );
    }
    expect(existsSync(join(out, 'policies.png'))).toBe(false);
  });
});

describe('the replay command', () => {
  const base: ReplayCliOptions = {
    deadline: [],
    concurrency: 4,
    page: 1000,
    format: 'json',
    timeoutMs: 5000,
    out: '',
    png: false,
  };
  const cli = async (o: Partial<ReplayCliOptions>) => {
    const lines = { out: '', err: '' };
    const code = await runReplayCli(
      { ...base, out: join(out, 'cli'), jhs: emu.jhsUrl, rm: emu.url, ...o },
      {
        out: (t) => (lines.out += t),
        err: (t) => (lines.err += t),
        stream: { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream,
      },
      NOW,
    );
    return { code, ...lines };
  };

  it('prints the fidelity and the policy table, and exits 0', async () => {
    const r = await cli({ since: '1d', deadline: ['slack=2x'], policies: 'rtmr,fifo-all' });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/fidelity \(as-ran vs real, \d+ jobs\): median \|error\| \d+\.\d %/);
    expect(r.out).toMatch(/\| as-ran +\| \d+ +\| 0 +\|/);
    expect(r.out).toMatch(/\| rtmr +\|/);
    expect(r.out).not.toMatch(/\| dc +\|/);
  });

  it('bad input is exit 2 with what was wrong, and nothing replayed', async () => {
    expect(await cli({ since: '1d', from: '2026-01-01T00:00:00Z' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--since: give --since, or --from \(and --to\), not both/),
    });
    expect(await cli({ since: 'a week' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--since: must be a duration such as 7d/),
    });
    expect(await cli({ since: '1d', policies: 'rtmr,fastest' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/unknown admission policy "fastest"; known: .*rtmr/),
    });
    expect(await cli({ since: '1d', deadline: ['slack=0x'] })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/slack must be a factor > 0/),
    });
    expect(await cli({ from: '2026-01-01T00:00:00Z', to: '2025-12-31T00:00:00Z' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--to: must be after --from/),
    });
    // A window with no job: said, exit 2.
    expect(await cli({ from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/window: no finished job to replay between 2020-01-01/),
    });
  });

  it('runs itself in a process of the heap --heap-mb gives, spills the cells and removes them', async () => {
    const dir = join(out, 'heap');
    const child = spawn(
      process.execPath,
      [
        '--require',
        'tsx/cjs',
        join(__dirname, '..', 'e2e', 'support', 'entry.ts'),
        'replay',
        ...['--rm', emu.url, '--jhs', emu.jhsUrl, '--out', dir, '--no-png', '--policies', 'rtmr'],
        ...['--from', new Date(NOW - 86_400_000).toISOString(), '--to', new Date(NOW).toISOString()],
        ...['--deadline', 'slack=1.5x', '--heap-mb', '200'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    expect(stdout).toMatch(/\| rtmr +\|/);
    const report = JSON.parse(readFileSync(join(dir, 'replay.json'), 'utf8')) as ReplayReport;
    // V8 adds its young generation to the old space asked for.
    expect(report.memory.heapLimitMb).toBeGreaterThanOrEqual(200);
    expect(report.memory.heapLimitMb).toBeLessThan(300);
    expect(report.memory.peakRssMb).toBeGreaterThan(0);
    expect(Object.keys(report.wallMs.runs)).toEqual([AS_RAN, 'rtmr']);
    // Every job's row has both runs' cells, read back from the spilled files, which are gone.
    const rows = readFileSync(join(dir, 'jobs.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { policies: Record<string, { decision: string }> });
    expect(rows).toHaveLength(report.jobs);
    for (const r of rows) expect(Object.keys(r.policies)).toEqual([AS_RAN, 'rtmr']);
    expect(rows.filter((r) => r.policies.rtmr!.decision === 'rejected')).toHaveLength(
      report.policies.rtmr!.rejected,
    );
    expect(existsSync(join(dir, '.cells'))).toBe(false);
  }, 60_000);

  it('keeps the history in --out/.history-cache and a second run reads it from there; --no-cache keeps none', async () => {
    const dir = join(out, 'cached');
    const first = await cli({ since: '1d', policies: 'rtmr', out: dir });
    expect(first.code).toBe(0);
    const jobs = Number(/replayed (\d+) jobs/.exec(first.out)![1]);
    expect(first.err).toContain(
      `history cache ${join(dir, '.history-cache')}: 0 job(s) found there, ${jobs} read and kept`,
    );
    const csv = readFileSync(join(dir, 'jobs.csv'), 'utf8');
    const second = await cli({ since: '1d', policies: 'rtmr', out: dir });
    expect(second.err).toContain(`: ${jobs} job(s) found there, 0 read and kept`);
    expect(readFileSync(join(dir, 'jobs.csv'), 'utf8')).toBe(csv);
    const none = join(out, 'uncached');
    expect((await cli({ since: '1d', policies: 'rtmr', out: none, cache: false })).code).toBe(0);
    expect(existsSync(join(none, '.history-cache'))).toBe(false);
  });

  it('an unreachable JobHistory server is exit 69 naming it', async () => {
    const r = await cli({ since: '1d', jhs: 'http://127.0.0.1:9' });
    expect(r.code).toBe(69);
    expect(r.err).toMatch(/replay failed: RM_UNAVAILABLE: the JobHistory server is unreachable/);
  });

  it('windowOf reads --since and --from/--to', () => {
    expect(windowOf({ since: '2h' }, NOW)).toEqual({ fromMs: NOW - 7_200_000, toMs: NOW });
    expect(windowOf({}, NOW)).toEqual({ fromMs: NOW - 7 * 86_400_000, toMs: NOW });
    expect(windowOf({ from: String(NOW - 1000) }, NOW)).toEqual({ fromMs: NOW - 1000, toMs: NOW });
    expect(() => windowOf({ to: '2026-01-01' }, NOW)).toThrow(ValidationError);
  });
});
