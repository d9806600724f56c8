/**
 * The observed distribution of task unit costs beside the learned worst case: a sidecar learns
 * from finished jobs' JobHistory task reports, keeps every unit cost in the bounded sketch,
 * persists it in the ledger, serves it at GET /api/v1/estimates and as Prometheus metrics,
 * and a restarted sidecar on the same ledger shows the same figures.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createApiApp } from '../../src/api/app';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import type { EstimatesView } from '../../src/model/job-views';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { FakeRm } from './fake-rm';
import { FakeJobHistory } from './fake-jobhistory';
import { SLEEP_AM } from '../yarn-submission';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;
const ALPHA = 0.01;

function sidecarOn(
  ledger: SqliteLedger,
  rm: FakeRm,
  jhs: FakeJobHistory,
  metrics = new SidecarMetrics(),
  logger: winston.Logger = silentLogger(),
  recentCostClasses?: number,
) {
  let now = T0;
  let n = 0;
  const sidecar = new Sidecar({
    config: buildConfig({
      // The papers' estimate model: every task's seconds per MB is what learning reads.
      admission: {
        estimateModel: 'paper',
        initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 },
      },
    }),
    rm: rm.api(),
    jobHistory: jhs.client(),
    ledger,
    registry: defaultRegistry(),
    metrics,
    logger,
    now: () => now,
    newId: () => `dl-${ledger.listJobs({}).total + ++n}`,
    ...(recentCostClasses === undefined ? {} : { recentCostClasses }),
  });
  const submit = (body: Record<string, unknown>) =>
    sidecar.submit(
      parseSubmission({ name: 'report', user: 'alice', yarnSubmission: SLEEP_AM, reduces: 1, ...body }, now),
      {
        submitter: 'ci',
        requestHash: JSON.stringify(body),
      },
    );
  return { sidecar, metrics, submit, advance: (s: number) => (now += s * 1000) };
}

/** Submit a job, let it run and finish on the fake RM with the given task times. */
async function runJob(
  s: ReturnType<typeof sidecarOn>,
  rm: FakeRm,
  jhs: FakeJobHistory,
  ledger: SqliteLedger,
  job: {
    maps: number;
    inputMb: number;
    mapSeconds: number[];
    reduceSeconds: number[];
    workloadClass?: string;
  },
): Promise<void> {
  const res = await s.submit({
    deadline: 3600,
    maps: job.maps,
    inputBytes: job.inputMb * MB,
    ...(job.workloadClass === undefined ? {} : { workloadClass: job.workloadClass }),
  });
  expect(res.status).toBe(201);
  await s.sidecar.runOnce();
  const appId = ledger.getJob((res.body as { id: string }).id)!.appId!;
  jhs.report(appId, job.mapSeconds, job.reduceSeconds);
  rm.run(appId);
  s.advance(60);
  await s.sidecar.runOnce();
  rm.finish(appId, T0 + 300_000);
  s.advance(300);
  await s.sidecar.runOnce();
}

/** One class's figures in the view; jobs without a workloadClass are of their job type, cpu. */
function cls(view: EstimatesView, name = 'cpu') {
  const c = view.classes.find((x) => x.workloadClass === name);
  if (!c) throw new Error(`no class ${name} in ${view.classes.map((x) => x.workloadClass).join(', ')}`);
  return c;
}

const within = (got: number | null, want: number) => {
  expect(got).not.toBeNull();
  expect(Math.abs(got! - want) / want).toBeLessThanOrEqual(ALPHA + 1e-12);
};

/**
 * Job A: 8 maps of 128 MB taking 6.4 s (x4), 12.8 s (x2), 19.2 s, 25.6 s: unit costs 0.05 (x4),
 * 0.1 (x2), 0.15, 0.2 s/MB; one reduce of 1024 MB (eta 1) taking 153.6 s: 0.15 s/MB.
 */
const JOB_A = {
  maps: 8,
  inputMb: 1024,
  mapSeconds: [6.4, 6.4, 6.4, 6.4, 12.8, 12.8, 19.2, 25.6],
  reduceSeconds: [153.6],
};

