import { SidecarMetrics } from '../../src/metrics';
import { Enforcer } from '../../src/enforce/enforcer';
import type { SubmitPayload } from '../../src/enforce/outbox';
import { LedgerUnavailableError } from '../../src/errors/ledger-unavailable';
import { RmRemoteError } from '../../src/errors/rm-remote';
import { RmUnavailableError } from '../../src/errors/rm-unavailable';
import { silentLogger } from '../../src/log';
import { SqliteLedger } from '../../src/store/ledger';
import type { ResourceManagerApi } from '../../src/yarn/api';
import type { AppSubmission } from '../../src/yarn/submission';
import { jobRecord } from '../store/builders';
import { amCommand } from '../../src/yarn/submission';
import { SLEEP_AM } from '../yarn-submission';

/** An RM held in memory that counts writes and can be told to fail the next calls. */
class FakeRm {
  apps = new Map<string, { queue: string; priority: number; submission: AppSubmission }>();
  writes: string[] = [];
  nextId = 1;
  failNext: Array<'unavailable' | 'after-write'> = [];

  private maybeFail(): void {
    if (this.failNext[0] !== 'unavailable') return;
    this.failNext.shift();
    throw new RmUnavailableError('connection refused', { addresses: ['http://rm:8088'] });
  }
  private maybeLoseAnswer(): void {
    // The write took effect, but the answer never came back (a timeout after the RM acted).
    if (this.failNext[0] === 'after-write') {
      this.failNext.shift();
      throw new RmUnavailableError('socket hang up', { addresses: ['http://rm:8088'] });
    }
  }
  notFound(appId: string): never {
    throw new RmRemoteError({
      status: 404,
      exception: 'NotFoundException',
      javaClassName: 'x',
      message: `app ${appId} not found`,
      url: '',
    });
  }
  api(): ResourceManagerApi {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the object literal below has its own `this`
    const self = this;
    return {
      async newApplication() {
        self.maybeFail();
        self.writes.push('new-application');
        return {
          applicationId: `application_1_${String(self.nextId++).padStart(4, '0')}`,
          maximumResourceCapability: { memoryMB: 8192, vcores: 4, extra: {} },
        };
      },
      async submitApp(s: AppSubmission) {
        self.maybeFail();
        self.writes.push(`submit ${s.applicationId}`);
        self.apps.set(s.applicationId, {
          queue: s.queue ?? 'default',
          priority: s.priority ?? 0,
          submission: s,
        });
        self.maybeLoseAnswer();
        return { status: 202, location: undefined };
      },
      async app(appId: string) {
        self.maybeFail();
        if (!self.apps.has(appId)) self.notFound(appId);
        return { id: appId } as never;
      },
      async appPriority(appId: string) {
        self.maybeFail();
        return self.apps.get(appId)?.priority ?? self.notFound(appId);
      },
      async setAppPriority(appId: string, priority: number) {
        self.maybeFail();
        const app = self.apps.get(appId) ?? self.notFound(appId);
        self.writes.push(`priority ${appId} ${priority}`);
        app.priority = Math.min(priority, 10);
        self.maybeLoseAnswer();
        return app.priority;
      },
      async appQueue(appId: string) {
        self.maybeFail();
        return `root.${(self.apps.get(appId) ?? self.notFound(appId)).queue}`;
      },
      async moveApp(appId: string, queue: string) {
        self.maybeFail();
        const app = self.apps.get(appId) ?? self.notFound(appId);
        self.writes.push(`move ${appId} ${queue}`);
        app.queue = queue;
        return { queue: `root.${queue}`, moved: true };
      },
    } as unknown as ResourceManagerApi;
  }
}

const submit = (id: string): SubmitPayload => ({
  sidecarId: id,
  name: `job ${id}`,
  user: 'alice',
  queue: 'realtime',
  priority: 5,
  labelExpression: 'gpu',
  tags: [`sidecar-id:${id}`, 'maps:4'],
  applicationType: 'MAPREDUCE',
  request: { am: amCommand('sleep 300') },
});

