import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { preemptionOf, type PreemptionSettings } from '../../src/yarn/conf';
import { FakeRm } from './fake-rm';
import { SLEEP_AM } from '../yarn-submission';

/** No per-task floor (docs/estimates.md): the figures here are worked out in seconds per MB alone. */
// The papers' arithmetic: no per-task floor, no time outside the tasks (amContainers 0 beside it).
const NO_FLOOR = { mapTaskSeconds: 0, reduceTaskSeconds: 0, setupSeconds: 0, commitSeconds: 0 };

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup(
  opts: {
    ledger?: SqliteLedger;
    rm?: FakeRm;
    shadow?: boolean;
    idPrefix?: string;
    /** admission.sharing */
    sharing?: Record<string, unknown>;
  } = {},
) {
  let now = T0;
  const clock = { now: () => now, advance: (s: number) => (now += s * 1000) };
  const config = buildConfig({
    admission: {
      initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1, ...NO_FLOOR },
      amContainers: 0,
      profiles: { enabled: false },
      ...(opts.sharing ? { sharing: opts.sharing } : {}),
    },
    enforcement: { shadow: opts.shadow ?? false },
  });
  const rm = opts.rm ?? new FakeRm();
  const ledger = opts.ledger ?? SqliteLedger.open(':memory:', { clock: () => now });
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: rm.api(),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    now: clock.now,
    newId: () => `${opts.idPrefix ?? 'dl'}-${++n}`,
  });
  const submit = (body: Record<string, unknown>, key?: string) =>
    sidecar.submit(
      parseSubmission(
        {
          name: 'report',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 8,
          reduces: 1,
          inputBytes: 1024 * MB,
          ...body,
        },
        clock.now(),
      ),
      {
        submitter: 'ci',
        idempotencyKey: key,
        requestHash: JSON.stringify(body),
      },
    );
  return { sidecar, rm, ledger, clock, submit, config };
}

type Answer = {
  id: string;
  decision: string;
  estimatedFinish?: string;
  earliestAdmissibleDeadline?: string;
  reason?: { kind: string; message: string; lateBySeconds?: number; sharing?: Record<string, unknown> };
  priority?: number;
  label?: string | null;
  queue?: string;
};