describe('the observed task costs of a live sidecar', () => {
  let ledger: SqliteLedger;
  let rm: FakeRm;
  let jhs: FakeJobHistory;
  beforeEach(() => {
    ledger = SqliteLedger.open(':memory:');
    rm = new FakeRm();
    jhs = new FakeJobHistory(T0);
  });
  afterEach(() => ledger.close());

  it('is empty before any job finished, beside the configured worst case', async () => {
    const { sidecar } = sidecarOn(ledger, rm, jhs);
    const view = sidecar.taskCosts();
    expect(view).toMatchObject({ scope: 'class', jobs: 0, mostObserved: null, quantileRelativeError: ALPHA });
    // Only the default is listed before any class has figures or observations of its own.
    expect(view.classes.map((c) => [c.workloadClass, c.ownFigures, c.eta, c.jobs])).toEqual([
      ['*', true, 1, 0],
    ]);
    expect(cls(view, '*').map).toEqual({
      learnedWorstCase: 0.1,
      observed: {
        count: 0,
        min: null,
        max: null,
        mean: null,
        p50: null,
        p90: null,
        p99: null,
        zeros: 0,
        histogram: [],
      },
      worstCaseOverP50: null,
      observedMaxOverP50: null,
    });
  });

  it('holds every unit cost learning saw, and shows how far the learned worst case sits above the median', async () => {
    const s = sidecarOn(ledger, rm, jhs);
    await s.sidecar.runOnce();
    await runJob(s, rm, jhs, ledger, JOB_A);
    expect(jhs.reads).toBe(1);
    const view = s.sidecar.taskCosts();
    expect(view.jobs).toBe(1);
    expect(view.mostObserved).toBe('cpu');
    expect(cls(view).jobs).toBe(1);
    // The other classes saw none of it.
    expect(cls(view, '*').map.observed.count).toBe(0);
    // Learned upward: c_m^max 0.1 -> 0.2, c_r^max 0.1 -> 0.15.
    expect(cls(view).map.learnedWorstCase).toBeCloseTo(0.2, 12);
    expect(cls(view).reduce.learnedWorstCase).toBeCloseTo(0.15, 12);
    const m = cls(view).map.observed;
    expect(m.count).toBe(8);
    expect(m.min).toBeCloseTo(0.05, 12);
    expect(m.max).toBeCloseTo(0.2, 12);
    expect(m.mean).toBeCloseTo((4 * 0.05 + 2 * 0.1 + 0.15 + 0.2) / 8, 12);
    within(m.p50, 0.05); // the 4th of 8
    within(m.p90, 0.2); // the 8th
    within(m.p99, 0.2);
    // The worst case admission plans with is about four median maps.
    expect(cls(view).map.worstCaseOverP50).toBeCloseTo(cls(view).map.learnedWorstCase / m.p50!, 12);
    within(cls(view).map.worstCaseOverP50, 4);
    expect(cls(view).map.observedMaxOverP50).toBeCloseTo(m.max! / m.p50!, 12);
    expect(m.histogram.reduce((n, b) => n + b.count, 0)).toBe(8);
    expect(m.histogram.length).toBeLessThanOrEqual(24);
    // The learned worst case is the observed maximum here (it only grows from 0.1).
    expect(cls(view).map.learnedWorstCase).toBe(m.max);
    expect(cls(view).reduce.observed).toMatchObject({ count: 1, zeros: 0 });
    expect(cls(view).reduce.observed.max).toBeCloseTo(0.15, 12);
    expect(cls(view).reduce.worstCaseOverP50).toBe(1);
  });

  it('serves the same figures at GET /api/v1/estimates and as Prometheus metrics', async () => {
    const s = sidecarOn(ledger, rm, jhs);
    await s.sidecar.runOnce();
    await runJob(s, rm, jhs, ledger, JOB_A);
    const app = createApiApp({
      service: s.sidecar,
      metrics: s.metrics,
      logger: silentLogger(),
      tokens: [],
      protectReads: false,
      maxBodyBytes: 1024 * 1024,
      now: () => T0,
    });
    const server: Server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const body = (await (await fetch(`${base}/api/v1/estimates`)).json()) as EstimatesView;
      expect(body).toEqual(JSON.parse(JSON.stringify(s.sidecar.taskCosts())));
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).toContain('# TYPE yss_task_unit_cost_seconds histogram');
      expect(text).toContain(
        'yss_task_unit_cost_seconds_count{stage="map",class="cpu",unit="per_megabyte"} 8',
      );
      expect(text).toContain(
        'yss_task_unit_cost_seconds_count{stage="reduce",class="cpu",unit="per_megabyte"} 1',
      );
      // Four maps at 0.05 s/MB and none cheaper: the 0.05 bucket holds exactly four.
      expect(text).toContain(
        'yss_task_unit_cost_seconds_bucket{le="0.025",stage="map",class="cpu",unit="per_megabyte"} 0',
      );
      expect(text).toContain(
        'yss_task_unit_cost_seconds_bucket{le="0.05",stage="map",class="cpu",unit="per_megabyte"} 4',
      );
      expect(text).toContain(
        'yss_task_unit_cost_seconds_bucket{le="0.25",stage="map",class="cpu",unit="per_megabyte"} 8',
      );
      expect(text).toMatch(
        /yss_learned_unit_cost_seconds\{stage="map",class="cpu",unit="per_megabyte"\} 0\.2\b/,
      );
      expect(text).toMatch(
        /yss_learned_unit_cost_seconds\{stage="reduce",class="cpu",unit="per_megabyte"\} 0\.15\b/,
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('keeps the distribution across a restart, and adds the next job to it', async () => {
    const first = sidecarOn(ledger, rm, jhs);
    await first.sidecar.runOnce();
    await runJob(first, rm, jhs, ledger, JOB_A);
    const before = first.sidecar.taskCosts();

    const second = sidecarOn(ledger, rm, jhs);
    expect(second.sidecar.taskCosts()).toEqual(before);
    // The learned gauge is published at start, before any job of this process ended.
    expect(
      (await second.metrics.learnedUnitCost.get()).values.find(
        (v) => v.labels.stage === 'map' && v.labels.class === 'cpu',
      )?.value,
    ).toBe(cls(before).map.learnedWorstCase);

    await second.sidecar.runOnce();
    // Job B: 4 maps of 64 MB taking 3.2 s each (0.05 s/MB), one reduce of 256 MB in 12.8 s (0.05 s/MB).
    await runJob(second, rm, jhs, ledger, {
      maps: 4,
      inputMb: 256,
      mapSeconds: [3.2, 3.2, 3.2, 3.2],
      reduceSeconds: [12.8],
    });
    const after = second.sidecar.taskCosts();
    expect(after.jobs).toBe(2);
    expect(cls(after).map.observed.count).toBe(12);
    within(cls(after).map.observed.p50, 0.05); // the 6th of 12: eight values of 0.05 now
    expect(cls(after).map.observed.max).toBe(cls(before).map.observed.max);
    expect(cls(after).reduce.observed.count).toBe(2);
    expect(cls(after).reduce.observed.min).toBeCloseTo(0.05, 12);
    // Learned estimates never shrink: the cheaper job left them where they were.
    expect(cls(after).map.learnedWorstCase).toBe(cls(before).map.learnedWorstCase);
  });

  it('starts a new distribution, and says so, when the stored one cannot be read', async () => {
    ledger.setValue('observedCosts', { jobs: 3, map: { count: 'many' }, reduce: null });
    const records: Array<Record<string, unknown>> = [];
    const logger = winston.createLogger({
      format: winston.format.json(),
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk: Buffer, _enc, done) {
              records.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
              done();
            },
          }),
        }),
      ],
    });
    const { sidecar } = sidecarOn(ledger, rm, jhs, new SidecarMetrics(), logger);
    expect(records).toEqual([
      expect.objectContaining({
        level: 'warn',
        component: 'sidecar',
        message: 'the saved task cost distribution is unreadable; starting a new one',
        error: expect.arrayContaining([expect.objectContaining({ path: 'observedCosts.map.count' })]),
      }),
    ]);
    expect(sidecar.taskCosts().jobs).toBe(0);
    expect(sidecar.taskCosts().classes.map((c) => [c.workloadClass, c.map.observed.count])).toEqual([
      ['*', 0],
    ]);
  });

  it('observes nothing for a job whose history cannot be read', async () => {
    const s = sidecarOn(ledger, rm, jhs);
    await s.sidecar.runOnce();
    const res = await s.submit({ deadline: 3600, maps: 2, inputBytes: 256 * MB });
    await s.sidecar.runOnce();
    const appId = ledger.getJob((res.body as { id: string }).id)!.appId!;
    rm.finish(appId, T0 + 100_000);
    await s.sidecar.runOnce();
    expect(jhs.reads).toBe(1);
    expect(s.sidecar.taskCosts().jobs).toBe(0);
    expect(s.sidecar.taskCosts().classes.map((c) => [c.workloadClass, c.map.observed.count])).toEqual([
      ['*', 0],
    ]);
    expect(ledger.getJob((res.body as { id: string }).id)!.state).toBe('finished');
  });
});