function setup(shadow = false, maxWritesPerCycle = 100) {
  const ledger = SqliteLedger.open(':memory:', { clock: () => 1_000 });
  const rm = new FakeRm();
  const enforcer = new Enforcer({ rm: rm.api(), ledger, logger: silentLogger(), shadow, maxWritesPerCycle });
  const addJob = (id: string) => {
    ledger.transaction(() => {
      ledger.insertJob(jobRecord(id));
      Enforcer.enqueue(ledger, id, { kind: 'submit', payload: submit(id) });
    });
  };
  return { ledger, rm, enforcer, addJob };
}

describe('the enforcer and the ledger barrier', () => {
  /** The ledger of setup() whose flush is recorded among the RM's writes, and can be made to fail. */
  function withBarrier() {
    const s = setup();
    const flushes = { fail: false, calls: 0 };
    const inner = s.ledger.flush.bind(s.ledger);
    s.ledger.flush = () => {
      flushes.calls++;
      s.rm.writes.push('flush');
      return flushes.fail
        ? Promise.reject(new LedgerUnavailableError('PostgreSQL did not commit in time', { waitedMs: 5_000 }))
        : inner();
    };
    return { ...s, flushes };
  }

  it('makes the action and its attempt durable before the RM call', async () => {
    const { rm, enforcer, addJob, ledger } = withBarrier();
    addJob('a');
    await enforcer.drain();
    expect(rm.writes).toEqual(['new-application', 'flush', 'submit application_1_0001']);
    expect(ledger.actionsOf('a')).toMatchObject([{ status: 'done', attempts: 1 }]);
  });

  it('leaves the action pending, and calls nothing, when the ledger cannot make its record durable', async () => {
    const { rm, enforcer, addJob, ledger, flushes } = withBarrier();
    addJob('a');
    addJob('b');
    flushes.fail = true;
    const result = await enforcer.drain();
    expect(result).toMatchObject({ done: 0, failed: 0 });
    expect(result.deferred).toBe(2);
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toEqual([]);
    expect(ledger.pendingActions().map((a) => a.jobId)).toEqual(['a', 'b']);
    // Once the ledger answers again, the next drain sends them (an attempt was counted: the
    // RM is read first).
    flushes.fail = false;
    expect(await enforcer.drain()).toMatchObject({ done: 2, deferred: 0 });
    expect(ledger.pendingActions()).toEqual([]);
  });
});

