import type { PartitionView, StatsSample } from '../../src/model/job-views';
import type { JobRecord, Ledger } from '../../src/store/types';
import { jobRecord } from '../store/builders';

/** The dashboard tests' world: 08:00Z on 22 November 2026, and what happened in the two hours before. */
export const NOW = Date.parse('2026-11-22T08:00:00Z');
const MIN = 60_000;
const at = (minutes: number): number => NOW + minutes * MIN;

export const HOSTILE_NAME = '<img src=x onerror=alert(1)>';

type Seed = Omit<JobRecord, 'createdMs' | 'updatedMs'> & {
  actions?: Array<{
    kind: string;
    payload: unknown;
    status: 'pending' | 'done' | 'failed';
    result?: unknown;
    error?: string;
  }>;
};

/**
 * Eight jobs covering every case the page shows: met, missed, running (predicted to miss),
 * queued, rejected, discovered.
 */
export const SEED_JOBS: Seed[] = [
  {
    ...jobRecord('dl-001', {
      name: 'hourly-report',
      user: 'alice',
      arrivalMs: at(-110),
      deadlineMs: at(-50),
      estimatedFinishMs: at(-60),
      finishedMs: at(-55),
      state: 'finished',
      outcome: 'met',
      priority: 10,
      appId: 'application_1763798400000_0001',
      energyJoules: 7_200_000,
    }),
    actions: [
      {
        kind: 'submit-app',
        payload: { queue: 'realtime', tags: ['yss-id:dl-001'] },
        status: 'done',
        result: { appId: 'application_1763798400000_0001' },
      },
      { kind: 'set-priority', payload: { priority: 10 }, status: 'done' },
    ],
  },
  {
    ...jobRecord('dl-002', {
      name: 'fraud-scoring',
      user: 'bob',
      jobType: 'gpu',
      label: 'gpu',
      arrivalMs: at(-90),
      deadlineMs: at(-30),
      estimatedFinishMs: at(-35),
      finishedMs: at(-27),
      state: 'finished',
      outcome: 'missed',
      priority: 9,
      appId: 'application_1763798400000_0002',
      energyJoules: 3_600_000,
    }),
    actions: [{ kind: 'submit-app', payload: { queue: 'realtime', label: 'gpu' }, status: 'done' }],
  },
  {
    ...jobRecord('dl-003', {
      name: 'ad-optimisation',
      user: 'carol',
      jobType: 'adaptive',
      label: 'gpu',
      arrivalMs: at(-20),
      deadlineMs: at(30),
      estimatedFinishMs: at(20),
      // Its tasks ran past their estimates: predicted 8 minutes after its deadline.
      predictedFinishMs: at(38),
      state: 'running',
      priority: 8,
      appId: 'application_1763798400000_0003',
    }),
    actions: [
      { kind: 'submit-app', payload: { queue: 'realtime', label: 'gpu' }, status: 'done' },
      {
        kind: 'set-priority',
        payload: { priority: 8 },
        status: 'pending',
        error: 'RM answered 503 (standby)',
      },
    ],
  },
  jobRecord('dl-004', {
    name: 'nightly-etl',
    user: 'alice',
    arrivalMs: at(-5),
    deadlineMs: at(30),
    decision: 'rejected',
    reason: {
      kind: 'new-job-misses',
      message: 'estimated finish 08:42:00Z is 12 minutes after the deadline 08:30:00Z',
      jobId: 'dl-004',
      lateBySeconds: 720,
    },
    estimatedFinishMs: at(42),
    earliestDeadlineMs: at(42),
    queue: null,
    state: 'rejected',
  }),
  jobRecord('dl-005', {
    name: HOSTILE_NAME,
    user: 'mallory',
    arrivalMs: at(-3),
    deadlineMs: at(60),
    estimatedFinishMs: at(40),
    state: 'accepted',
  }),
  jobRecord('dl-006', {
    name: 'fraud-scoring-retry',
    user: 'bob',
    jobType: 'gpu',
    arrivalMs: at(-2),
    deadlineMs: at(35),
    decision: 'rejected',
    reason: {
      kind: 'admitted-job-would-miss',
      message: 'admitting it would make dl-003 finish 4 minutes late',
      jobId: 'dl-003',
      lateBySeconds: 240,
    },
    estimatedFinishMs: null,
    earliestDeadlineMs: at(75),
    queue: null,
    state: 'rejected',
  }),
  {
    ...jobRecord('dl-007', {
      name: 'weekly-rollup',
      user: 'dave',
      source: 'discovered',
      arrivalMs: at(-100),
      deadlineMs: at(-10),
      estimatedFinishMs: at(-25),
      finishedMs: at(-20),
      state: 'finished',
      outcome: 'met',
      appId: 'application_1763798400000_0007',
    }),
    actions: [{ kind: 'move-queue', payload: { queue: 'realtime' }, status: 'done' }],
  },
  {
    ...jobRecord('dl-008', {
      name: 'ad-hoc-scan',
      user: 'erin',
      source: 'discovered',
      arrivalMs: at(-8),
      deadlineMs: at(5),
      decision: 'rejected',
      reason: { kind: 'no-capacity', message: 'no partition can run 400 maps before the deadline' },
      estimatedFinishMs: null,
      earliestDeadlineMs: null,
      queue: 'best-effort',
      state: 'running',
      appId: 'application_1763798400000_0008',
    }),
    actions: [{ kind: 'move-queue', payload: { queue: 'best-effort' }, status: 'done' }],
  },
];

