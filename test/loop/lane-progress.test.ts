/**
 * How a rebuilt lane takes its running jobs' task progress, against the in-memory RM: the
 * figures by hand, and every way the AM read can fail leaving the job whole, logged once per
 * job, with the rest of the cycle carried out.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { RmHttpError } from '../../src/errors/rm-http';
import { RmTimeoutError } from '../../src/errors/rm-timeout';
import { startFixtureServer } from '../fixture-server/server';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import type { TaskReport } from '../../src/yarn/model';
import { HttpTransport } from '../../src/yarn/transport';
import { FakeRm } from './fake-rm';
import { capturingLogger } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';

/** No per-task floor (docs/estimates.md): the figures here are worked out in seconds per MB alone. */
// The papers' arithmetic: no per-task floor, no time outside the tasks (amContainers 0 beside it).
const NO_FLOOR = { mapTaskSeconds: 0, reduceTaskSeconds: 0, setupSeconds: 0, commitSeconds: 0 };

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;
// 8 maps over 1024 MB at 0.1 s/MB: eps^m = 12.8 s; one reduce over 1024 MB: eps^r = 102.4 s.
const WHOLE = 8 * 12.8 + 102.4;
const UNAVAILABLE = 'task progress unavailable; the job counts whole';

interface LaneView {
  queue: string;
  label: string;
  containers: number;
  committedSlotSeconds: number | null;
  lastRebuild: { jobs: number; fromProgress: number; remainingSlotSeconds: number; wholeSlotSeconds: number };
}

const task = (
  type: 'm' | 'r',
  i: number,
  state: 'SUCCEEDED' | 'RUNNING' | 'SCHEDULED',
  startTime: number,
): TaskReport => ({
  id: `task_1_0001_${type}_${String(i).padStart(6, '0')}`,
  type: type === 'm' ? 'MAP' : 'REDUCE',
  state,
  startTime,
  finishTime: state === 'SUCCEEDED' ? startTime + 10_000 : 0,
  elapsedTime: 0,
  progress: state === 'SUCCEEDED' ? 100 : 0,
  successfulAttempt: '',
});

/** One admitted job running on the RM at T0 + 30 s, and a restart on its ledger. */
async function runningJob(policy = 'rtmr') {
  let now = T0;
  const config = buildConfig({
    admission: {
      policy,
      initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1, ...NO_FLOOR },
      amContainers: 0,
      profiles: { enabled: false },
    },
  });
  const rm = new FakeRm();
  const ledger = SqliteLedger.open(':memory:', { clock: () => now });
  const make = (reader?: (appId: string) => Promise<readonly TaskReport[]>) => {
    const { logger, records } = capturingLogger('info');
    const metrics = new SidecarMetrics();
    const sidecar = new Sidecar({
      config,
      rm: rm.api(),
      ledger,
      ...(reader ? { runningAppTasks: reader } : {}),
      registry: defaultRegistry(),
      metrics,
      logger,
      now: () => now,
      newId: () => 'dl-1',
    });
    const lane = (): LaneView =>
      (sidecar.cluster() as { admission: { lanes: LaneView[] } }).admission.lanes.find(
        (l) => l.queue === 'realtime' && l.label === '',
      )!;
    return { sidecar, records, lane, metrics };
  };
  const first = make();
  await first.sidecar.runOnce();
  await first.sidecar.submit(
    parseSubmission(
      {
        name: 'r',
        user: 'alice',
        yarnSubmission: SLEEP_AM,
        maps: 8,
        reduces: 1,
        inputBytes: 1024 * MB,
        deadline: 600,
      },
      now,
    ),
    { submitter: 'ci', requestHash: 'x' },
  );
  await first.sidecar.runOnceSettled();
  const appId = ledger.getJob('dl-1')!.appId!;
  rm.run(appId);
  now += 30_000;
  await first.sidecar.runOnce();
  expect(ledger.getJob('dl-1')!.state).toBe('running');
  const advanceTo = (ms: number) => {
    now = ms;
  };
  return { rm, appId, make, now: () => now, advanceTo, ledger };
}