describe('the enforcer', () => {
  it('submits an admitted job: asks for an id, records it, then submits with queue, priority, label and tags', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 0 });
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
    const sent = rm.apps.get('application_1_0001')!.submission;
    expect(sent).toMatchObject({
      queue: 'realtime',
      priority: 5,
      appNodeLabelExpression: 'gpu',
      tags: ['sidecar-id:a', 'maps:4'],
    });
    expect(ledger.getJob('a')).toMatchObject({ appId: 'application_1_0001', state: 'submitted' });
    expect(ledger.actionsOf('a').map((x) => x.status)).toEqual(['done']);
  });

  it('does not submit twice when the RM took the submission but the answer was lost', async () => {
    const { ledger, rm, addJob } = setup();
    addJob('a');
    // First drain: new-application ok, submit acted on by the RM but its answer lost.
    const api = rm.api();
    const originalSubmit = api.submitApp.bind(api);
    let lose = true;
    (api as { submitApp: typeof api.submitApp }).submitApp = async (s) => {
      const r = await originalSubmit(s);
      if (lose) {
        lose = false;
        throw new RmUnavailableError('socket hang up', { addresses: ['http://rm:8088'] });
      }
      return r;
    };
    const e2 = new Enforcer({
      rm: api,
      ledger,
      logger: silentLogger(),
      shadow: false,
      maxWritesPerCycle: 10,
    });
    expect(await e2.drain()).toEqual({ done: 0, failed: 0, skipped: 0, deferred: 1 });
    expect(ledger.getAction(1)).toMatchObject({ status: 'pending', attempts: 1, error: 'socket hang up' });
    // Second drain: the enforcer reads the app first, finds it, and marks the action done.
    expect(await e2.drain()).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 0 });
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
    expect(ledger.getAction(1)!.result).toEqual({ appId: 'application_1_0001', reconciled: true });
  });

  it('after a crash between new-application and submit, submits under the recorded id once', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    ledger.updateJob('a', { appId: 'application_1_0099' }); // the id was recorded, then the process died
    await enforcer.drain();
    expect(rm.writes).toEqual(['submit application_1_0099']);
  });

  it("keeps a write pending while the RM is unreachable, sends the other jobs' meanwhile, and each once when it is back", async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    addJob('b');
    rm.failNext = ['unavailable'];
    // a's new-application found the RM unreachable; b's chain went on.
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 1 });
    expect(ledger.pendingActions().map((x) => x.jobId)).toEqual(['a']);
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 0 });
    expect(rm.writes).toEqual([
      'new-application',
      'submit application_1_0001',
      'new-application',
      'submit application_1_0002',
    ]);
    expect(ledger.getJob('a')!.appId).toBe('application_1_0002');
  });

  it("keeps one job's writes in order: its later writes wait for the one that did not get through", async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    await enforcer.drain();
    Enforcer.enqueue(ledger, 'a', {
      kind: 'set-priority',
      payload: { appId: 'application_1_0001', priority: 7 },
    });
    Enforcer.enqueue(ledger, 'a', {
      kind: 'move-queue',
      payload: { appId: 'application_1_0001', queue: 'besteffort' },
    });
    rm.failNext = ['unavailable'];
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 0, skipped: 0, deferred: 2 });
    expect(await enforcer.drain()).toEqual({ done: 2, failed: 0, skipped: 0, deferred: 0 });
    expect(rm.writes.slice(2)).toEqual([
      'priority application_1_0001 7',
      'move application_1_0001 besteffort',
    ]);
    expect(ledger.getJob('a')).toMatchObject({ priority: 7, queue: 'besteffort' });
  });

  it("shows a ticket's later app in the queue the RM moved it to, before the app is read again", async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    await enforcer.drain();
    // The client's second app, seen in the default queue and bound to the job.
    const later = 'application_1_0099';
    rm.apps.set(later, { queue: 'default', priority: 0, submission: submit('a') as never });
    ledger.trackJobApp('a', {
      appId: later,
      state: 'RUNNING',
      finalStatus: null,
      queue: 'root.default',
      startedMs: 2_000,
      finishedMs: null,
    });
    Enforcer.enqueue(ledger, 'a', { kind: 'move-queue', payload: { appId: later, queue: 'realtime' } });
    expect(await enforcer.drain()).toMatchObject({ done: 1, failed: 0 });
    expect(rm.writes.at(-1)).toBe(`move ${later} realtime`);
    // (The first app is tracked by the reconciler, which this test leaves out.)
    expect(ledger.appsOf('a').map((x) => [x.appId, x.queue, x.state, x.startedMs])).toEqual([
      [later, 'root.realtime', 'RUNNING', 2_000],
    ]);
    // The job's own queue is its first app's, which did not move.
    expect(ledger.getJob('a')!.queue).toBe('realtime');
  });

  it('stops a drain after three writes in a row found the RM unreachable, leaving every write pending', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) addJob(id);
    rm.failNext = Array.from({ length: 10 }, () => 'unavailable' as const);
    const one = new Enforcer({
      rm: rm.api(),
      ledger,
      logger: silentLogger(),
      shadow: false,
      maxWritesPerCycle: 100,
      concurrency: 1,
    });
    expect(await one.drain()).toEqual({ done: 0, failed: 0, skipped: 0, deferred: 6 });
    // Three calls, then nothing more for this cycle.
    expect(rm.failNext).toHaveLength(7);
    expect(ledger.pendingActions()).toHaveLength(6);
    void enforcer;
  });

  it('leaves what its time budget did not reach for the next drain, and publishes the backlog', async () => {
    const { ledger, rm, addJob } = setup();
    for (const id of ['a', 'b', 'c', 'd']) addJob(id);
    let t = 0;
    const metrics = new SidecarMetrics();
    const budgeted = new Enforcer({
      rm: rm.api(),
      ledger,
      logger: silentLogger(),
      metrics,
      shadow: false,
      maxWritesPerCycle: 100,
      concurrency: 1,
      drainBudgetMs: 1_200,
      // Every look at the clock finds half a second gone: the budget lets two writes start.
      clock: () => (t += 500),
      wallClock: () => 31_000,
    });
    const first = await budgeted.drain();
    expect(first).toEqual({ done: 2, failed: 0, skipped: 0, deferred: 2 });
    const gauge = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values[0]!.value;
    expect(await gauge('yss_pending_actions')).toBe(first.deferred);
    // The ledger's clock stamped every action at 1,000 ms: 30 s ago.
    expect(await gauge('yss_oldest_pending_action_age_seconds')).toBe(30);
    t = 0;
    expect((await budgeted.drain()).done).toBe(first.deferred);
    expect(await gauge('yss_pending_actions')).toBe(0);
    expect(await gauge('yss_oldest_pending_action_age_seconds')).toBe(0);
  });

  it('answers a drain asked for while one runs with the drain after it, which sees the newer writes', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    const running = enforcer.drain();
    addJob('b');
    const asked = await enforcer.drain();
    expect(await running).toMatchObject({ done: 1 });
    expect(asked).toMatchObject({ done: 1, deferred: 0 });
    expect(ledger.pendingActions()).toEqual([]);
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toHaveLength(2);
  });

  it("carries out several jobs' chains at once", async () => {
    const { ledger, rm, addJob } = setup();
    for (const id of ['a', 'b', 'c', 'd']) addJob(id);
    const api = rm.api();
    let inFlight = 0;
    let most = 0;
    const slow = {
      ...api,
      newApplication: async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return api.newApplication();
      },
    } as ResourceManagerApi;
    const e = new Enforcer({
      rm: slow,
      ledger,
      logger: silentLogger(),
      shadow: false,
      maxWritesPerCycle: 100,
    });
    expect(await e.drain()).toMatchObject({ done: 4 });
    expect(most).toBe(4);
    expect(new Set([...rm.apps.values()].map((a) => a.submission.name))).toEqual(
      new Set(['job a', 'job b', 'job c', 'job d']),
    );
  });

  it('reconciles a priority change whose answer was lost instead of sending it again', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    addJob('a');
    await enforcer.drain();
    Enforcer.enqueue(ledger, 'a', {
      kind: 'set-priority',
      payload: { appId: 'application_1_0001', priority: 8 },
    });
    rm.failNext = ['after-write'];
    expect((await enforcer.drain()).deferred).toBe(1);
    expect((await enforcer.drain()).done).toBe(1);
    expect(rm.writes.filter((w) => w.startsWith('priority'))).toEqual(['priority application_1_0001 8']);
  });

  it('marks an action the RM refuses (unknown app) as failed and goes on with the next', async () => {
    const { ledger, rm, enforcer, addJob } = setup();
    Enforcer.enqueue(ledger, null, {
      kind: 'move-queue',
      payload: { appId: 'application_9_0001', queue: 'besteffort' },
    });
    addJob('a');
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 1, skipped: 0, deferred: 0 });
    expect(ledger.getAction(1)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('404 NotFoundException'),
    });
    expect(rm.writes).toHaveLength(2);
  });

  it('writes nothing in shadow mode and marks every action skipped', async () => {
    const { ledger, rm, enforcer, addJob } = setup(true);
    addJob('a');
    addJob('b');
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 0, skipped: 2, deferred: 0 });
    expect(rm.writes).toEqual([]);
    expect(ledger.actionsOf('a')[0]!.result).toEqual({ shadow: true });
  });

  it('stops at the per-cycle write limit and carries the rest over', async () => {
    const { ledger, rm, enforcer, addJob } = setup(false, 2);
    for (const id of ['a', 'b', 'c']) addJob(id);
    expect(await enforcer.drain()).toEqual({ done: 2, failed: 0, skipped: 0, deferred: 1 });
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 0, skipped: 0, deferred: 0 });
    expect(rm.writes.filter((w) => w.startsWith('submit'))).toHaveLength(3);
    expect(ledger.pendingActions()).toEqual([]);
  });

  it('shares one drain between concurrent callers, so no action is sent twice', async () => {
    const { rm, enforcer, addJob } = setup();
    addJob('a');
    const [r1, r2] = await Promise.all([enforcer.drain(), enforcer.drain()]);
    // The second caller is answered by the drain after the first: nothing was left for it.
    expect([r1.done, r2.done]).toEqual([1, 0]);
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
  });
});

