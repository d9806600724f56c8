import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import {
  DEFAULT_SYNTHETIC_HISTORY,
  SyntheticHistory,
  type SyntheticHistoryOptions,
} from '../../src/emulator/synthetic-history';
import { RmUnavailableError } from '../../src/errors/rm-unavailable';
import { ValidationError } from '../../src/errors/validation';
import { listWindows, readClusterShape, readHistory } from '../../src/replay/read';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import type { AppReport, JobSummary, TaskReport } from '../../src/yarn/model';

/**
 * Reading a window of history (src/replay/read.ts) from the emulated JobHistory server's
 * synthetic history: every job found once through split windows, jobs left out with their
 * reason, the RM's apps joined, and the errors a history server can give.
 */
const START = Date.UTC(2026, 0, 1);
const options: SyntheticHistoryOptions = {
  ...DEFAULT_SYNTHETIC_HISTORY,
  jobs: 120,
  startMs: START,
  meanGapSeconds: 60,
  failedShare: 0.05,
  killedShare: 0.05,
  deletedShare: 0.1,
};
const truth = new SyntheticHistory(options);

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ history: options });
});
afterAll(async () => {
  await emu.close();
});

const jhs = () => JobHistoryClient.forHistoryServer({ urls: [emu.jhsUrl], timeoutMs: 10_000 });

describe('listWindows', () => {
  it('splits a window whose answer fills the page, and finds every item once', async () => {
    const items = Array.from({ length: 100 }, (_, i) => i * 10);
    const asked: Array<[number, number]> = [];
    const seen: number[] = [];
    const requests = await listWindows(
      0,
      999,
      1000,
      8,
      async (b, e, limit) => {
        asked.push([b, e]);
        return items.filter((t) => t >= b && t <= e).slice(0, limit);
      },
      async (found) => void seen.push(...found),
    );
    expect(seen.sort((a, b) => a - b)).toEqual(items);
    expect(requests).toBe(asked.length);
    expect(requests).toBeGreaterThan(100 / 8);
  });
});

