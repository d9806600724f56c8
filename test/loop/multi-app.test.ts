import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { silentLogger } from '../../src/log';
import { foldActuals } from '../../src/loop/job-apps';
import { tasksOfApps } from '../../src/loop/learning';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import type { TaskReport } from '../../src/yarn/model';
import { FakeRm } from './fake-rm';

/**
 * One ticket, every app of its client: a client that reported itself running (as `run` does)
 * may run several apps under the ticket's tag, one after the other. Each is bound to the job and
 * moved to the ticket's queue; the job keeps its place until its client has exited, and is
 * judged on its last app.
 */

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup(
  opts: {
    ledger?: SqliteLedger;
    rm?: FakeRm;
    ttlSeconds?: number;
    now?: { ms: number };
    lifetimes?: boolean;
  } = {},
) {
  const now = opts.now ?? { ms: T0 };
  const clock = { now: () => now.ms, advance: (s: number) => (now.ms += s * 1000) };
  const config = buildConfig({
    admission: {
      initialEstimates: {
        eta: 1,
        mapSecondsPerMb: 0.1,
        reduceSecondsPerMb: 0.1,
        mapTaskSeconds: 0,
        reduceTaskSeconds: 0,
      },
    },
    ...(opts.ttlSeconds === undefined ? {} : { tickets: { ttlSeconds: opts.ttlSeconds } }),
    ...(opts.lifetimes ? { enforcement: { lifetimeTimeouts: true } } : {}),
  });
  const rm = opts.rm ?? new FakeRm();
  const ledger = opts.ledger ?? SqliteLedger.open(':memory:', { clock: clock.now });
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: rm.api(),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    now: clock.now,
    newId: () => `dl-m${++n}`,
  });
  const submit = async (body: Record<string, unknown>) =>
    (
      await sidecar.submit(
        parseSubmission(
          { name: 'grep', user: 'alice', maps: 4, reduces: 1, inputBytes: 256 * MB, ...body },
          clock.now(),
        ),
        { submitter: 'ci', requestHash: JSON.stringify(body) },
      )
    ).body as { id: string; decision: string; ticket: { tags: string[]; queue: string } };
  return { sidecar, rm, ledger, clock, submit };
}

type Detail = {
  state: string;
  outcome: string | null;
  appId: string | null;
  finishedAt: string | null;
  betweenApps: boolean;
  apps: Array<{ id: string; state: string | null; queue: string | null; finishedAt: string | null }>;
  ticket: { status: string; client: { state: string; exitCode: number | null } | null } | null;
  decisions: Array<{ decision: string; detail: Record<string, unknown> }>;
  actions: Array<{ kind: string; status: string; payload: { appId?: string; queue?: string } }>;
};

/** A two-app client under one ticket: its first app ran and ended, its client still runs. */
async function firstAppEnded(s: ReturnType<typeof setup>) {
  const { sidecar, rm, clock, submit } = s;
  await sidecar.runOnce();
  const answer = await submit({ deadline: 600 });
  expect(answer.decision).toBe('admitted');
  await sidecar.reportClient(answer.id, { state: 'running' }, 'ci');
  clock.advance(2);
  const first = rm.external(answer.ticket.tags, 'realtime', clock.now());
  // Submitted at the ticket's priority, as the client's -D options ask.
  rm.apps.set(first, { ...rm.apps.get(first)!, priority: 10 });
  await sidecar.runOnce();
  rm.run(first);
  await sidecar.runOnce();
  clock.advance(60);
  rm.finish(first, clock.now());
  await sidecar.runOnce();
  return { id: answer.id, tags: answer.ticket.tags, first };
}

