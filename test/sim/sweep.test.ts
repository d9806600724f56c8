/**
 * `simulate --experiment NAME --sweep PARAM=a,b,c`: the parameter list is checked against the
 * experiment's parameters (usage errors, exit code 2, nothing run), and a real sweep writes one
 * row per value whose figures move as the model says they must.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT } from '../../src/cli/exit-codes';
import { main } from '../../src/cli/main';
import { runSweep } from '../../src/cli/simulate';
import { runPolicies } from '../../src/sim/driver';
import { experiment, experimentParameters } from '../../src/sim/experiments';
import { MB, type TraceJob } from '../../src/sim/model';
import { measuredEstimates } from '../../src/sim/policies';
import { headlineFigures, parseSweep, sweepCsv, type SweepFile } from '../../src/sim/sweep';

describe('parseSweep', () => {
  it('reads numbers for a numeric parameter and words for a choice, in the order given', () => {
    const n = parseSweep('rtmr-workload-2', 'deadlineScale=0.25, 0.5,1,2');
    expect(n.parameter.name).toBe('deadlineScale');
    expect(n.values).toEqual([0.25, 0.5, 1, 2]);
    const c = parseSweep('rtmr-workload-2', 'dcEstimates=local-mean,worst');
    expect(c.values).toEqual(['local-mean', 'worst']);
    expect(parseSweep('efh', 'aeThresholdSeconds=0,300').values).toEqual([0, 300]);
  });

  it.each([
    ['deadlineScale', /--sweep must be PARAM=a,b,c/],
    ['=1,2', /--sweep must be PARAM=a,b,c/],
    [
      'nope=1',
      /experiment rtmr-workload-2 has no parameter "nope"; its parameters:\n {2}deadlineScale \(number in \[0.01, 100\]; default 1\)/,
    ],
    ['deadlineScale=fast', /deadlineScale must be a number in \[0.01, 100\], got "fast"/],
    ['deadlineScale=0', /deadlineScale must be in \[0.01, 100\], got 0/],
    ['deadlineScale=1e999', /deadlineScale must be a number/],
    ['deadlineScale=1,,2', /none empty/],
    ['deadlineScale=1,1', /1 is given twice/],
    [
      'dcEstimates=best',
      /dcEstimates must be one of same, worst, local-worst, local-mean, measured, got "best"/,
    ],
    [`deadlineScale=${Array.from({ length: 41 }, (_, i) => i + 1).join(',')}`, /at most 40 values, got 41/],
  ])('refuses %s', (text, message) => {
    expect(() => parseSweep('rtmr-workload-2', text)).toThrow(message);
  });

  it('knows each experiment by its own parameters', () => {
    expect(() => parseSweep('locality', 'deadlineScale=1')).toThrow(
      /locality has no parameter "deadlineScale"/,
    );
    expect(() => parseSweep('nope', 'x=1')).toThrow(/unknown experiment "nope"/);
    for (const name of ['rtmr-workload-1', 'rtmr-workload-2', 'locality', 'efh']) {
      const e = experiment(name);
      // Built with no settings, every parameter is at its default.
      expect(e.settings).toEqual(
        Object.fromEntries(experimentParameters(name).map((p) => [p.name, p.default])),
      );
    }
  });

  it('builds experiments only with known parameters and valid values', () => {
    expect(() => experiment('efh', { deadlineScale: 1 })).toThrow(/efh has no parameter "deadlineScale"/);
    expect(() => experiment('efh', { mdCpuSeconds: -1 })).toThrow(/mdCpuSeconds must be in/);
    const e = experiment('rtmr-workload-2', { deadlineScale: 0.5, mapsScale: 2 });
    const base = experiment('rtmr-workload-2').jobs(1);
    const jobs = e.jobs(1);
    expect(jobs.map((j) => j.deadline)).toEqual(base.map((j) => (j.deadline as number) * 0.5));
    expect(jobs.map((j) => j.maps)).toEqual(base.map((j) => j.maps * 2));
    expect(jobs.map((j) => j.inputBytes)).toEqual(base.map((j) => j.inputBytes * 2));
  });
});

describe('simulate --sweep on the command line', () => {
  let err: string;
  let spy: jest.SpyInstance;
  beforeEach(() => {
    err = '';
    process.exitCode = undefined;
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      err += String(chunk);
      return true;
    });
  });
  afterEach(() => {
    spy.mockRestore();
    process.exitCode = undefined;
  });

  it.each([
    [['--experiment', 'rtmr-workload-2', '--sweep', 'bogus=1'], /has no parameter "bogus"/],
    [
      ['--experiment', 'locality', '--sweep', 'heartbeatSeconds=0'],
      /heartbeatSeconds must be in \[0.1, 60\], got 0/,
    ],
    [
      ['--cluster', 'c.yaml', '--trace', 't.jsonl', '--policies', 'rtmr', '--sweep', 'x=1'],
      /give --experiment NAME/,
    ],
  ])('exits with the usage code, naming the problem: %j', async (args, message) => {
    const out = mkdtempSync(join(tmpdir(), 'sweep-usage-'));
    try {
      await main(['node', 'yarn-sched-sidecar', 'simulate', ...args, '--out', out]);
      expect(process.exitCode).toBe(EXIT.usage);
      expect(err).toMatch(message);
      expect(existsSync(join(out, 'sweep.json'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('a small real sweep', () => {
  jest.setTimeout(120_000);
  let dir: string;
  let file: SweepFile;
  let files: string[];
  const lines: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sweep-'));
    const req = parseSweep('rtmr-workload-2', 'deadlineScale=0.05,1');
    // Progress bars to a sink: the log lines are what this test reads.
    const sink = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;
    ({ file, files } = await runSweep('rtmr-workload-2', req, [1], dir, (l) => lines.push(l), sink, {
      png: false,
    }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the summary, one CSV row per value, and the plot', () => {
    expect(files).toEqual([
      'sweep.json',
      'sweep.csv',
      'sweep-deadlineScale.vl.json',
      'sweep-deadlineScale.svg',
    ]);
    const json = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as SweepFile;
    expect(json.rows.map((r) => r.value)).toEqual([0.05, 1]);
    expect(json.rows.map((r) => r.settings.deadlineScale)).toEqual([0.05, 1]);
    const csv = readFileSync(join(dir, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(3);
    expect(csv[0]).toMatch(/^deadlineScale,accept ratio: dc,accept ratio: dc sd,/);
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['0.05', '1']);
    expect(sweepCsv(json)).toBe(readFileSync(join(dir, 'sweep.csv'), 'utf8'));
    // The paper's figures are in the plot as reference lines (Table VI: RTMR accepted 24.7%).
    expect(readFileSync(join(dir, 'sweep-deadlineScale.svg'), 'utf8')).toContain('paper rtmr: 24.7%');
    // Progress: which value of how many, then each seed.
    expect(lines.filter((l) => l.startsWith('sweep '))).toEqual([
      'sweep deadlineScale=0.05 (1/2) [..]',
      'sweep deadlineScale=1 (2/2) [#.]',
    ]);
  });

  it('moves the figures the way the model says: tight deadlines, fewer admitted; FIFO untouched', () => {
    const fig = (i: number, panel: string, series: string) =>
      file.rows[i]!.headline.find((h) => h.panel === panel && h.series === series)!.value as number;
    // At 5% of Table IV's deadlines (10-175 s) RTMR cannot promise a 100-map job; at 100% it admits most.
    expect(fig(0, 'accept ratio', 'rtmr')).toBeLessThan(0.3);
    expect(fig(1, 'accept ratio', 'rtmr')).toBeGreaterThan(0.9);
    // Whatever it admits meets its deadline.
    expect(fig(0, 'success ratio', 'rtmr')).toBe(1);
    expect(fig(1, 'success ratio', 'rtmr')).toBe(1);
    // FIFO ignores deadlines and its utilisation counts every job: the same run at both values.
    expect(fig(0, 'utilisation', 'fifo-all')).toBe(fig(1, 'utilisation', 'fifo-all'));
    // ... but far fewer of its jobs meet deadlines 20 times tighter.
    const fifo = (i: number) => file.rows[i]!.summary.policies['fifo-all']!.successRatio as number;
    expect(fifo(0)).toBeLessThan(fifo(1));
    // The headline figures are the summary's.
    expect(headlineFigures(experiment('rtmr-workload-2').headline, file.rows[1]!.summary.policies)).toEqual(
      file.rows[1]!.headline,
    );
  });
});

describe("the 'measured' estimate basis (c_m^max learned as in He et al., RTMR, IV.A)", () => {
  it('takes the largest time per MB of any finished task, per class, without floor or heartbeat', () => {
    const e = experiment('rtmr-workload-2');
    const jobs = e.jobs(1).slice(0, 2);
    const [a, b] = jobs as [TraceJob, TraceJob];
    const mbOf = (j: TraceJob) => j.inputBytes / j.maps / MB;
    const book = measuredEstimates(
      jobs,
      [
        { job: a.id, kind: 'map', index: 0, seconds: 10 },
        { job: b.id, kind: 'map', index: 0, seconds: 30 },
        { job: a.id, kind: 'reduce', index: 0, seconds: 4 },
        { job: 'not-in-the-workload', kind: 'map', index: 0, seconds: 1e6 },
      ],
      e.cluster,
    );
    expect(book.default.mapCostMax).toBeCloseTo(Math.max(10 / mbOf(a), 30 / mbOf(b)), 12);
    expect(book.default.reduceCostMax).toBeCloseTo(4 / ((0.1 * a.inputBytes) / MB / a.reduces), 12);
    expect(book.default.mapTaskSeconds).toBeUndefined();
    expect(Object.keys(book.classes)).toEqual(['cpu']);
  });

  it('on workload II: RTMR with the figures it would have learned admits at least as many jobs as with the worst case, and meets every deadline', () => {
    const e = experiment('rtmr-workload-2', { estimates: 'measured' });
    expect(e.estimateBasis).toBe('measured');
    const jobs = e.jobs(1);
    const rtmr = e.specs.filter((s) => s.label === 'rtmr');
    const [measured] = runPolicies({
      cluster: e.cluster,
      jobs,
      specs: rtmr,
      seed: 1,
      estimateModel: 'paper',
      estimateBasis: 'measured',
    });
    const [worst] = runPolicies({ cluster: e.cluster, jobs, specs: rtmr, seed: 1, estimateModel: 'paper' });
    // Smaller figures than the worst case (no heartbeat, maxima actually drawn): RTMR admits every job and still meets every deadline.
    expect(measured!.summary.accepted).toBeGreaterThanOrEqual(worst!.summary.accepted);
    expect(measured!.summary.successRatio).toBe(1);
  });
});