describe('a rebuilt lane and its running jobs’ task progress', () => {
  it('counts what is left by hand: 3 maps done, 2 running for 5 s and 20 s, 3 maps and the reduce pending', async () => {
    const { appId, make, now } = await runningJob();
    const asked: string[] = [];
    const restarted = make(async (id) => {
      asked.push(id);
      const t = now();
      return [
        task('m', 0, 'SUCCEEDED', T0 + 1000),
        task('m', 1, 'SUCCEEDED', T0 + 1000),
        task('m', 2, 'SUCCEEDED', T0 + 2000),
        task('m', 3, 'RUNNING', t - 5000),
        task('m', 4, 'RUNNING', t - 20_000),
        task('m', 5, 'SCHEDULED', -1),
        task('m', 6, 'SCHEDULED', -1),
        task('m', 7, 'SCHEDULED', -1),
        task('r', 0, 'SCHEDULED', -1),
      ];
    });
    // At start, from the saved capacity: the whole job.
    expect(restarted.lane().lastRebuild).toMatchObject({
      jobs: 1,
      fromProgress: 0,
      remainingSlotSeconds: WHOLE,
    });
    await restarted.sidecar.runOnce();
    expect(asked).toEqual([appId]);
    // 0 for the finished maps; 12.8 - 5 = 7.8 for one running map, and for the other, past its
    // estimate, up to twice it (runningTaskEnd): 25.6 - 20 = 5.6; 3 · 12.8 = 38.4 for the
    // pending maps; 102.4 for the reduce.
    const rest = 7.8 + 5.6 + 38.4 + 102.4;
    expect(restarted.lane().lastRebuild).toMatchObject({ jobs: 1, fromProgress: 1, wholeSlotSeconds: WHOLE });
    expect(restarted.lane().lastRebuild.remainingSlotSeconds).toBeCloseTo(rest, 4);
    expect(restarted.lane().committedSlotSeconds).toBeCloseTo(rest, 4);
    expect(restarted.records.filter((r) => r.message === UNAVAILABLE)).toEqual([]);
    // Nothing marks the lane again: no AM is read on the next cycle.
    await restarted.sidecar.runOnce();
    expect(asked).toHaveLength(1);
  });

  it('a running job past its estimated finish (plus DeltaT) has its lane rebuilt from task progress, once, its overrunning reduce holding its slot', async () => {
    const { appId, make, now, advanceTo, ledger } = await runningJob();
    const estimated = ledger.getJob('dl-1')!.estimatedFinishMs!;
    const asked: number[] = [];
    // Every map done; the reduce running since 10 s after the start.
    const reduceStart = T0 + 10_000;
    const restarted = make(async () => {
      asked.push(now());
      return [
        ...Array.from({ length: 8 }, (_, i) => task('m', i, 'SUCCEEDED', T0 + 1000)),
        task('r', 0, 'RUNNING', reduceStart),
      ];
    });
    await restarted.sidecar.runOnce();
    await restarted.sidecar.runOnce();
    expect(asked).toHaveLength(1); // the read after the restart, no other
    const OVERRUN = 'admitted job overran its estimate; its lane is rebuilt from task progress';
    // Within DeltaT (30 s) of the estimate: nothing.
    advanceTo(estimated + 30_000);
    await restarted.sidecar.runOnce();
    expect(asked).toHaveLength(1);
    // Past it: read and rebuilt; the reduce has run past its 102.4 s estimate, so it holds its
    // slot until twice that from its start (runningTaskEnd), not a second less.
    advanceTo(estimated + 31_000);
    await restarted.sidecar.runOnce();
    expect(asked).toHaveLength(2);
    const elapsed = (now() - reduceStart) / 1000;
    expect(elapsed).toBeGreaterThan(102.4);
    expect(elapsed).toBeLessThan(204.8);
    expect(restarted.lane().lastRebuild).toMatchObject({ jobs: 1, fromProgress: 1 });
    expect(restarted.lane().lastRebuild.remainingSlotSeconds).toBeCloseTo(204.8 - elapsed, 6);
    const warned = restarted.records.filter((r) => r.message === OVERRUN);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ job: 'dl-1', app: appId, overSeconds: 31 });
    // Once per job: the next cycles read nothing more.
    advanceTo(estimated + 60_000);
    await restarted.sidecar.runOnce();
    expect(asked).toHaveLength(2);
  });

  it.each(['json', 'xml'] as const)(
    'reads Hadoop’s AM sample through the proxy (%s): one map done, the reduce running since 2012',
    async (format) => {
      const { appId, make } = await runningJob();
      const server = await startFixtureServer();
      try {
        const transport = new HttpTransport({ urls: [server.url], format, maxAttempts: 1 });
        const restarted = make((id) => JobHistoryClient.forRunningApp(transport, id).tasksOfApp(id));
        await restarted.sidecar.runOnce();
        expect(server.requests.at(-1)!.path).toBe(
          `/proxy/${appId}/ws/v1/mapreduce/jobs/${appId.replace('application_', 'job_')}/tasks`,
        );
        // am-job-tasks.response: the map SUCCEEDED; the reduce RUNNING since 1326238777460 has
        // long outrun twice its 102.4 s estimate: one more estimate from now (runningTaskEnd).
        // The other 7 maps are pending: 7 · 12.8.
        expect(restarted.lane().lastRebuild).toMatchObject({ jobs: 1, fromProgress: 1 });
        expect(restarted.lane().lastRebuild.remainingSlotSeconds).toBeCloseTo(7 * 12.8 + 102.4, 6);
      } finally {
        await server.close();
      }
    },
  );

  it.each([
    [
      'a 404 from the proxy',
      new RmHttpError({ status: 404, text: 'Not Found', url: 'u' }),
      'RM_HTTP_ERROR: RM answered 404: Not Found',
    ],
    [
      'the proxy’s redirect once the app has ended',
      new RmHttpError({ status: 302, text: '<html>Moved</html>', url: 'u' }),
      'RM_HTTP_ERROR: RM answered 302: <html>Moved</html>',
    ],
    [
      'a timeout',
      new RmTimeoutError({ url: 'u', method: 'GET', timeoutMs: 3000 }),
      'RM_TIMEOUT: RM did not answer GET u within 3000 ms',
    ],
  ])(
    '%s leaves the job whole, is logged once per job, and the cycle goes on',
    async (_name, error, reason) => {
      const { rm, appId, make } = await runningJob();
      let calls = 0;
      const restarted = make(async () => {
        calls++;
        throw error;
      });
      await restarted.sidecar.runOnce();
      expect(calls).toBe(1);
      expect(restarted.lane().lastRebuild).toMatchObject({
        jobs: 1,
        fromProgress: 0,
        remainingSlotSeconds: WHOLE,
      });
      expect(restarted.lane().committedSlotSeconds).toBeCloseTo(WHOLE, 6);
      expect(restarted.records.filter((r) => r.message === UNAVAILABLE)).toEqual([
        expect.objectContaining({ level: 'info', component: 'sidecar', job: 'dl-1', app: appId, reason }),
      ]);
      // Not a failed step: the rest of the cycle ran, and the sidecar is ready.
      expect(restarted.records.filter((r) => r.message === 'cycle step failed')).toEqual([]);
      expect(restarted.sidecar.readiness().ready).toBe(true);
      expect(restarted.sidecar.stats().samples.length).toBeGreaterThan(0);
      // A capacity change rebuilds the lane and reads the AM again; the reason is not logged twice.
      rm.cpuNodes = 5;
      await restarted.sidecar.runOnce();
      expect(restarted.lane().containers).toBe(10);
      expect(calls).toBe(2);
      expect(restarted.records.filter((r) => r.message === UNAVAILABLE)).toHaveLength(1);
    },
  );

  it('reads nothing for an app the RM reports is not MapReduce, and says why', async () => {
    const { rm, appId, make } = await runningJob();
    rm.apps.set(appId, { ...rm.apps.get(appId)!, applicationType: 'SPARK' });
    let calls = 0;
    const restarted = make(async () => {
      calls++;
      return [];
    });
    await restarted.sidecar.runOnce();
    expect(calls).toBe(0);
    expect(restarted.records.find((r) => r.message === UNAVAILABLE)).toMatchObject({
      reason: 'not a MapReduce app (SPARK)',
    });
    expect(restarted.lane().lastRebuild.remainingSlotSeconds).toBe(WHOLE);
  });

  it('with a policy that has no snapshot rebuild (dc), re-admits its jobs whole and reads no AM', async () => {
    const { make } = await runningJob('dc');
    let calls = 0;
    const restarted = make(async () => {
      calls++;
      return [];
    });
    await restarted.sidecar.runOnce();
    expect(calls).toBe(0);
    expect(restarted.lane()).toMatchObject({
      committedSlotSeconds: null,
      lastRebuild: { jobs: 1, fromProgress: 0, remainingSlotSeconds: WHOLE },
    });
  });

  describe("a running job's predicted finish", () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const PAST_ESTIMATE = 'admitted job overran its estimate; its lane is rebuilt from task progress';
    const PAST_PREDICTION = 'running job past its predicted finish; predicted again from task progress';
    /** Its value in a scrape of the sidecar's metrics. */
    const gauge = async (metrics: SidecarMetrics) => {
      const text = await metrics.registry.metrics();
      return Number(/^yss_jobs_predicted_to_miss (\S+)$/m.exec(text)?.[1]);
    };

    it('follows its overrunning reduce while it runs, keeps the estimate as it was, and sees the miss coming', async () => {
      const { make, now, advanceTo, ledger } = await runningJob();
      // The admission's promise: 8 maps of 12.8 s at once, the reduce 102.4 s after them.
      const estimated = T0 + 115_200;
      const deadline = T0 + 600_000;
      // Under the papers' model the expected finish is the estimate: the first prediction.
      expect(ledger.getJob('dl-1')).toMatchObject({
        estimatedFinishMs: estimated,
        predictedFinishMs: estimated,
      });
      // Every map done; the reduce running since 10 s after the start, and on for ever.
      const reduceStart = T0 + 10_000;
      const asked: number[] = [];
      const restarted = make(async () => {
        asked.push(now());
        return [
          ...Array.from({ length: 8 }, (_, i) => task('m', i, 'SUCCEEDED', T0 + 1000)),
          task('r', 0, 'RUNNING', reduceStart),
        ];
      });
      const view = () => restarted.sidecar.getJob('dl-1')!;
      // Nothing read yet: the prediction is the estimate.
      expect(view()).toMatchObject({
        estimatedFinish: iso(estimated),
        predictedFinish: iso(estimated),
        predictedMiss: false,
      });

      // The restart's read (at 30 s): the reduce, within its estimate, ends at 10 + 102.4 s.
      await restarted.sidecar.runOnce();
      expect(asked).toEqual([T0 + 30_000]);
      expect(ledger.getJob('dl-1')!.predictedFinishMs).toBe(T0 + 112_400);

      // Steps of time, each 31 s past the last prediction (or the estimate, the later of the
      // two): the reduce is read again and its lane rebuilt; past its estimate it holds its slot
      // until twice it from its start (214.8 s), past that one more estimate from now each time.
      const steps: Array<[at: number, predicted: number]> = [
        [estimated + 31_000, T0 + 214_800],
        [T0 + 245_800, T0 + 348_200],
        [T0 + 379_200, T0 + 481_600],
        [T0 + 512_600, T0 + 615_000],
      ];
      for (const [at, predicted] of steps) {
        // Within the threshold of the reference: nothing is read.
        advanceTo(at - 1_000);
        await restarted.sidecar.runOnce();
        expect(asked).not.toContain(now());
        advanceTo(at);
        await restarted.sidecar.runOnce();
        expect(asked.at(-1)).toBe(at);
        expect(ledger.getJob('dl-1')!.predictedFinishMs).toBe(predicted);
        const miss = predicted > deadline;
        expect(view()).toMatchObject({
          estimatedFinish: iso(estimated),
          predictedFinish: iso(predicted),
          predictedMiss: miss,
          state: 'running',
        });
        expect(await gauge(restarted.metrics)).toBe(miss ? 1 : 0);
        expect(restarted.sidecar.stats().samples.at(-1)!.predictedToMiss).toBe(miss ? 1 : 0);
      }
      expect(asked).toHaveLength(5);
      // The estimate's overrun is warned of once; each later read says it passed its prediction.
      expect(restarted.records.filter((r) => r.message === PAST_ESTIMATE)).toHaveLength(1);
      expect(
        restarted.records.filter((r) => r.message === PAST_PREDICTION).map((r) => r.overSeconds),
      ).toEqual([31, 31, 31]);
      // The ledger keeps it: a sidecar started again on it shows the miss before reading an AM.
      const again = make(async () => []);
      expect(again.sidecar.getJob('dl-1')).toMatchObject({
        predictedFinish: iso(T0 + 615_000),
        predictedMiss: true,
      });
      expect(await gauge(again.metrics)).toBe(1);
    });

    it('without the AMs, a job past its estimate is predicted whole from now; a dc lane predicts nothing', async () => {
      // The lane rebuilt at once with the job whole: 8 maps of 12.8 s at once and the reduce
      // after them, 115.2 s from now. dc keeps no finish per job: the estimate stays shown.
      for (const [policy, whole] of [
        ['rtmr', 115_200],
        ['dc', null],
      ] as const) {
        const { make, advanceTo, ledger } = await runningJob(policy);
        const estimated = ledger.getJob('dl-1')!.estimatedFinishMs!;
        const restarted = make();
        await restarted.sidecar.runOnce();
        // Predicted at admission at its expected finish: the estimate itself under the papers' model.
        expect(ledger.getJob('dl-1')!.predictedFinishMs).toBe(estimated);
        const at = estimated + 31_000;
        advanceTo(at);
        await restarted.sidecar.runOnce();
        const predicted = whole === null ? null : at + whole;
        expect(ledger.getJob('dl-1')!.predictedFinishMs).toBe(predicted ?? estimated);
        expect(restarted.sidecar.getJob('dl-1')).toMatchObject({
          estimatedFinish: iso(estimated),
          predictedFinish: iso(predicted ?? estimated),
        });
      }
    });
  });
});