describe('one ticket, every app of its client', () => {
  it('binds both apps, moves the second to the ticket queue, and judges the job on the last', async () => {
    const s = setup();
    const { sidecar, rm, ledger, clock } = s;
    const { id, tags, first } = await firstAppEnded(s);
    // Between apps: not judged, its place kept in its lane.
    let d = sidecar.getJob(id) as unknown as Detail;
    expect(d).toMatchObject({ state: 'running', outcome: null, finishedAt: null, betweenApps: true });
    expect(ledger.openAdmittedJobs().map((j) => j.id)).toEqual([id]);
    const committed = () =>
      (
        sidecar.cluster() as { admission: { lanes: Array<{ queue: string; committedSlotSeconds: number }> } }
      ).admission.lanes.find((l) => l.queue === 'realtime' && l.committedSlotSeconds !== null)!
        .committedSlotSeconds;
    // Its lane still counts its work: the capacity is held for its next app.
    expect(committed()).toBeGreaterThan(0);
    clock.advance(5);
    // The second app lands in the default queue (a client that set the queue only once).
    const second = rm.external(tags, 'default', clock.now());
    await sidecar.runOnce();
    expect(rm.apps.get(second)!.queue).toBe('root.realtime');
    expect(sidecar.listJobs({}).total).toBe(1);
    d = sidecar.getJob(id) as unknown as Detail;
    expect(d.appId).toBe(first);
    expect(d.apps.map((a) => a.id)).toEqual([first, second]);
    expect(d.apps[0]).toMatchObject({ state: 'FINISHED', queue: 'root.realtime' });
    expect(d.betweenApps).toBe(false);
    expect(d.decisions.map((x) => x.decision)).toEqual([
      'admitted',
      'client-running',
      'ticket-bound',
      'app-ended',
      'app-bound',
    ]);
    expect(d.decisions[4]!.detail).toEqual({ app: second, ordinal: 2 });
    // Recorded in the outbox before it was made, confirmed after.
    expect(d.actions).toEqual([
      expect.objectContaining({
        kind: 'move-queue',
        status: 'done',
        payload: { appId: second, queue: 'realtime' },
      }),
      expect.objectContaining({
        kind: 'set-priority',
        status: 'done',
        payload: { appId: second, priority: 10 },
      }),
    ]);
    // The RM showed the second app at priority 0: it was given the job's (the first app's own
    // is the client's -D option, here none).
    expect(rm.apps.get(second)!.priority).toBe(10);
    rm.run(second);
    await sidecar.runOnce();
    clock.advance(100);
    rm.finish(second, clock.now());
    await sidecar.runOnce();
    // Every app ended, the client has not exited yet: still between apps.
    expect(ledger.getJob(id)).toMatchObject({ state: 'running', outcome: null });
    clock.advance(3);
    await sidecar.reportClient(id, { state: 'exited', exitCode: 0 }, 'ci');
    await sidecar.runOnce();
    d = sidecar.getJob(id) as unknown as Detail;
    // Judged on the last app: it finished at T0 + 167 s, before the deadline.
    expect(d).toMatchObject({
      state: 'finished',
      outcome: 'met',
      finishedAt: new Date(T0 + 167_000).toISOString(),
      betweenApps: false,
      ticket: { status: 'bound', client: { state: 'exited', exitCode: 0 } },
    });
    expect(d.decisions.find((x) => x.decision === 'apps-ended')!.detail).toEqual({
      apps: [first, second],
      lastApp: second,
      clientExitCode: 0,
    });
    expect(ledger.openAdmittedJobs()).toEqual([]);
    expect(committed()).toBe(0);
  });

  it('judges the job missed when its last app ends after the deadline, though the first ended before', async () => {
    const s = setup();
    const { sidecar, rm, ledger, clock } = s;
    const { id, tags } = await firstAppEnded(s);
    clock.advance(10);
    const second = rm.external(tags, 'realtime', clock.now());
    await sidecar.runOnce();
    rm.run(second);
    await sidecar.runOnce();
    // The deadline is T0 + 600 s; the second app ends 32 s after it.
    clock.advance((T0 + 640_000 - clock.now()) / 1000);
    rm.finish(second, T0 + 632_000);
    await sidecar.reportClient(id, { state: 'exited', exitCode: 0 }, 'ci');
    await sidecar.runOnce();
    expect(ledger.getJob(id)).toMatchObject({
      state: 'finished',
      outcome: 'missed',
      finishedMs: T0 + 632_000,
    });
  });

  it('judges a job whose client stopped reporting on its last app once the ticket lifetime passed', async () => {
    const s = setup({ ttlSeconds: 200 });
    const { sidecar, ledger, clock } = s;
    const { id, first } = await firstAppEnded(s);
    const endedMs = ledger.appsOf(id)[0]!.finishedMs!;
    clock.advance(100);
    await sidecar.runOnce();
    expect(ledger.getJob(id)!.state).toBe('running');
    // 200 s after the client's last report (at T0, before its first app): judged.
    clock.advance(40);
    await sidecar.runOnce();
    expect(ledger.getJob(id)).toMatchObject({ state: 'finished', outcome: 'met', finishedMs: endedMs });
    const judged = ledger.decisionsOf(id).find((x) => x.decision === 'apps-ended')!;
    expect(judged.detail).toMatchObject({ apps: [first], lastApp: first, clientExitCode: null });
    expect((judged.detail as { message: string }).message).toMatch(/stopped reporting for over 200 s/);
  });

  it("gives a later app the job's deadline as its lifetime, as the first, with enforcement.lifetimeTimeouts", async () => {
    const s = setup({ lifetimes: true });
    const { sidecar, rm, ledger, clock } = s;
    const { id, tags, first } = await firstAppEnded(s);
    clock.advance(5);
    const second = rm.external(tags, 'realtime', clock.now());
    await sidecar.runOnce();
    await sidecar.runOnce();
    // Recorded in the outbox (this stand-in RM has no lifetime endpoint: the writes stay pending).
    const lifetimes = ledger
      .actionsOf(id)
      .filter((a) => a.kind === 'set-lifetime')
      .map((a) => [(a.payload as { appId: string }).appId, (a.payload as { expiryMs: number }).expiryMs]);
    expect(lifetimes).toEqual([
      [first, T0 + 600_000],
      [second, T0 + 600_000],
    ]);
  });

  it('does not call a job lost whose ended first app the RM no longer lists, between apps', async () => {
    const s = setup();
    const { sidecar, rm, ledger, clock } = s;
    const { id, tags, first } = await firstAppEnded(s);
    // The RM keeps a bounded list of finished apps: the first ages out of it.
    rm.apps.delete(first);
    await sidecar.runOnce();
    await sidecar.runOnce();
    expect(ledger.getJob(id)).toMatchObject({ state: 'running', outcome: null });
    clock.advance(5);
    const second = rm.external(tags, 'realtime', clock.now());
    await sidecar.runOnce();
    rm.run(second);
    await sidecar.runOnce();
    expect(ledger.appsOf(id).map((a) => a.appId)).toEqual([first, second]);
    // The second app vanishes while it runs (an RM restarted without recovery): that is a loss.
    rm.forgetApps();
    await sidecar.runOnce();
    expect(ledger.getJob(id)).toMatchObject({ state: 'lost' });
    expect(ledger.decisionsOf(id).at(-1)).toMatchObject({ decision: 'lost', detail: { app: second } });
  });

  it('keeps the job open while the client reports itself, and a failed client fails the job', async () => {
    const s = setup({ ttlSeconds: 120 });
    const { sidecar, ledger, clock } = s;
    const { id } = await firstAppEnded(s);
    for (let i = 0; i < 5; i++) {
      clock.advance(60);
      await sidecar.reportClient(id, { state: 'running' }, 'ci');
      await sidecar.runOnce();
    }
    expect(ledger.getJob(id)!.state).toBe('running');
    // Heartbeats are not decisions: one report of running, then the exit.
    await sidecar.reportClient(id, { state: 'exited', exitCode: 2 }, 'ci');
    await sidecar.reportClient(id, { state: 'exited', exitCode: 0 }, 'ci');
    await sidecar.runOnce();
    expect(ledger.getJob(id)).toMatchObject({ state: 'failed', outcome: null });
    expect(ledger.getTicket(id)!.client).toMatchObject({ state: 'exited', exitCode: 2 });
    expect(
      ledger
        .decisionsOf(id)
        .map((x) => x.decision)
        .filter((x) => x.startsWith('client')),
    ).toEqual(['client-running', 'client-exited']);
  });

  it('loses nothing and repeats nothing when the sidecar restarts between the two apps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'yss-multiapp-'));
    try {
      const now = { ms: T0 };
      const rm = new FakeRm();
      const path = join(dir, 'ledger.db');
      const one = setup({ rm, now, ledger: SqliteLedger.open(path, { clock: () => now.ms }) });
      const { id, tags, first } = await firstAppEnded(one);
      one.ledger.close();
      // A new sidecar on the same ledger: the first app is read again, the job still between apps.
      const two = setup({ rm, now, ledger: SqliteLedger.open(path, { clock: () => now.ms }) });
      await two.sidecar.runOnce();
      await two.sidecar.runOnce();
      expect(two.ledger.getJob(id)).toMatchObject({ state: 'running', outcome: null });
      two.clock.advance(5);
      const second = rm.external(tags, 'default', two.clock.now());
      await two.sidecar.runOnce();
      rm.run(second);
      await two.sidecar.runOnce();
      two.clock.advance(50);
      rm.finish(second, two.clock.now());
      await two.sidecar.reportClient(id, { state: 'exited', exitCode: 0 }, 'ci');
      await two.sidecar.runOnce();
      await two.sidecar.runOnce();
      const d = two.sidecar.getJob(id) as unknown as Detail;
      expect(d).toMatchObject({ state: 'finished', outcome: 'met' });
      expect(d.apps.map((a) => [a.id, a.queue, a.state])).toEqual([
        [first, 'root.realtime', 'FINISHED'],
        [second, 'root.realtime', 'FINISHED'],
      ]);
      // Each decision once, and one move (the second app's), across the restart.
      expect(d.decisions.map((x) => x.decision)).toEqual([
        'admitted',
        'client-running',
        'ticket-bound',
        'app-ended',
        'app-bound',
        'client-exited',
        'app-ended',
        'apps-ended',
      ]);
      expect(d.actions.map((a) => [a.kind, a.payload.appId, a.status])).toEqual([
        ['move-queue', second, 'done'],
        ['set-priority', second, 'done'],
      ]);
      expect(rm.writes.filter((w) => w.includes('move'))).toHaveLength(1);
      two.ledger.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('judges a ticket whose client reported nothing on its first app, and a later app is not its own', async () => {
    const { sidecar, rm, ledger, clock, submit } = setup();
    await sidecar.runOnce();
    const answer = await submit({ deadline: 600 });
    const first = rm.external(answer.ticket.tags, 'realtime', clock.now());
    await sidecar.runOnce();
    rm.run(first);
    await sidecar.runOnce();
    clock.advance(30);
    rm.finish(first, clock.now());
    await sidecar.runOnce();
    expect(ledger.getJob(answer.id)).toMatchObject({ state: 'finished', outcome: 'met' });
    const d = sidecar.getJob(answer.id) as unknown as Detail;
    expect(d.apps.map((a) => a.id)).toEqual([first]);
    expect(d.ticket!.client).toBeNull();
    // An app with the same tag afterwards is decided on its own (discovered), as before.
    const later = rm.external(answer.ticket.tags, 'default', clock.now());
    await sidecar.runOnce();
    expect(ledger.jobOfApp(later)).toBeUndefined();
    expect(ledger.getJob(answer.id)!.state).toBe('finished');
    expect(sidecar.listJobs({}).total).toBe(2);
  });

  it('refuses a report for a job that is no ticket, and an unknown job', async () => {
    const { sidecar, submit } = setup();
    await sidecar.runOnce();
    const rest = await submit({
      deadline: 600,
      yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 30' } } },
    });
    expect(rest.decision).toBe('admitted');
    await expect(sidecar.reportClient(rest.id, { state: 'running' }, 'ci')).rejects.toThrow(/is no ticket/);
    await expect(sidecar.reportClient('dl-none', { state: 'running' }, 'ci')).rejects.toThrow(
      /no job dl-none/,
    );
  });
});

describe('a job of several apps as learning and feedback read it', () => {
  it('reads the tasks of every app, in the order the apps were bound', async () => {
    const task = (id: string, type: 'MAP' | 'REDUCE', finishTime: number) =>
      ({ id, type, state: 'SUCCEEDED', startTime: finishTime - 1000, finishTime }) as TaskReport;
    const byApp: Record<string, TaskReport[]> = {
      app_1: [task('m1', 'MAP', 10_000), task('r1', 'REDUCE', 20_000)],
      app_2: [task('m2', 'MAP', 30_000), task('r2', 'REDUCE', 40_000)],
    };
    const read: string[] = [];
    const tasks = await tasksOfApps(
      async (id) => {
        read.push(id);
        return byApp[id]!;
      },
      ['app_1', 'app_2'],
    );
    expect(read).toEqual(['app_1', 'app_2']);
    expect(tasks.map((t) => t.id)).toEqual(['m1', 'r1', 'm2', 'r2']);
  });

  it("counts each of the job's slots busy until the latest of its tasks' finishes", () => {
    const actuals = { mapFinishTimes: [10, 30, 20], reduceFinishTimes: [25, 40], finishedAt: 41 };
    expect(foldActuals(actuals, 2, 1)).toEqual({
      mapFinishTimes: [30, 20],
      reduceFinishTimes: [40],
      finishedAt: 41,
    });
    // A job of one app, its counts as declared: unchanged.
    expect(foldActuals(actuals, 3, 2)).toEqual(actuals);
  });
});