/** Job E, class etl: 2 maps of 64 MB taking 64 s each (1 s/MB), one reduce of 128 MB in 64 s (0.5 s/MB). */
const JOB_E = { maps: 2, inputMb: 128, mapSeconds: [64, 64], reduceSeconds: [64], workloadClass: 'etl' };

describe('task costs per workload class', () => {
  let ledger: SqliteLedger;
  let rm: FakeRm;
  let jhs: FakeJobHistory;
  beforeEach(() => {
    ledger = SqliteLedger.open(':memory:');
    rm = new FakeRm();
    jhs = new FakeJobHistory(T0);
  });
  afterEach(() => ledger.close());

  async function gaugeOf(metrics: SidecarMetrics): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const v of (await metrics.learnedUnitCost.get()).values)
      out[`${String(v.labels.class)}/${String(v.labels.stage)}`] = v.value;
    return out;
  }
  async function countsOf(metrics: SidecarMetrics): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const v of (await metrics.taskUnitCost.get()).values)
      if (v.metricName === 'yss_task_unit_cost_seconds_count')
        out[`${String(v.labels.class)}/${String(v.labels.stage)}`] = v.value;
    return out;
  }

  it('each class keeps its own distribution beside its own worst case', async () => {
    const s = sidecarOn(ledger, rm, jhs);
    await s.sidecar.runOnce();
    await runJob(s, rm, jhs, ledger, JOB_A);
    await runJob(s, rm, jhs, ledger, JOB_E);
    await runJob(s, rm, jhs, ledger, { ...JOB_E, mapSeconds: [32, 32], reduceSeconds: [32] });
    const view = s.sidecar.taskCosts();
    expect(view.jobs).toBe(3);
    // etl: 2 jobs, cpu: 1.
    expect(view.mostObserved).toBe('etl');
    expect(view.classes.map((c) => [c.workloadClass, c.ownFigures, c.jobs])).toEqual([
      ['*', true, 0],
      ['cpu', true, 1],
      ['etl', true, 2],
    ]);
    const etl = cls(view, 'etl');
    expect(etl.map.observed).toMatchObject({ count: 4, min: 0.5, max: 1 });
    expect(etl.reduce.observed).toMatchObject({ count: 2, min: 0.25, max: 0.5 });
    // Its worst case is its own (1 s/MB), not cpu's 0.2, and the mark is drawn on its axis.
    expect(etl.map.learnedWorstCase).toBe(1);
    expect(etl.mapSecondsPerMb).toBe(1);
    expect(etl.reduce.learnedWorstCase).toBe(0.5);
    expect(cls(view).map.learnedWorstCase).toBeCloseTo(0.2, 12);
    expect(cls(view).map.observed.count).toBe(8);
    // The default learned nothing and holds no task.
    expect(cls(view, '*').map).toMatchObject({ learnedWorstCase: 0.1, observed: { count: 0 } });
    // The metrics carry the same split, one series per stage and class.
    expect(await countsOf(s.metrics)).toEqual({
      'cpu/map': 8,
      'cpu/reduce': 1,
      'etl/map': 4,
      'etl/reduce': 2,
    });
    const gauge = await gaugeOf(s.metrics);
    expect(gauge['etl/map']).toBe(1);
    expect(gauge['etl/reduce']).toBe(0.5);
    expect(gauge['cpu/map']).toBeCloseTo(0.2, 12);
    // Pinned classes are published even before they ran: with the figures that would judge them.
    expect(gauge['*/map']).toBe(0.1);
    expect(gauge['gpu/map']).toBe(0.1);
    expect(Object.keys(gauge).sort()).toEqual(
      ['*', 'adaptive', 'cpu', 'etl', 'gpu'].flatMap((c) => [`${c}/map`, `${c}/reduce`]),
    );
  });

  it('keeps the pinned classes and the most recent others: a dropped class leaves the view and the metrics', async () => {
    // One unconfigured class kept besides the pinned ones (*, cpu, gpu, adaptive).
    const s = sidecarOn(ledger, rm, jhs, new SidecarMetrics(), silentLogger(), 1);
    await s.sidecar.runOnce();
    await runJob(s, rm, jhs, ledger, JOB_A);
    await runJob(s, rm, jhs, ledger, JOB_E);
    await runJob(s, rm, jhs, ledger, { ...JOB_E, workloadClass: 'ml' });
    const view = s.sidecar.taskCosts();
    expect(view.jobs).toBe(3);
    const kept = Object.fromEntries(view.classes.map((c) => [c.workloadClass, c.jobs]));
    // etl's learned figures stay in the book (it is listed), its distribution is gone.
    expect(kept).toEqual({ '*': 0, cpu: 1, etl: 0, ml: 1 });
    expect(cls(view, 'etl').mapSecondsPerMb).toBe(1);
    expect(await countsOf(s.metrics)).toEqual({ 'cpu/map': 8, 'cpu/reduce': 1, 'ml/map': 2, 'ml/reduce': 1 });
    expect(Object.keys(await gaugeOf(s.metrics)).filter((k) => k.startsWith('etl/'))).toEqual([]);
    // The ledger holds the bounded set, and a restart reads it back as it was.
    const stored = ledger.getValue<{ classes: Record<string, unknown> }>('observedCosts')!;
    expect(Object.keys(stored.classes).sort()).toEqual(['cpu', 'ml']);
    expect(sidecarOn(ledger, rm, jhs, new SidecarMetrics(), silentLogger(), 1).sidecar.taskCosts()).toEqual(
      view,
    );
    // Restarted with a smaller cap, the unconfigured class is dropped at load.
    const smaller = sidecarOn(ledger, rm, jhs, new SidecarMetrics(), silentLogger(), 0).sidecar.taskCosts();
    expect(cls(smaller, 'ml').jobs).toBe(0);
    expect(cls(smaller).jobs).toBe(1);
  });

  it('an old ledger’s single cluster-wide distribution loads as the default class *', async () => {
    // What a sidecar stored before there were classes: one distribution, one learned triple.
    const first = sidecarOn(ledger, rm, jhs);
    await first.sidecar.runOnce();
    await runJob(first, rm, jhs, ledger, JOB_A);
    const perClass = ledger.getValue<{ classes: Record<string, Record<string, unknown>> }>('observedCosts')!;
    const { lastJob: _last, ...old } = perClass.classes.cpu!;
    ledger.setValue('observedCosts', old);
    ledger.setValue('estimates', { eta: 1, mapCostMax: 0.2, reduceCostMax: 0.15 });

    const s = sidecarOn(ledger, rm, jhs);
    const view = s.sidecar.taskCosts();
    expect(view.jobs).toBe(1);
    expect(view.mostObserved).toBe('*');
    const def = cls(view, '*');
    // Beside the old learned figures, which load as the default too.
    expect(def).toMatchObject({ jobs: 1, mapSecondsPerMb: 0.2, reduceSecondsPerMb: 0.15 });
    expect(def.map).toEqual(cls(first.sidecar.taskCosts()).map);
    expect(def.reduce).toEqual(cls(first.sidecar.taskCosts()).reduce);
    // The next job adds to its own class; the migrated one is left as it was.
    await s.sidecar.runOnce();
    await runJob(s, rm, jhs, ledger, JOB_E);
    const after = s.sidecar.taskCosts();
    expect(after.jobs).toBe(2);
    expect(cls(after, '*').map).toEqual(def.map);
    expect(cls(after, 'etl').jobs).toBe(1);
    expect(
      ledger.getValue<{ jobs: number; classes: Record<string, { lastJob: number }> }>('observedCosts'),
    ).toMatchObject({
      jobs: 2,
      classes: { '*': { lastJob: 1 }, etl: { lastJob: 2 } },
    });
  });
});