describe('the live sidecar', () => {
  it('refuses to decide before it has seen the cluster', async () => {
    const { submit } = setup();
    await expect(submit({ deadline: 600 })).rejects.toMatchObject({ code: 'NOT_READY' });
  });

  it('admits a feasible job with its estimate, and submits it to the real-time queue with tags', async () => {
    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    const res = await submit({ deadline: 600 });
    const body = res.body as Answer;
    expect(res.status).toBe(201);
    // 8 containers in the real-time queue: 8 maps of 12.8 s in one wave, then the reduce of 102.4 s.
    expect(body).toMatchObject({ decision: 'admitted', queue: 'realtime', label: null, priority: 10 });
    expect(Date.parse(body.estimatedFinish!) - T0).toBe(115_200);
    await sidecar.enforcer.drain();
    const app = [...rm.apps.values()][0]!;
    expect(app.queue).toBe('root.realtime');
    expect(app.applicationTags).toEqual([
      'sidecar-id:dl-1',
      'deadline:2026-11-22t08:10:00.000z',
      'maps:8',
      'reduces:1',
      `input-bytes:${1024 * MB}`,
      'type:cpu',
    ]);
    expect(ledger.getJob('dl-1')).toMatchObject({ appId: app.id, state: 'submitted' });
  });

  it('rejects an infeasible job with the reason and the earliest deadline that would be admitted', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const res = await submit({ deadline: 60 });
    const body = res.body as Answer;
    expect(res.status).toBe(200);
    expect(body.decision).toBe('rejected');
    expect(body.reason).toMatchObject({ kind: 'new-job-misses', lateBySeconds: expect.closeTo(55.2, 5) });
    expect(body.reason!.message).toMatch(
      /^this job would miss its deadline 2026-11-22T08:01:00.000Z by 55.2 s/,
    );
    expect(Date.parse(body.earliestAdmissibleDeadline!) - T0).toBe(116_000);
    await sidecar.enforcer.drain();
    expect(rm.writes).toEqual([]);
    // The counter-offer is admitted; one second less is not.
    expect(((await submit({ deadline: 116, dryRun: true })).body as Answer).decision).toBe('admitted');
    expect(((await submit({ deadline: 115, dryRun: true })).body as Answer).decision).toBe('rejected');
  });

  it('names the admitted job that a newcomer would push past its deadline', async () => {
    const { sidecar, submit } = setup();
    await sidecar.runOnce();
    expect(((await submit({ deadline: 120 })).body as Answer).decision).toBe('admitted');
    const res = (await submit({ deadline: 100, maps: 1, inputBytes: 128 * MB })).body as Answer;
    expect(res.decision).toBe('rejected');
    expect(res.reason).toMatchObject({ kind: 'admitted-job-would-miss', jobId: 'dl-1' });
  });

  it('a job no partition of its queue can run is rejected at submission with the reason, never admitted', async () => {
    // No GPU node: the real-time queue has no container in the gpu partition, so a GPU-only job
    // could never start; a CPU job is admitted as usual.
    const { sidecar, ledger, submit } = setup({ rm: new FakeRm(4, 0) });
    await sidecar.runOnce();
    const res = await submit({ deadline: 3600, jobType: 'gpu' });
    const gpu = res.body as Answer;
    expect(gpu.decision).toBe('rejected');
    expect(gpu.reason).toEqual({
      kind: 'no-capacity',
      message: "queue 'realtime' has no guaranteed containers in label 'gpu'",
    });
    expect(gpu.earliestAdmissibleDeadline).toBeNull();
    expect(ledger.getJob(gpu.id)).toMatchObject({ state: 'rejected' });
    expect(((await submit({ deadline: 3600 })).body as Answer).decision).toBe('admitted');
  });

  it("a rejection's partition is null for the default partition, as the job's label is, and the label otherwise", async () => {
    const { sidecar, ledger, submit } = setup();
    await sidecar.runOnce();
    const cpu = (await submit({ deadline: 60 })).body as Answer & { label: string | null };
    expect(cpu.decision).toBe('rejected');
    expect(cpu.reason).toMatchObject({ kind: 'new-job-misses', partition: null });
    expect(cpu.reason!.message).not.toMatch(/partition/);
    const gpu = (await submit({ deadline: 10, jobType: 'gpu' })).body as Answer;
    expect(gpu.decision).toBe('rejected');
    expect(gpu.reason).toMatchObject({ kind: 'new-job-misses', partition: 'gpu' });
    expect(gpu.reason!.message).toMatch(/\(partition 'gpu'\)$/);
    // The ledger's job row and decision record say the same.
    expect(ledger.getJob(cpu.id)!.reason).toMatchObject({ partition: null });
    expect(ledger.getJob(gpu.id)!.reason).toMatchObject({ partition: 'gpu' });
    const detail = (id: string) => ledger.decisionsOf(id)[0]!.detail as { reason?: { partition?: unknown } };
    expect(detail(cpu.id).reason).toMatchObject({ partition: null });
    expect(detail(gpu.id).reason).toMatchObject({ partition: 'gpu' });
  });

  it('places GPU jobs on the gpu label and refuses a queue the RM does not have', async () => {
    const { sidecar, submit } = setup();
    await sidecar.runOnce();
    expect((await submit({ deadline: 900, jobType: 'gpu' })).body).toMatchObject({
      decision: 'admitted',
      label: 'gpu',
    });
    await expect(submit({ deadline: 900, queue: 'nosuchqueue' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: "queue: unknown queue 'nosuchqueue'; known: realtime, besteffort, default",
    });
  });

  it('returns the first answer for a repeated Idempotency-Key and submits nothing new', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const first = await submit({ deadline: 600 }, 'key-1');
    await sidecar.enforcer.drain();
    const again = await submit({ deadline: 600 }, 'key-1');
    await sidecar.enforcer.drain();
    expect(again).toEqual(first);
    // The answer's text, serialised once: what the API sends and what the ledger keeps.
    expect(first.json).toBe(JSON.stringify(first.body));
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toHaveLength(1);
    await expect(submit({ deadline: 700 }, 'key-1')).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('answers decisions made together once their shared commit landed; a retry before it gets the same answer', async () => {
    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    const events: string[] = [];
    const writeSoon = ledger.writeSoon.bind(ledger);
    jest.spyOn(ledger, 'writeSoon').mockImplementation((fn) => {
      events.push('queued');
      return writeSoon(fn).then(() => void events.push('on disk'));
    });
    const answers = await Promise.allSettled([
      submit({ deadline: 600 }, 'key-1'),
      submit({ deadline: 600 }, 'key-1'),
      submit({ deadline: 700 }, 'key-1'),
      submit({ deadline: 900 }),
    ]);
    const [first, retry, reused, other] = answers;
    expect(first).toMatchObject({ status: 'fulfilled', value: { body: { id: 'dl-1' } } });
    expect(retry).toEqual(first);
    expect(reused).toMatchObject({ status: 'rejected', reason: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(other).toMatchObject({ status: 'fulfilled', value: { body: { id: 'dl-2' } } });
    // Two decisions recorded, both queued for the same commit.
    expect(events.slice(0, 4)).toEqual(['queued', 'queued', 'on disk', 'on disk']);
    expect(ledger.listJobs().jobs.map((j) => j.id)).toEqual(['dl-2', 'dl-1']);
    await sidecar.enforcer.drain();
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toHaveLength(2);
  });

  it('does not answer a decision whose write failed, and leaves it out of the admission state', async () => {
    const fresh = setup();
    await fresh.sidecar.runOnce();
    const alone = (await fresh.submit({ deadline: 3600 })).body as Answer;
    expect(alone.decision).toBe('admitted');

    const { sidecar, submit, ledger } = setup();
    await sidecar.runOnce();
    const insert = ledger.insertJob.bind(ledger);
    // Every try fails (a group with a failing write runs again, a write at a time).
    jest.spyOn(ledger, 'insertJob').mockImplementation(() => {
      throw new Error('disk I/O error');
    });
    await expect(submit({ deadline: 3600 })).rejects.toThrow('disk I/O error');
    jest.spyOn(ledger, 'insertJob').mockImplementation(insert);
    expect(ledger.listJobs().total).toBe(0);
    // The same job again is judged as if the first had never been: same place, same finish.
    const again = (await submit({ deadline: 3600 })).body as Answer;
    expect(again).toMatchObject({
      decision: 'admitted',
      position: 1,
      estimatedFinish: alone.estimatedFinish,
    });
  });

  it('ends an admitted job whose submission the RM refused for good, and frees its place', async () => {
    const fresh = setup();
    await fresh.sidecar.runOnce();
    const alone = (await fresh.submit({ deadline: 3600 })).body as Answer;

    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    rm.submitRefusals = 1;
    expect(((await submit({ deadline: 3600 })).body as Answer).decision).toBe('admitted');
    await sidecar.enforcer.drain();
    expect(ledger.actionsOf('dl-1').map((a) => a.status)).toEqual(['failed']);
    await sidecar.runOnce();
    expect(ledger.getJob('dl-1')).toMatchObject({ state: 'failed', outcome: null });
    expect(ledger.decisionsOf('dl-1').at(-1)).toMatchObject({
      policy: 'reconcile',
      decision: 'refused-by-rm',
      detail: { message: expect.stringContaining('does not accept the submission') },
    });
    // Its place is free again: the same job is judged as if it had never been admitted.
    const again = (await submit({ deadline: 3600 })).body as Answer;
    expect(again).toMatchObject({
      decision: 'admitted',
      position: 1,
      estimatedFinish: alone.estimatedFinish,
    });
    await sidecar.runOnce();
    expect(ledger.refusedSubmissions()).toEqual([]);
  });

  it('follows an admitted app to its end and records whether it met its deadline', async () => {
    const { sidecar, rm, submit, ledger, clock } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 600 });
    await submit({ deadline: 900 });
    await sidecar.runOnce();
    const [a, b] = [ledger.getJob('dl-1')!.appId!, ledger.getJob('dl-2')!.appId!];
    rm.run(a);
    clock.advance(30);
    await sidecar.runOnce();
    expect(ledger.getJob('dl-1')!.state).toBe('running');
    rm.finish(a, T0 + 500_000);
    rm.finish(b, T0 + 950_000);
    await sidecar.runOnce();
    expect(ledger.getJob('dl-1')).toMatchObject({
      state: 'finished',
      outcome: 'met',
      finishedMs: T0 + 500_000,
    });
    expect(ledger.getJob('dl-2')).toMatchObject({ state: 'finished', outcome: 'missed' });
    expect(sidecar.stats().samples.at(-1)).toMatchObject({
      accepted: 2,
      met: 1,
      missed: 1,
      successRatio: 0.5,
    });
  });

  it('writes EDF order as priorities, and only where an app must change', async () => {
    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 3000, maps: 1, inputBytes: 128 * MB });
    await submit({ deadline: 2000, maps: 1, inputBytes: 128 * MB }); // earlier deadline: goes first
    await sidecar.runOnce();
    await sidecar.runOnce();
    const prio = (id: string) => rm.apps.get(ledger.getJob(id)!.appId!)!.priority;
    expect([prio('dl-2'), prio('dl-1')]).toEqual([10, 9]);
    const writes = rm.writes.length;
    await sidecar.runOnce();
    expect(rm.writes.length).toBe(writes);
  });

  it('admits or rejects a deadline app found on the RM and moves it to the matching queue', async () => {
    const { sidecar, rm, ledger } = setup();
    const ok = rm.external(
      ['deadline:2026-11-22T09:00:00.000Z', 'maps:4', 'reduces:1', `input-bytes:${512 * MB}`],
      'default',
      T0,
    );
    const late = rm.external(
      ['deadline:2026-11-22T08:00:05.000Z', 'maps:400', 'reduces:1', `input-bytes:${51200 * MB}`],
      'default',
      T0,
    );
    const plain = rm.external(['team:ads'], 'default', T0);
    await sidecar.runOnce();
    await sidecar.runOnce();
    expect(rm.apps.get(ok)!.queue).toBe('root.realtime');
    expect(rm.apps.get(late)!.queue).toBe('root.besteffort');
    expect(rm.apps.get(plain)!.queue).toBe('root.default');
    expect(ledger.getJobByAppId(ok)).toMatchObject({ source: 'discovered', decision: 'admitted' });
    expect(ledger.getJobByAppId(late)).toMatchObject({ source: 'discovered', decision: 'rejected' });
  });

  it('keeps answering while the RM is down, enforces once it is back, and reports readiness', async () => {
    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    expect(sidecar.readiness().ready).toBe(true);
    rm.down = true;
    await sidecar.runOnce();
    expect(sidecar.readiness()).toMatchObject({
      ready: false,
      reason: expect.stringContaining('RM unreachable'),
    });
    expect((await submit({ deadline: 600 })).status).toBe(201);
    await sidecar.runOnce();
    expect(ledger.pendingActions()).toHaveLength(1);
    rm.down = false;
    await sidecar.runOnce();
    expect(ledger.pendingActions()).toHaveLength(0);
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
    expect(sidecar.readiness().ready).toBe(true);
  });

  it('after a restart, decides at once from the saved capacity and carries out pending actions', async () => {
    const ledger = SqliteLedger.open(':memory:');
    const rm = new FakeRm();
    const first = setup({ ledger, rm });
    await first.sidecar.runOnce();
    rm.down = true;
    expect((await first.submit({ deadline: 600 })).status).toBe(201);
    // The process is replaced; the RM is still down.
    const second = setup({ ledger, rm, idPrefix: 'after-restart' });
    expect(((await second.submit({ deadline: 100000 })).body as Answer).decision).toBe('admitted');
    rm.down = false;
    await second.sidecar.runOnce();
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toHaveLength(2);
  });

  it('writes nothing to the RM in shadow mode but records and shows every decision', async () => {
    const { sidecar, rm, submit, ledger } = setup({ shadow: true });
    const ext = rm.external(['deadline:2026-11-22T09:00:00.000Z', 'maps:2'], 'default', T0);
    await sidecar.runOnce();
    await submit({ deadline: 600 });
    await submit({ deadline: 10 });
    await sidecar.runOnce();
    expect(rm.writes).toEqual([]);
    expect(rm.apps.get(ext)!.queue).toBe('root.default');
    expect(ledger.listJobs().total).toBe(3);
    expect(ledger.countActions().every((a) => a.status === 'skipped')).toBe(true);
  });

  describe('on a shared cluster (admission.sharing): another queue holds the real-time guarantee', () => {
    /** 4 CPU nodes of 4 containers, the real-time queue guaranteed 8; `default` holds `k` of each node. */
    const tenant = (k: number, preemption?: PreemptionSettings) => {
      const rm = new FakeRm(4, 0);
      rm.tenantPerCpuNode = k;
      rm.preemptionSettings = preemption;
      return rm;
    };
    const finishOf = (a: Answer) => Date.parse(a.estimatedFinish!) - T0;

    it('with preemption on, admits with the preemption delay in the estimate, and says so when it rejects', async () => {
      const free = setup({ rm: tenant(0) });
      await free.sidecar.runOnce();
      const alone = (await free.submit({ deadline: 3600 })).body as Answer;
      expect(alone.decision).toBe('admitted');

      // Hadoop's defaults: a run every 3 s, kills 15 s after the ask, one container a round
      // (10 % of 16): the 8 held containers return at 18, 36, ..., 144 s.
      const held = setup({ rm: tenant(4, preemptionOf({ enabled: 'true' })) });
      await held.sidecar.runOnce();
      const late = (await held.submit({ deadline: 3600 })).body as Answer;
      expect(late.decision).toBe('admitted');
      expect(finishOf(late)).toBeGreaterThanOrEqual(finishOf(alone) + 18_000);

      const tight = (await held.submit({ deadline: Math.ceil(finishOf(alone) / 1000) + 1 })).body as Answer;
      expect(tight.decision).toBe('rejected');
      expect(tight.reason!.sharing).toEqual({
        mode: 'preemption',
        guaranteed: 8,
        held: 8,
        firstReturnSeconds: 18,
        lastReturnSeconds: 144,
        neverReturn: 0,
      });
      expect(tight.reason!.message).toMatch(
        /; 8 of 8 guaranteed containers are held by other queues; preemption takes them back in 18–144 s$/,
      );
      // The cluster view shows the same per lane, and where preemption's settings came from.
      const view = held.sidecar.cluster() as {
        admission: {
          lanes: Array<{ label: string; sharing: Record<string, unknown> }>;
          sharing: { preemption: { source: string; enabled: boolean }; measuredPreemptionDelays: unknown[] };
        };
      };
      expect(view.admission.sharing).toMatchObject({
        preemption: { source: 'rm', enabled: true },
        measuredPreemptionDelays: [],
      });
      expect(view.admission.lanes.find((l) => l.label === '')!.sharing).toMatchObject({
        mode: 'preemption',
        held: 8,
        size: 8,
      });
    });

    it('with preemption off and no known release, rejects with the reason "guarantee lent to other queues, preemption off"', async () => {
      const { sidecar, submit, ledger } = setup({ rm: tenant(4), sharing: { preemption: 'off' } });
      await sidecar.runOnce();
      const a = (await submit({ deadline: 3600 })).body as Answer;
      expect(a.decision).toBe('rejected');
      expect(a.reason).toMatchObject({
        kind: 'guarantee-held',
        message:
          "queue 'realtime': guarantee lent to other queues, preemption off: 8 of 8 guaranteed containers are held by other queues; none has a known release",
        sharing: { mode: 'lent', held: 8, neverReturn: 8 },
      });
      expect(ledger.getJob(a.id)).toMatchObject({ state: 'rejected' });
    });

    it('an RM that hides its preemption settings counts as preemption off, and says it is not known', async () => {
      const { sidecar, submit } = setup({ rm: tenant(4) });
      await sidecar.runOnce();
      const a = (await submit({ deadline: 3600 })).body as Answer;
      expect(a.reason).toMatchObject({ kind: 'guarantee-held', sharing: { mode: 'unknown' } });
      expect(a.reason!.message).toContain('guarantee lent to other queues, preemption not known to be on');
    });

    it('with preemption off, admits on what is free now: the free half of the guarantee', async () => {
      const half = setup({ rm: tenant(3), sharing: { preemption: 'off' } });
      await half.sidecar.runOnce();
      const full = setup({ rm: tenant(0), sharing: { preemption: 'off' } });
      await full.sidecar.runOnce();
      const onHalf = (await half.submit({ deadline: 3600 })).body as Answer;
      const onFull = (await full.submit({ deadline: 3600 })).body as Answer;
      expect([onHalf.decision, onFull.decision]).toEqual(['admitted', 'admitted']);
      // 8 maps in 4 containers take two waves where 8 containers take one.
      expect(finishOf(onHalf)).toBeGreaterThan(finishOf(onFull));
    });

    it("with preemption off, counts the lent containers back as the tenant's apps end, by their own observed run times", async () => {
      const rm = tenant(4);
      // The tenant's nightly job ran 100 s last time; today's started 40 s ago and holds the partition.
      const last = rm.external([], 'default', T0 - 500_000);
      Object.assign(rm.apps.get(last)!, { name: 'nightly', state: 'FINISHED', finishedTime: T0 - 400_000 });
      const today = rm.external([], 'default', T0 - 40_000);
      Object.assign(rm.apps.get(today)!, {
        name: 'nightly',
        state: 'RUNNING',
        runningContainers: 16,
        allocatedMB: 16 * 2048,
        allocatedVCores: 16,
      });
      const { sidecar, submit } = setup({ rm, sharing: { preemption: 'off' } });
      await sidecar.runOnce();
      const a = (await submit({ deadline: 3600 })).body as Answer;
      expect(a.decision).toBe('admitted');
      // Not before the tenant's containers come back, 60 s from now.
      expect(finishOf(a)).toBeGreaterThanOrEqual(60_000);
      const tight = (await submit({ deadline: 55 })).body as Answer;
      expect(tight.reason!.sharing).toEqual({
        mode: 'lent',
        guaranteed: 8,
        held: 8,
        firstReturnSeconds: 60,
        lastReturnSeconds: 60,
        neverReturn: 0,
      });
      expect(tight.reason!.message).toContain(
        'guarantee lent to other queues, preemption off: 8 of 8 guaranteed containers are held by other queues; 8 return as their apps end in 60 s',
      );
    });

    it("otherQueues: false keeps the guarantee the admitted jobs' own, as on a dedicated cluster", async () => {
      const { sidecar, submit } = setup({ rm: tenant(4), sharing: { otherQueues: false } });
      await sidecar.runOnce();
      const a = (await submit({ deadline: 3600 })).body as Answer;
      expect(a.decision).toBe('admitted');
      expect(a.reason).toBeUndefined();
    });
  });
});
