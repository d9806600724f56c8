/**
 * A lane rebuilt after a restart counts what its running jobs still owe, read from their
 * MapReduce AMs through the emulated RM's web proxy, instead of each job's whole work.
 *
 * One sidecar admits a MapReduce job and finds a deadline app that is not MapReduce on the RM;
 * simulated time runs until the job has finished maps and running ones; a second sidecar starts
 * on the same ledger. Its lane first counts both jobs whole (the saved capacity, no AM read
 * yet), then, after one cycle, the MapReduce job's finished maps not at all and its running ones
 * for what is left of their estimate; the other app counts whole, logged once.
 */
import winston from 'winston';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { runningTaskEnd } from '../../src/core/admission/common/progress';
import { defaultRegistry } from '../../src/core/registry';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import type { TaskReport } from '../../src/yarn/model';
import { harness, type Harness } from '../emulator/helpers';
import { capturingLogger } from '../log-capture';
import { amCommand } from '../../src/yarn/submission';
import { SLEEP_AM } from '../yarn-submission';

/** No per-task floor (docs/estimates.md): the figures here are worked out in seconds per MB alone. */
// The papers' arithmetic: no per-task floor, no time outside the tasks (amContainers 0 beside it).
const NO_FLOOR = { mapTaskSeconds: 0, reduceTaskSeconds: 0, setupSeconds: 0, commitSeconds: 0 };

const MB = 1024 * 1024;
/** 0.1 s per MB: a 512 MB map is estimated at 51.2 s, the 4096 MB job's reduce at 409.6 s. */
const EPS_M = 51.2;
const EPS_R = 409.6;
const WHOLE = 8 * EPS_M + EPS_R;
/** The non-MapReduce app: 2 maps of 2048 MB (204.8 s each), one reduce of 409.6 s. */
const OTHER_WHOLE = 2 * 204.8 + 409.6;

interface LaneView {
  queue: string;
  label: string;
  containers: number;
  committedSlotSeconds: number | null;
  lastRebuild: {
    jobs: number;
    fromProgress: number;
    remainingSlotSeconds: number;
    wholeSlotSeconds: number;
  };
}