describe('readHistory from the emulated JobHistory server', () => {
  it('finds every job of the window through pages of 7, leaving out failed, killed and deleted ones', async () => {
    const read = await readHistory({
      jhs: jhs(),
      fromMs: START,
      toMs: START + 3 * 3_600_000,
      pageJobs: 7,
      windowMs: 3_600_000,
      concurrency: 3,
    });
    const all = Array.from({ length: options.jobs }, (_, i) => truth.job(i));
    const expected = all.filter(
      (j) => j.state === 'SUCCEEDED' && !j.deleted && j.tasks.some((t) => t.type === 'MAP'),
    );
    expect(read.jobs.map((j) => j.id)).toEqual(expected.map((j) => j.id));
    const left = Object.fromEntries(read.leftOut.map((l) => [l.reason, l.count]));
    expect(left.failed ?? 0).toBe(all.filter((j) => j.state === 'FAILED').length);
    expect(left.killed ?? 0).toBe(all.filter((j) => j.state === 'KILLED').length);
    expect(left['history-deleted']).toBe(all.filter((j) => j.deleted && j.state === 'SUCCEEDED').length);
    expect(left['history-deleted']).toBeGreaterThan(0);
    // Task times equal the history server's, and the counters' bytes are read.
    const j = read.jobs[5]!;
    const t = truth.byId(j.id)!;
    expect(j.maps).toEqual(
      t.tasks.filter((x) => x.type === 'MAP').flatMap((x) => [x.startTime, x.finishTime]),
    );
    expect(j.reduces).toEqual(
      t.tasks.filter((x) => x.type === 'REDUCE').flatMap((x) => [x.startTime, x.finishTime]),
    );
    expect(j.inputBytes).toBe(t.inputBytes);
    expect(j.submitMs).toBe(t.submitTime);
    expect(read.requests).toBeGreaterThan(2 * read.jobs.length);
  });

  it('reads each map\u2019s bytes with --task-counters', async () => {
    const read = await readHistory({
      jhs: jhs(),
      fromMs: START + 20 * 60_000,
      toMs: START + 40 * 60_000,
      taskCounters: true,
    });
    expect(read.jobs.length).toBeGreaterThan(0);
    for (const j of read.jobs) {
      const t = truth.byId(j.id)!;
      expect(j.mapBytes).toEqual(t.tasks.filter((x) => x.type === 'MAP').map((x) => x.bytes));
    }
  });

  it('stops the job list at maxJobs, the newest left out and said', async () => {
    const read = await readHistory({ jhs: jhs(), fromMs: START, toMs: START + 3_600_000, maxJobs: 10 });
    expect(read.jobs).toHaveLength(10);
    expect(read.leftOut.find((l) => l.reason === 'over-max-jobs')?.count).toBeGreaterThan(0);
  });

  it('a window with no job reads nothing and says so through no jobs', async () => {
    const read = await readHistory({ jhs: jhs(), fromMs: START - 86_400_000, toMs: START - 1 });
    expect(read.jobs).toEqual([]);
  });

  it('an unreachable JobHistory server is RM_UNAVAILABLE naming it', async () => {
    const dead = JobHistoryClient.forHistoryServer({
      urls: ['http://127.0.0.1:9'],
      timeoutMs: 2000,
      maxAttempts: 1,
    });
    const err = await readHistory({ jhs: dead, fromMs: START, toMs: START + 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as Error).message).toMatch(/JobHistory server/);
  });

  it('a window that ends before it starts is a ValidationError naming `to`', async () => {
    const err = await readHistory({ jhs: jhs(), fromMs: START, toMs: START - 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues[0]!.path).toBe('to');
  });

  it('reads the cluster\u2019s shape from the RM: its nodes, labels and leaf queues', async () => {
    const rm = new HttpResourceManagerClient({ urls: [emu.url], timeoutMs: 10_000 });
    const shape = await readClusterShape(rm);
    expect(shape.nodes.length).toBe(6);
    expect(shape.nodes.filter((n) => n.labels.includes('gpu')).length).toBe(2);
    expect(shape.queues.map((q) => q.path).sort()).toEqual([
      'root.besteffort',
      'root.default',
      'root.realtime',
    ]);
  });
});

describe('readHistory with the RM beside (fakes)', () => {
  const job = (id: string, submit: number, finish: number): JobSummary => ({
    id,
    name: 'wordcount',
    user: 'bob',
    queue: 'root.default',
    state: 'SUCCEEDED',
    submitTime: submit,
    startTime: submit + 1000,
    finishTime: finish,
    mapsTotal: 1,
    mapsCompleted: 1,
    reducesTotal: 0,
    reducesCompleted: 0,
  });
  const task = (start: number, finish: number): TaskReport => ({
    id: 'task_1_m_000000',
    type: 'MAP',
    state: 'SUCCEEDED',
    startTime: start,
    finishTime: finish,
    elapsedTime: finish - start,
    progress: 100,
    successfulAttempt: '',
  });
  const app = (id: string, started: number, finished: number, over: Partial<AppReport> = {}): AppReport =>
    ({
      id,
      name: 'spark-pi',
      user: 'bob',
      queue: 'default',
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
      applicationType: 'SPARK',
      applicationTags: [],
      startedTime: started,
      finishedTime: finished,
      ...over,
    }) as AppReport;
  /** A JobHistory server whose jobs' tasks run [submit + 5 s, finish - 2 s] on its own clock. */
  const fakeJhs = (jobs: JobSummary[]) =>
    ({
      jobs: async () => jobs,
      tasks: async (id: string) => {
        const j = jobs.find((x) => x.id === id)!;
        return [task(j.submitTime + 5000, j.finishTime - 2000)];
      },
      jobCounters: async () => ({ HDFS_BYTES_READ: { total: 100, map: 100, reduce: 0 } }),
    }) as unknown as JobHistoryClient;

  it('joins the RM\u2019s apps: tags set the deadline, an app the history server lacks is a job of its own', async () => {
    const s = START;
    const read = await readHistory({
      jhs: fakeJhs([job('job_1_0001', s, s + 60_000)]),
      rm: {
        apps: async () => [
          app('application_1_0001', s, s + 61_000, {
            applicationType: 'MAPREDUCE',
            applicationTags: ['deadline:2026-01-01t00:05:00.000z'],
          }),
          app('application_1_0002', s + 10_000, s + 70_000, { launchTime: s + 12_000 }),
          app('application_1_0003', s + 20_000, s + 20_000),
        ],
      },
      fromMs: s,
      toMs: s + 3_600_000,
    });
    expect(read.jobs.map((j) => [j.id, j.source])).toEqual([
      ['job_1_0001', 'jobhistory'],
      ['application_1_0002', 'rm'],
    ]);
    expect(read.jobs[0]!.taggedDeadlineMs).toBe(Date.parse('2026-01-01T00:05:00.000Z'));
    expect(read.jobs[1]!.maps).toEqual([s + 12_000, s + 70_000]);
    expect(read.leftOut).toEqual([{ reason: 'never-ran', count: 1, examples: ['application_1_0003'] }]);
    expect(read.skew).toMatchObject({ medianMs: 1000, jobs: 1, corrected: false });
  });

  it('moves the RM\u2019s times onto the history server\u2019s clock when they are skewed', async () => {
    const s = START;
    const skew = 30_000;
    const jobs = [
      job('job_1_0001', s + skew, s + 60_000),
      job('job_1_0002', s + 100_000 + skew, s + 160_000),
    ];
    const read = await readHistory({
      jhs: fakeJhs(jobs),
      rm: {
        apps: async () => [
          app('application_1_0001', s + skew, s + 60_000 + skew, { applicationType: 'MAPREDUCE' }),
          app('application_1_0002', s + 100_000 + skew, s + 160_000 + skew, { applicationType: 'MAPREDUCE' }),
        ],
      },
      fromMs: s,
      toMs: s + 3_600_000,
    });
    expect(read.skew).toMatchObject({ medianMs: skew, jobs: 2, corrected: true });
    // The submission (the RM's time the AM was handed) moved back onto the tasks' clock.
    expect(read.jobs[0]!.submitMs).toBe(s);
    expect(read.tasksBeforeSubmit).toBe(0);
  });
});
