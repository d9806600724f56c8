/**
 * Learning in the live sidecar: estimates that are never 0 s, learning that one tiny
 * job cannot poison, figures that come down again, and an operator's reset (the API route and
 * what it leaves in the ledger across a restart).
 */
import type { AddressInfo } from 'node:net';
import { createApiApp } from '../../src/api/app';
import { SidecarMetrics } from '../../src/metrics';
import { resetEstimates } from '../../src/cli/estimates';
import { silentLogger } from '../../src/log';
import { SqliteLedger } from '../../src/store/ledger';
import { learningSidecar } from './learning-harness';

const MB = 1024 * 1024;
const TOKEN = 'learning-test-token-0123456789';

function setup(ledger: SqliteLedger, admission: Record<string, unknown> = {}) {
  const s = learningSidecar(ledger, {
    admission: { profiles: { enabled: false }, ...admission },
    auth: { tokens: [{ name: 'ops', token: TOKEN }] },
  });
  const cpu = () => s.sidecar.cluster() as { admission: { estimates: { classes: Record<string, Est> } } };
  return { ...s, cpu };
}

interface Est {
  eta: number;
  mapCostMax: number;
  reduceCostMax: number;
  mapTaskSeconds?: number;
  reduceTaskSeconds?: number;
}

/** One map over 1 byte that took 1.7 s: the tiny job. */
const TINY = { maps: 1, inputBytes: 1 };
/**
 * A CPU job with real input: 8 maps of 128 MB, 0.5 s/MB + 5 s each = 69 s a map, a reduce of
 * 517 s, with the job's 10 s of set-up and 5 s of commit about 10 minutes to finish.
 */
const REPORT = { maps: 8, inputBytes: 1024 * MB, deadline: 700 };

describe('zero-input jobs', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  it('are estimated at their tasks’ floors and the job’s set-up and commit, never 0 s, and refused a deadline shorter than that', async () => {
    const s = setup(ledger);
    await s.sidecar.runOnce();
    // 4 maps and 1 reduce of no data: the AM's 10 s of set-up, 5 s of start-up for each task
    // (the maps side by side), 5 s of commit: 25 s.
    const tight = await s.submit({ maps: 4, inputBytes: 0, deadline: 20 });
    expect(tight.body).toMatchObject({ decision: 'rejected' });
    const ok = await s.submit({ maps: 4, inputBytes: 0, deadline: 60 });
    expect(ok.body).toMatchObject({ decision: 'admitted' });
    expect(Date.parse(ok.body.estimatedFinish as string) - s.now()).toBe(25_000);
  });

  it('without the time outside the tasks (setupSeconds and commitSeconds 0, amContainers 0) at the floors alone', async () => {
    const s = setup(ledger, {
      initialEstimates: { setupSeconds: 0, commitSeconds: 0 },
      amContainers: 0,
    });
    await s.sidecar.runOnce();
    const ok = await s.submit({ maps: 4, inputBytes: 0, deadline: 60 });
    expect(Date.parse(ok.body.estimatedFinish as string) - s.now()).toBe(10_000);
  });

  it('under the papers’ model (estimateModel paper) the same job is estimated at 0 s and admitted for 1 s', async () => {
    const s = setup(ledger, { estimateModel: 'paper' });
    await s.sidecar.runOnce();
    const res = await s.submit({ maps: 4, inputBytes: 0, deadline: 1 });
    expect(res.body).toMatchObject({ decision: 'admitted' });
    expect(Date.parse(res.body.estimatedFinish as string)).toBe(s.now());
  });
});

describe('figures learned under the other model', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  it('a class learned without a floor keeps the configured floor under floored; under paper no floor applies', async () => {
    // As a ledger written under the papers' model (or before there were floors) holds them.
    ledger.setValue('estimates', {
      default: { eta: 1, mapCostMax: 0.6, reduceCostMax: 0.5 },
      classes: { cpu: { eta: 1, mapCostMax: 0.8, reduceCostMax: 0.5 } },
    });
    const floored = setup(ledger);
    expect(floored.cpu().admission.estimates.classes.cpu).toEqual({
      eta: 1,
      mapCostMax: 0.8,
      reduceCostMax: 0.5,
      mapTaskSeconds: 5,
      reduceTaskSeconds: 5,
      setupSeconds: 10,
      commitSeconds: 5,
      amContainers: 1,
    });
    await floored.sidecar.runOnce();
    const zero = await floored.submit({ maps: 4, inputBytes: 0, deadline: 60 });
    // 10 s of set-up, 5 s a map and a reduce, 5 s of commit.
    expect(Date.parse(zero.body.estimatedFinish as string) - floored.now()).toBe(25_000);
    // The other way round: floored figures in the ledger, the papers' model configured.
    ledger.setValue('estimates', {
      classes: {
        cpu: { eta: 1, mapCostMax: 0.8, reduceCostMax: 0.5, mapTaskSeconds: 9, reduceTaskSeconds: 9 },
      },
    });
    const paper = setup(ledger, { estimateModel: 'paper' });
    expect(paper.cpu().admission.estimates.classes.cpu).toEqual({
      eta: 1,
      mapCostMax: 0.8,
      reduceCostMax: 0.5,
    });
  });
});