describe('a lane rebuilt after a restart, against the emulator', () => {
  let h: Harness;
  let rm: HttpResourceManagerClient;
  let ledger: SqliteLedger;
  const config = buildConfig({
    admission: {
      initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1, ...NO_FLOOR },
      amContainers: 0,
      profiles: { enabled: false },
    },
  });
  const now = () => h.emu.time.nowEpochMs();

  const sidecar = (logger: winston.Logger, id: string) =>
    new Sidecar({
      config,
      rm,
      ledger,
      runningAppTasks: (appId) => JobHistoryClient.forRunningApp(rm.transport, appId).tasksOfApp(appId),
      registry: defaultRegistry(),
      metrics: new SidecarMetrics(),
      logger,
      now,
      newId: () => id,
    });
  const lane = (s: Sidecar): LaneView =>
    (s.cluster() as { admission: { lanes: LaneView[] } }).admission.lanes.find(
      (l) => l.queue === 'realtime' && l.label === '',
    )!;

  beforeAll(async () => {
    h = await harness({ speed: 1 });
    rm = new HttpResourceManagerClient({ urls: [h.emu.url], timeoutMs: 5000, maxAttempts: 1 });
    ledger = SqliteLedger.open(':memory:', { clock: now });
  });
  afterAll(async () => {
    ledger.close();
    await h.emu.close();
  });

  it('counts the finished maps of a running job no more, and its running ones for what is left', async () => {
    const first = sidecar(capturingLogger('info').logger, 'dl-wide');
    await first.runOnce();
    const answer = await first.submit(
      parseSubmission(
        {
          name: 'wide',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 8,
          reduces: 1,
          inputBytes: 8 * 512 * MB,
          deadline: 3600,
        },
        now(),
      ),
      { submitter: 'ci', requestHash: 'wide' },
    );
    expect(answer.status).toBe(201);
    await first.runOnceSettled();
    const appId = ledger.getJob('dl-wide')!.appId!;
    // A deadline app submitted straight to the RM, of a type whose AM has no MapReduce API.
    const { applicationId: otherId } = await rm.newApplication();
    await rm.submitApp({
      applicationId: otherId,
      name: 'spark-etl',
      queue: 'realtime',
      priority: 1,
      applicationType: 'SPARK',
      tags: [
        `deadline:${new Date(now() + 3_600_000).toISOString()}`,
        'maps:2',
        'reduces:1',
        `input-bytes:${2 * 2048 * MB}`,
      ],
      appNodeLabelExpression: '',
      amNodeLabelExpression: '',
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('true'),
    });
    h.advance(1);
    await first.runOnce();
    expect(ledger.getJobByAppId(otherId)).toMatchObject({ source: 'discovered', decision: 'admitted' });

    // Until the wide job has a finished map and running ones.
    const emu = h.emu.rm;
    const mapDone = () => (emu.sync(), emu.taskRecordsOf(appId).some((t) => t.completed));
    for (let k = 0; k < 120 && !mapDone(); k++) h.advance(1);
    expect(emu.engine.runningTasksOf(appId).length).toBeGreaterThan(0);
    await first.runOnce();
    expect(ledger.getJob('dl-wide')!.state).toBe('running');

    // The restart: the saved capacity gives the lane at once, every job whole.
    const { logger, records } = capturingLogger('info');
    const second = sidecar(logger, 'dl-next');
    expect(lane(second).lastRebuild).toMatchObject({
      jobs: 2,
      fromProgress: 0,
      wholeSlotSeconds: WHOLE + OTHER_WHOLE,
      remainingSlotSeconds: WHOLE + OTHER_WHOLE,
    });
    expect(lane(second).committedSlotSeconds).toBeCloseTo(WHOLE + OTHER_WHOLE, 6);

    await second.runOnce();
    // What the AM reports at this instant (the emulator's clock has not moved since).
    const tasks: readonly TaskReport[] = await JobHistoryClient.forRunningApp(rm.transport, appId).tasksOfApp(
      appId,
    );
    const nowS = now() / 1000;
    const maps = tasks.filter((t) => t.type === 'MAP');
    const done = maps.filter((t) => t.state === 'SUCCEEDED');
    const running = maps.filter((t) => t.state === 'RUNNING');
    expect(done.length).toBeGreaterThan(0);
    expect(running.length).toBeGreaterThan(0);
    expect(tasks.filter((t) => t.type === 'REDUCE').map((t) => t.state)).toEqual(['SCHEDULED']);
    const left = running.map((t) => Math.max(0, EPS_M - (nowS - t.startTime / 1000)));
    const wideRest = (8 - done.length - running.length) * EPS_M + left.reduce((a, b) => a + b, 0) + EPS_R;
    expect(wideRest).toBeLessThanOrEqual(WHOLE - done.length * EPS_M);

    const rebuilt = lane(second);
    expect(rebuilt.lastRebuild).toMatchObject({
      jobs: 2,
      fromProgress: 1,
      wholeSlotSeconds: WHOLE + OTHER_WHOLE,
    });
    expect(rebuilt.lastRebuild.remainingSlotSeconds).toBeCloseTo(wideRest + OTHER_WHOLE, 6);
    // The running maps fit the lane's containers, so the state holds exactly that work.
    expect(running.length).toBeLessThanOrEqual(rebuilt.containers);
    // Slot times are epoch seconds (~1.7e9), whose doubles carry ~2e-7 s of rounding each.
    expect(rebuilt.committedSlotSeconds).toBeCloseTo(wideRest + OTHER_WHOLE, 4);
    expect(rebuilt.committedSlotSeconds!).toBeLessThan(WHOLE + OTHER_WHOLE - done.length * EPS_M + 1e-6);

    // Its predicted finish is the rebuilt lane's placement of it: the wide job started first, so
    // its pending maps take containers free now, beside its running ones (each until its start
    // + 51.2 s, or later once past it: runningTaskEnd); its reduce follows the last map.
    const pending = 8 - done.length - running.length;
    expect(running.length + pending).toBeLessThanOrEqual(rebuilt.containers);
    const mapEnd = Math.max(
      ...running.map((t) => runningTaskEnd(EPS_M, t.startTime / 1000, nowS)),
      ...(pending > 0 ? [nowS + EPS_M] : []),
    );
    const predicted = Math.round((mapEnd + EPS_R) * 1000);
    const wide = ledger.getJob('dl-wide')!;
    expect(wide.predictedFinishMs).toBe(predicted);
    // The admission's promise stays as it was; the view shows both.
    expect(second.getJob('dl-wide')).toMatchObject({
      estimatedFinish: new Date(wide.estimatedFinishMs!).toISOString(),
      predictedFinish: new Date(predicted).toISOString(),
      predictedMiss: false,
    });
    expect(answer.body).toMatchObject({ estimatedFinish: new Date(wide.estimatedFinishMs!).toISOString() });
    // The app no task of which was read keeps its estimate as its prediction.
    const other = ledger.getJobByAppId(otherId)!;
    expect(other.predictedFinishMs).toBeNull();
    expect(second.getJob(other.id)!.predictedFinish).toBe(new Date(other.estimatedFinishMs!).toISOString());

    const unavailable = records.filter(
      (r) => r.message === 'task progress unavailable; the job counts whole',
    );
    expect(unavailable).toEqual([
      expect.objectContaining({
        level: 'info',
        component: 'sidecar',
        job: ledger.getJobByAppId(otherId)!.id,
        app: otherId,
        reason: 'not a MapReduce app (SPARK)',
      }),
    ]);
    expect(
      records.some((r) => r.message === 'lane rebuilt from task progress' && r.lane === 'realtime|'),
    ).toBe(true);
  });
});
