import { parseClientReport } from '../../src/model/client-report';
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { ValidationError } from '../../src/errors/validation';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { FakeRm } from './fake-rm';

/**
 * Tickets: a submission without yarnSubmission is admitted before its app exists. The ticket
 * holds the job's place until an app carrying its tag appears (bound), or it expires or is
 * cancelled (its capacity released).
 */

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup(opts: { ledger?: SqliteLedger; rm?: FakeRm; ttlSeconds?: number; start?: number } = {}) {
  let now = opts.start ?? T0;
  const clock = { now: () => now, advance: (s: number) => (now += s * 1000) };
  const config = buildConfig({
    admission: {
      initialEstimates: {
        eta: 1,
        mapSecondsPerMb: 0.1,
        reduceSecondsPerMb: 0.1,
        mapTaskSeconds: 0,
        reduceTaskSeconds: 0,
        setupSeconds: 0,
        commitSeconds: 0,
      },
      amContainers: 0,
      profiles: { enabled: false },
    },
    ...(opts.ttlSeconds === undefined ? {} : { tickets: { ttlSeconds: opts.ttlSeconds } }),
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
    newId: () => `dl-t${opts.start === undefined ? '' : 'r'}${++n}`,
  });
  const submit = (body: Record<string, unknown>) =>
    sidecar.submit(
      parseSubmission(
        { name: 'wordcount', user: 'alice', maps: 8, reduces: 1, inputBytes: 1024 * MB, ...body },
        clock.now(),
      ),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
  return { sidecar, rm, ledger, clock, submit };
}

interface Ticket {
  id: string;
  status: string;
  expiresAt: string;
  queue: string;
  priority: number;
  labelExpression: string | null;
  tags: string[];
  mapreduce: string[];
  spark: string[];
  env: Record<string, string>;
  appId?: string | null;
}
type Body = { id: string; decision: string; ticket?: Ticket };
type Detail = {
  state: string;
  appId: string | null;
  outcome: string | null;
  ticket: Ticket | null;
  decisions: Array<{ decision: string; detail: Record<string, unknown> }>;
};

describe('tickets: admission before submission', () => {
  it('answers an admitted submission without yarnSubmission with a ticket and submits nothing', async () => {
    const { sidecar, rm, submit, ledger } = setup();
    await sidecar.runOnce();
    const res = await submit({ deadline: 600, tags: ['Team:Search'] });
    expect(res.status).toBe(201);
    const body = res.body as Body;
    expect(body.decision).toBe('admitted');
    const tags = [
      'sidecar-id:dl-t1',
      'deadline:2026-11-22T08:10:00.000Z',
      'maps:8',
      'reduces:1',
      `input-bytes:${1024 * MB}`,
      'type:cpu',
      'Team:Search',
    ];
    expect(body.ticket).toEqual({
      id: 'dl-t1',
      status: 'waiting',
      expiresAt: '2026-11-22T08:10:00.000Z',
      queue: 'realtime',
      priority: 10,
      labelExpression: null,
      tags,
      mapreduce: [
        '-Dmapreduce.job.queuename=realtime',
        `-Dmapreduce.job.tags=${tags.join(',')}`,
        '-Dmapreduce.job.priority=10',
      ],
      spark: [
        '--queue',
        'realtime',
        '--conf',
        `spark.yarn.tags=${tags.join(',')}`,
        '--conf',
        'spark.yarn.priority=10',
      ],
      env: {
        YSS_TICKET_ID: 'dl-t1',
        YSS_TICKET_QUEUE: 'realtime',
        YSS_TICKET_TAGS: tags.join(','),
        YSS_TICKET_PRIORITY: '10',
      },
    });
    await sidecar.enforcer.drain();
    expect(rm.writes).toEqual([]);
    expect(ledger.getJob('dl-t1')).toMatchObject({ decision: 'admitted', state: 'accepted', appId: null });
    expect(ledger.getTicket('dl-t1')).toMatchObject({ status: 'waiting', expiresMs: T0 + 600_000 });
    const detail = sidecar.getJob('dl-t1') as unknown as Detail & { position: number };
    expect(detail.position).toBe(1);
    expect(detail.ticket).toMatchObject({ status: 'waiting', appId: null });
  });

  it('gives a GPU ticket the label expression for both clients', async () => {
    const { sidecar, submit } = setup({ rm: new FakeRm(4, 1) });
    await sidecar.runOnce();
    const body = (await submit({ deadline: 3600, jobType: 'gpu' })).body as Body;
    expect(body.ticket!.labelExpression).toBe('gpu');
    expect(body.ticket!.mapreduce).toContain('-Dmapreduce.job.node-label-expression=gpu');
    expect(body.ticket!.spark).toEqual(
      expect.arrayContaining([
        'spark.yarn.am.nodeLabelExpression=gpu',
        'spark.yarn.executor.nodeLabelExpression=gpu',
      ]),
    );
    expect(body.ticket!.env.YSS_TICKET_LABEL_EXPRESSION).toBe('gpu');
  });

  it('binds the app that carries the ticket, lower-cased as the RM stores it, and enforces its queue', async () => {
    const { sidecar, rm, submit, ledger, clock } = setup();
    await sidecar.runOnce();
    const ticket = ((await submit({ deadline: 600 })).body as Body).ticket!;
    clock.advance(4);
    // The client forgot the queue: the app lands in default; its tags come back lower-cased.
    const appId = rm.external(ticket.tags, 'default', clock.now());
    await sidecar.runOnce();
    expect(ledger.getTicket('dl-t1')).toMatchObject({ status: 'bound', appId });
    expect(ledger.getJob('dl-t1')).toMatchObject({ appId, state: 'submitted' });
    expect(rm.apps.get(appId)!.queue).toBe('root.realtime');
    const detail = sidecar.getJob('dl-t1') as unknown as Detail;
    expect(detail.ticket).toMatchObject({ status: 'bound', appId });
    expect(detail.decisions.map((d) => d.decision)).toEqual(['admitted', 'ticket-bound']);
    expect(detail.decisions[1]!.detail).toEqual({ app: appId, waitedSeconds: 4, seenBy: 'poll' });
    // Not discovered as a job of its own, and bound once.
    await sidecar.runOnce();
    expect(sidecar.listJobs({}).total).toBe(1);
    rm.run(appId);
    await sidecar.runOnce();
    rm.finish(appId, clock.now() + 100_000);
    await sidecar.runOnce();
    expect(ledger.getJob('dl-t1')).toMatchObject({ state: 'finished', outcome: 'met' });
  });

  it('expires a ticket whose app never came: its capacity is released for the next job', async () => {
    const { sidecar, submit, ledger, clock, rm } = setup({ ttlSeconds: 60 });
    await sidecar.runOnce();
    expect(((await submit({ deadline: 120 })).body as Body).decision).toBe('admitted');
    // While the ticket holds its place, a newcomer would push it past its deadline.
    const newcomer = { deadline: 100, maps: 1, inputBytes: 128 * MB };
    expect(((await submit({ ...newcomer, dryRun: true })).body as Body).decision).toBe('rejected');
    clock.advance(59);
    await sidecar.runOnce();
    expect(ledger.getTicket('dl-t1')!.status).toBe('waiting');
    clock.advance(1);
    await sidecar.runOnce();
    expect(ledger.getTicket('dl-t1')!.status).toBe('expired');
    expect(ledger.getJob('dl-t1')).toMatchObject({ state: 'expired', finishedMs: T0 + 60_000 });
    expect((sidecar.getJob('dl-t1') as unknown as Detail).decisions.map((d) => d.decision)).toEqual([
      'admitted',
      'ticket-expired',
    ]);
    expect(((await submit(newcomer)).body as Body).decision).toBe('admitted');
    // The expired ticket's app comes late: judged on its own merits as a discovered app, once.
    const late = rm.external(
      [
        'sidecar-id:dl-t1',
        `deadline:${new Date(T0 + 3_600_000).toISOString()}`,
        'maps:2',
        'reduces:1',
        'input-bytes:1000',
      ],
      'default',
      clock.now(),
    );
    await sidecar.runOnce();
    await sidecar.runOnce();
    const found = ledger.getJobByAppId(late)!;
    expect(found).toMatchObject({ id: `dl-${late.replace('application_', '')}`, source: 'discovered' });
    expect(ledger.getJob('dl-t1')).toMatchObject({ state: 'expired', appId: null });
    expect(sidecar.listJobs({}).total).toBe(3);
  });

  it('cancels a waiting ticket, and refuses to cancel anything else with a typed error', async () => {
    const { sidecar, submit, ledger, rm, clock } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 600 });
    const cancelled = (await sidecar.cancelTicket('dl-t1', 'ci')) as Detail;
    expect(cancelled).toMatchObject({ state: 'cancelled', ticket: { status: 'cancelled' } });
    expect(cancelled.decisions.at(-1)).toMatchObject({ decision: 'ticket-cancelled', detail: { by: 'ci' } });
    expect(sidecar.listJobs({ state: 'accepted' }).total).toBe(0);
    await expect(sidecar.cancelTicket('dl-t1', 'ci')).rejects.toMatchObject({
      code: 'TICKET_NOT_WAITING',
      httpStatus: 409,
    });
    await expect(sidecar.cancelTicket('dl-none', 'ci')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      httpStatus: 404,
    });
    // A bound ticket is no longer waiting.
    const t2 = ((await submit({ deadline: 600 })).body as Body).ticket!;
    rm.external(t2.tags, 'realtime', clock.now());
    await sidecar.runOnce();
    await expect(sidecar.cancelTicket('dl-t2', 'ci')).rejects.toThrow(/is bound \(app application_9_0001\)/);
    expect(ledger.getTicket('dl-t2')!.status).toBe('bound');
  });

  it('keeps a waiting ticket and its expiry across a restart', async () => {
    let now = T0;
    const ledger = SqliteLedger.open(':memory:', { clock: () => now });
    const first = setup({ ledger, ttlSeconds: 120 });
    await first.sidecar.runOnce();
    await first.submit({ deadline: 600 });
    now = T0 + 30_000;
    const second = setup({ ledger, ttlSeconds: 120, start: T0 + 30_000 });
    await second.sidecar.runOnce();
    const detail = second.sidecar.getJob('dl-t1') as unknown as Detail & { position: number };
    expect(detail.position).toBe(1);
    expect(detail.ticket).toMatchObject({ status: 'waiting', expiresAt: '2026-11-22T08:02:00.000Z' });
    second.clock.advance(90);
    await second.sidecar.runOnce();
    expect(ledger.getTicket('dl-t1')!.status).toBe('expired');
  });

  it('shows an app that FAILED or was KILLED as failed or killed, neither met nor missed', async () => {
    const { sidecar, submit, ledger, rm, clock } = setup();
    await sidecar.runOnce();
    const t1 = ((await submit({ deadline: 600 })).body as Body).ticket!;
    const app = rm.external(t1.tags, 'realtime', clock.now());
    await sidecar.runOnce();
    rm.finish(app, clock.now() + 1000, 'KILLED');
    await sidecar.runOnce();
    expect(ledger.getJob('dl-t1')).toMatchObject({ state: 'killed', outcome: null });
  });
});