describe('learning: one tiny job', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  it('inputBytes 1 leaves the cpu map cost at 0.5 s/MB and moves the floor by at most 2x; later jobs are admitted', async () => {
    const s = setup(ledger);
    await s.sidecar.runOnce();
    await s.runJob(TINY, [1.7], [1.7]);
    // The 1 byte map's 1.7 s is start-up, below the 5 s floor: nothing rises.
    expect(s.cpu().admission.estimates.classes.cpu).toMatchObject({
      mapCostMax: 0.5,
      mapTaskSeconds: 5,
      reduceCostMax: 0.5,
    });
    // A tiny job 100x slower than the floor raises it 2x (maxGrowthPerJob), the cost per MB not at all.
    await s.runJob(TINY, [500], [1]);
    expect(s.cpu().admission.estimates.classes.cpu).toMatchObject({ mapCostMax: 0.5, mapTaskSeconds: 10 });
    expect((await s.submit(REPORT)).body).toMatchObject({ decision: 'admitted', workloadClass: 'cpu' });
  });

  it('under the papers’ model it sets 1.7e6 s/MB and refuses every later job of the class; a reset (API, CLI) brings it back, across a restart', async () => {
    const s = setup(ledger, { estimateModel: 'paper' });
    await s.sidecar.runOnce();
    await s.runJob(TINY, [1.7], [1.7]);
    const poisoned = s.cpu().admission.estimates.classes.cpu!;
    expect(poisoned.mapCostMax).toBeCloseTo(1.7 * MB, 0);
    expect((await s.submit(REPORT)).body).toMatchObject({ decision: 'rejected' });

    // The reset through the real API, as `yarn-sched-sidecar estimates reset cpu` sends it.
    const app = createApiApp({
      service: s.sidecar,
      metrics: new SidecarMetrics(),
      logger: silentLogger(),
      tokens: [{ name: 'ops', token: TOKEN }],
      protectReads: false,
      maxBodyBytes: 1 << 20,
      now: s.now,
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const denied = await resetEstimates({ url, token: 'wrong-token-0123456789', workloadClass: 'cpu' });
      expect(denied.status).toBe(401);
      const bad = await fetch(`${url}/api/v1/estimates/Not%20A%20Class/reset`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(bad.status).toBe(400);
      const res = await resetEstimates({ url, token: TOKEN, workloadClass: 'cpu' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        workloadClass: 'cpu',
        hadLearned: true,
        before: { mapSecondsPerMb: poisoned.mapCostMax },
        after: {
          eta: 1,
          mapSecondsPerMb: 0.5,
          reduceSecondsPerMb: 0.5,
          mapTaskSeconds: 0,
          reduceTaskSeconds: 0,
        },
      });
      // Again: nothing left to forget.
      expect((await resetEstimates({ url, token: TOKEN, workloadClass: 'cpu' })).body).toMatchObject({
        hadLearned: false,
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
    expect(s.cpu().admission.estimates.classes.cpu).toBeUndefined();
    expect((await s.submit(REPORT)).body).toMatchObject({ decision: 'admitted' });
    // The ledger holds the reset: a restarted sidecar judges cpu with the configured figures,
    // and knows who reset it.
    expect(ledger.getValue<{ classes: object }>('estimates')!.classes).toEqual({});
    expect(ledger.getValue<Array<{ workloadClass: string; by: string }>>('estimates-resets')).toMatchObject([
      { workloadClass: 'cpu', by: 'ops' },
      { workloadClass: 'cpu', by: 'ops' },
    ]);
    const restarted = setup(ledger, { estimateModel: 'paper' });
    expect(restarted.cpu().admission.estimates.classes.cpu).toBeUndefined();
  });
});

describe('learning that comes down again (decay)', () => {
  let ledger: SqliteLedger;
  beforeEach(() => (ledger = SqliteLedger.open(':memory:')));
  afterEach(() => ledger.close());

  it('a slow job raises the cpu map cost at most 2x; once 3 later jobs ran within it (windowJobs 3) it is back at 0.5, across a restart', async () => {
    const admission = { learning: { windowJobs: 3 } };
    const s = setup(ledger, admission);
    await s.sidecar.runOnce();
    const JOB = { maps: 2, inputBytes: 256 * MB };
    const mapCost = () => s.cpu().admission.estimates.classes.cpu!.mapCostMax;
    // 128 MB maps that took 1000 s: (1000 - 5) / 128 = 7.8 s/MB seen, 2 x 0.5 = 1 s/MB learned.
    await s.runJob(JOB, [1000, 1000], [10]);
    expect(mapCost()).toBe(1);
    const seen: number[] = [];
    // Three jobs at 40 s a map: (40 - 5) / 128 = 0.27 s/MB, below the configured 0.5.
    for (let i = 0; i < 3; i++) {
      await s.runJob(JOB, [40, 40], [10]);
      seen.push(mapCost());
    }
    expect(seen).toEqual([1, 1, 0.5]);
    const restarted = setup(ledger, admission);
    expect(restarted.cpu().admission.estimates.classes.cpu!.mapCostMax).toBe(0.5);
  });
});