describe('the enforcer and rows that do not decode', () => {
  /** An enforcer with metrics, over setup()'s ledger and RM. */
  function withMetrics(shadow = false) {
    const s = setup(shadow);
    const metrics = new SidecarMetrics();
    const enforcer = new Enforcer({
      rm: s.rm.api(),
      ledger: s.ledger,
      logger: silentLogger(),
      metrics,
      shadow,
      maxWritesPerCycle: 100,
    });
    const writes = async (status: string) =>
      (await metrics.registry.getSingleMetric('yss_rm_writes_total')!.get()).values
        .filter((v) => v.labels.status === status)
        .reduce((n, v) => n + v.value, 0);
    return { ...s, enforcer, writes };
  }

  it('marks a row whose payload does not decode failed, naming it and the field, and never reads it again', async () => {
    const { ledger, rm, enforcer, addJob, writes } = withMetrics();
    const bad = ledger.enqueueAction(null, 'set-priority', { appId: 'application_1_0009', priority: 'high' });
    addJob('a');
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 1, skipped: 0, deferred: 0 });
    const row = ledger.getAction(bad.id)!;
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(
      new RegExp(`^outbox action ${bad.id} \\(set-priority\\) cannot be read: payload\\.priority: `),
    );
    expect(row.result).toMatchObject({
      invalid: {
        code: 'OUTBOX_ACTION_INVALID',
        issues: [expect.objectContaining({ path: 'payload.priority' })],
      },
    });
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
    expect(await writes('invalid')).toBe(1);
    // Not pending any more: the next drain neither sends it nor counts it again.
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 0, skipped: 0, deferred: 0 });
    expect(await writes('invalid')).toBe(1);
    expect(rm.writes).toHaveLength(2);
  });

  it("lets a job's later writes go on after one of its rows failed to decode", async () => {
    const { ledger, rm, enforcer } = withMetrics();
    ledger.transaction(() => {
      ledger.insertJob(jobRecord('a'));
      ledger.enqueueAction('a', 'reserve', { queue: 'realtime' });
      Enforcer.enqueue(ledger, 'a', { kind: 'submit', payload: submit('a') });
    });
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 1, skipped: 0, deferred: 0 });
    expect(ledger.actionsOf('a').map((x) => [x.kind, x.status])).toEqual([
      ['reserve', 'failed'],
      ['submit', 'done'],
    ]);
    expect(ledger.actionsOf('a')[0]!.error).toContain('payload.definition');
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
  });

  it('fails a row of an unknown kind, saying which kinds there are', async () => {
    const { ledger, rm, enforcer } = withMetrics();
    const row = ledger.enqueueAction(null, 'kill-app', { appId: 'application_1_0001' });
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 1, skipped: 0, deferred: 0 });
    expect(ledger.getAction(row.id)!.error).toBe(
      `outbox action ${row.id} (kill-app) cannot be read: kind: is not an action kind (submit, set-priority, move-queue, set-lifetime, reserve)`,
    );
    expect(rm.writes).toEqual([]);
  });

  it('fails an unreadable row in shadow mode too, and skips the rest', async () => {
    const { ledger, enforcer, addJob } = withMetrics(true);
    const bad = ledger.enqueueAction(null, 'move-queue', { appId: 'application_1_0001' });
    addJob('a');
    expect(await enforcer.drain()).toEqual({ done: 0, failed: 1, skipped: 1, deferred: 0 });
    expect(ledger.getAction(bad.id)!.error).toContain('payload.queue');
  });

  it("reads an old row's raw yarnSubmission into the request, and fails one without an AM command unsent", async () => {
    const { ledger, rm, enforcer } = withMetrics();
    const { request: _request, ...typed } = submit('old');
    const { request: _r, ...broken } = submit('broken');
    ledger.transaction(() => {
      ledger.insertJob(jobRecord('old'));
      ledger.enqueueAction('old', 'submit', { ...typed, yarnSubmission: SLEEP_AM });
      ledger.insertJob(jobRecord('broken'));
      ledger.enqueueAction('broken', 'submit', { ...broken, yarnSubmission: { 'max-app-attempts': 2 } });
    });
    expect(await enforcer.drain()).toEqual({ done: 1, failed: 1, skipped: 0, deferred: 0 });
    expect(rm.apps.get('application_1_0001')!.submission.am.command).toBe('sleep 300');
    expect(ledger.actionsOf('broken')[0]!.error).toContain('payload.yarnSubmission.am-container-spec');
    // The broken row was never sent: not even an application id was asked for.
    expect(rm.writes).toEqual(['new-application', 'submit application_1_0001']);
  });
});