export const SEED_PARTITIONS: PartitionView[] = [
  {
    label: '',
    nodes: 4,
    memoryMb: { total: 65536, used: 40960 },
    vcores: { total: 32, used: 20 },
    gpus: { total: 0, used: 0 },
    utilization: 0.625,
  },
  {
    label: 'gpu',
    nodes: 1,
    memoryMb: { total: 16384, used: 12288 },
    vcores: { total: 8, used: 6 },
    gpus: { total: 2, used: 2 },
    utilization: 0.75,
  },
];

/**
 * Twelve samples, one every ten minutes up to NOW. The success ratio is null until the first
 * admitted job ended (the first five samples), which the chart shows as a gap, not as zero.
 */
export function seedSamples(): StatsSample[] {
  const out: StatsSample[] = [];
  for (let i = 0; i < 12; i++) {
    const accepted = 1 + Math.floor(i / 2);
    const rejected = Math.floor(i / 4);
    const ended = i < 5 ? 0 : i - 4;
    const missed = i >= 8 ? 1 : 0;
    out.push(
      sample(
        at(-110 + i * 10),
        accepted,
        rejected,
        ended - missed,
        missed,
        0.3 + 0.04 * i,
        0.5 + 0.02 * i,
        0.5 * i,
        // One app failed at 07:40, one was killed at 07:50: neither met nor missed.
        i >= 10 ? 1 : 0,
        i >= 11 ? 1 : 0,
      ),
    );
  }
  // The newest sample counts dl-003, running and predicted to miss.
  out[out.length - 1]!.predictedToMiss = 1;
  return out;
}

export function sample(
  atMs: number,
  accepted: number,
  rejected: number,
  met: number,
  missed: number,
  utilDefault: number,
  utilGpu: number,
  energyKWh: number,
  failed = 0,
  killed = 0,
): StatsSample {
  const decided = accepted + rejected;
  const ended = met + missed;
  return {
    at: new Date(atMs).toISOString(),
    accepted,
    rejected,
    met,
    missed,
    failed,
    killed,
    acceptRatio: decided ? accepted / decided : null,
    successRatio: ended ? met / ended : null,
    utilizationByLabel: { '': utilDefault, gpu: utilGpu },
    energyKWh,
    // Two thirds in the default partition, a third in gpu.
    energyKWhByLabel: { '': (energyKWh * 2) / 3, gpu: energyKWh / 3 },
  };
}

/** Write the seed jobs, a decision each and their RM actions into the ledger, oldest first. */
export function fillLedger(ledger: Ledger, clock: { now: number }): void {
  const ordered = [...SEED_JOBS].sort((a, b) => a.arrivalMs - b.arrivalMs);
  for (const seed of ordered) {
    const { actions = [], ...job } = seed;
    clock.now = job.arrivalMs;
    ledger.insertJob(job);
    ledger.recordDecision(
      job.id,
      'rtmr',
      job.decision,
      job.reason ?? { estimatedFinishMs: job.estimatedFinishMs },
    );
    for (const a of actions) {
      clock.now += 1000;
      const row = ledger.enqueueAction(job.id, a.kind, a.payload);
      ledger.markActionAttempt(row.id);
      if (a.status === 'pending') {
        ledger.markActionAttempt(row.id);
        if (a.error) ledger.noteActionError(row.id, a.error);
      } else {
        clock.now += 500;
        ledger.completeAction(row.id, a.status, a.result, a.error);
      }
    }
  }
  clock.now = NOW;
}