/** An admitted ticket's id and tags. */
async function ticketOf(submit: ReturnType<typeof setup>['submit']): Promise<{ id: string; ticket: Ticket }> {
  const body = (await submit({ deadline: 600 })).body as Body;
  expect(body.decision).toBe('admitted');
  return { id: body.id, ticket: body.ticket! };
}

type ReportDetail = {
  state: string;
  appId: string | null;
  ticket: { status: string; appId: string | null; client: { state: string } | null } | null;
  decisions: Array<{ decision: string; detail: Record<string, unknown> }>;
};

describe("a ticket's client reporting its app", () => {
  it('binds the ticket to the app at once, with no poll in between', async () => {
    const { sidecar, rm, clock, submit } = setup();
    await sidecar.runOnce();
    const t = await ticketOf(submit);
    await sidecar.reportClient(t.id, { state: 'running' }, 'ci');
    clock.advance(3);
    const app = rm.external(t.ticket.tags, 'realtime', clock.now());
    const d = (await sidecar.reportClient(t.id, { state: 'running', appId: app }, 'ci')) as ReportDetail;
    expect(d).toMatchObject({
      state: 'submitted',
      appId: app,
      ticket: { status: 'bound', appId: app, client: { state: 'running' } },
    });
    const bound = d.decisions.find((x) => x.decision === 'ticket-bound')!;
    expect(bound.detail).toEqual({ app, waitedSeconds: 3, seenBy: 'client report' });
    // The next poll finds nothing new to do for it: bound once.
    await sidecar.runOnce();
    const after = sidecar.getJob(t.id) as unknown as ReportDetail;
    expect(after.decisions.filter((x) => x.decision === 'ticket-bound')).toHaveLength(1);
    expect(after.ticket).toMatchObject({ status: 'bound', appId: app });
  });

  it('reads nothing again for an app the job already has', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const t = await ticketOf(submit);
    const app = rm.external(t.ticket.tags, 'realtime', T0);
    await sidecar.runOnce(); // bound by the poll
    const polled = sidecar.getJob(t.id) as unknown as ReportDetail;
    expect(polled.ticket!.status).toBe('bound');
    expect(polled.decisions.find((x) => x.decision === 'ticket-bound')!.detail.seenBy).toBe('poll');
    rm.down = true; // a read of the RM would fail
    const d = (await sidecar.reportClient(t.id, { state: 'running', appId: app }, 'ci')) as ReportDetail;
    expect(d.ticket).toMatchObject({ status: 'bound', appId: app, client: { state: 'running' } });
  });

  it('refuses an app without the ticket’s tag, and one the RM does not know, recording nothing', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const t = await ticketOf(submit);
    const other = rm.external(['sidecar-id:dl-someone-else'], 'realtime', T0);
    const report = (appId: string) => sidecar.reportClient(t.id, { state: 'running', appId }, 'ci');
    await expect(report(other)).rejects.toThrow(ValidationError);
    await expect(report(other)).rejects.toThrow(
      `appId: ${other} does not carry the ticket's tag sidecar-id:${t.id}: it is not this ticket's app`,
    );
    await expect(report('application_9_9999')).rejects.toThrow(
      'appId: the RM knows no app application_9_9999',
    );
    const d = sidecar.getJob(t.id) as unknown as ReportDetail;
    expect(d.ticket).toMatchObject({ status: 'waiting', appId: null, client: null });
    expect(d.decisions.map((x) => x.decision)).not.toContain('client-running');
  });

  it('records the running report when the RM cannot be read, and leaves the binding to the poll', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const t = await ticketOf(submit);
    const app = rm.external(t.ticket.tags, 'realtime', T0);
    rm.down = true;
    const d = (await sidecar.reportClient(t.id, { state: 'running', appId: app }, 'ci')) as ReportDetail;
    expect(d.ticket).toMatchObject({ status: 'waiting', client: { state: 'running' } });
    rm.down = false;
    await sidecar.runOnce();
    expect((sidecar.getJob(t.id) as unknown as ReportDetail).ticket).toMatchObject({
      status: 'bound',
      appId: app,
    });
  });

  it('takes only a YARN application id in the report', () => {
    expect(parseClientReport({ state: 'running', appId: 'application_1700000000000_0001' })).toEqual({
      state: 'running',
      appId: 'application_1700000000000_0001',
    });
    expect(() => parseClientReport({ state: 'running', appId: 'job_1700000000000_0001' })).toThrow(
      /appId.*must be a YARN application id/,
    );
    expect(() => parseClientReport({ state: 'exited', exitCode: 0, appId: 'application_1_1' })).toThrow(
      ValidationError,
    );
  });
});
