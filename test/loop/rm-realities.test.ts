/**
 * What a real RM does that Hadoop's samples do not show, met by the live sidecar: a priority cap
 * of 0 on a stock Hadoop, writes refused for want of a user (401), apps forgotten by an RM that
 * restarted without recovery, and the whole submission context passed through.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { capturingLogger } from '../log-capture';
import { SLEEP_AM } from '../yarn-submission';
import { FakeRm } from './fake-rm';

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup(opts: { rm?: FakeRm; ledger?: SqliteLedger; maxApplicationPriority?: number } = {}) {
  let now = T0;
  const clock = { now: () => now, advance: (s: number) => (now += s * 1000) };
  const config = buildConfig({
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    ...(opts.maxApplicationPriority === undefined
      ? {}
      : { yarn: { maxApplicationPriority: opts.maxApplicationPriority } }),
  });
  const rm = opts.rm ?? new FakeRm();
  const ledger = opts.ledger ?? SqliteLedger.open(':memory:', { clock: () => now });
  const log = capturingLogger();
  const metrics = new SidecarMetrics();
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: rm.api(),
    ledger,
    registry: defaultRegistry(),
    metrics,
    logger: log.logger,
    now: clock.now,
    newId: () => `dl-${++n}`,
  });
  const submit = (body: Record<string, unknown>) =>
    sidecar.submit(
      parseSubmission(
        {
          name: 'report',
          user: 'alice',
          yarnSubmission: SLEEP_AM,
          maps: 1,
          reduces: 1,
          inputBytes: 128 * MB,
          deadline: 3000,
          ...body,
        },
        clock.now(),
      ),
      { submitter: 'ci', requestHash: JSON.stringify(body) },
    );
  return { sidecar, rm, ledger, clock, submit, log, metrics };
}

const priorityWrites = (rm: FakeRm) => rm.writes.filter((w) => w.startsWith('priority ')).length;

describe('the priority cap of a stock Hadoop (yarn.cluster.max-application-priority = 0)', () => {
  it('learns the cap from the capped submissions, warns once, and writes no priority over 6 cycles', async () => {
    const rm = new FakeRm();
    rm.priorityCap = 0;
    const { sidecar, submit, log } = setup({ rm });
    await sidecar.runOnce();
    for (const deadline of [3000, 2000, 2500]) await submit({ deadline });
    for (let i = 0; i < 6; i++) await sidecar.runOnce();
    // Submitted at the assumed cap's EDF priorities; the RM shows 0: that is the cap. Every target is 0
    // from then on, as the RM already shows: no write at all.
    expect(rm.submissions.map((x) => x.priority)).toEqual([10, 10, 9]);
    expect(priorityWrites(rm)).toBe(0);
    expect([...rm.apps.values()].map((a) => a.priority)).toEqual([0, 0, 0]);
    const warnings = log.records.filter((l) => l.level === 'warn').map((l) => String(l.message));
    expect(warnings.filter((m) => m.includes('caps application priorities at 0'))).toHaveLength(1);
    expect((sidecar.cluster() as { rm: { priorityCap: unknown } }).rm.priorityCap).toEqual({
      value: 0,
      source: 'learned',
    });
  });

  it('learns a cap lowered on the RM from the next capped submission, and writes each change once', async () => {
    const rm = new FakeRm();
    const { sidecar, submit, ledger } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    // The admitted job reaches the RM in the background: wait for it.
    await sidecar.enforcer.idle();
    await sidecar.runOnce();
    rm.priorityCap = 4; // lowered on the RM while the sidecar runs
    await submit({ deadline: 2000 }); // submitted at 10, shown as 4: the cap is learned
    await sidecar.enforcer.idle();
    for (let i = 0; i < 6; i++) await sidecar.runOnce();
    const prio = (id: string) => rm.apps.get(ledger.getJob(id)!.appId!)!.priority;
    expect([prio('dl-2'), prio('dl-1')]).toEqual([4, 3]);
    expect(rm.writes.filter((w) => w.startsWith('priority '))).toEqual([
      `priority ${ledger.getJob('dl-1')!.appId!} 3`,
    ]);
  });

  it('tries a priority the RM refused with 503 (no attempt yet) again, 3 times in all, and no more', async () => {
    const rm = new FakeRm();
    const { sidecar, submit, ledger } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await sidecar.runOnce();
    await submit({ deadline: 2000 }); // goes first: dl-1 should drop to 9
    const app1 = ledger.getJob('dl-1')!.appId!;
    rm.priorityRefusals = 5;
    for (let i = 0; i < 6; i++) await sidecar.runOnce();
    expect(rm.writes.filter((w) => w === `priority-refused ${app1}`)).toHaveLength(3);
    expect(priorityWrites(rm)).toBe(0);
    rm.priorityRefusals = 2; // the RM would now take it after two more; the sidecar has given up
    for (let i = 0; i < 3; i++) await sidecar.runOnce();
    expect(rm.writes.filter((w) => w === `priority-refused ${app1}`)).toHaveLength(3);
  });

  it('writes a refused priority once the RM takes it, within the 3 tries', async () => {
    const rm = new FakeRm();
    const { sidecar, submit, ledger } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await sidecar.runOnce();
    await submit({ deadline: 2000 });
    const app1 = ledger.getJob('dl-1')!.appId!;
    rm.priorityRefusals = 1;
    for (let i = 0; i < 4; i++) await sidecar.runOnce();
    expect(rm.writes.filter((w) => w.includes(app1) && w.startsWith('priority'))).toEqual([
      `priority-refused ${app1}`,
      `priority ${app1} 9`,
    ]);
  });

  it("reads the cap from the RM's /conf before writing anything, and then writes nothing", async () => {
    const rm = new FakeRm();
    rm.priorityCap = 0;
    rm.confCap = 0;
    const { sidecar, submit } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await submit({ deadline: 2000 });
    for (let i = 0; i < 5; i++) await sidecar.runOnce();
    expect(priorityWrites(rm)).toBe(0);
    expect(rm.submissions.map((s) => s.priority)).toEqual([0, 0]);
  });

  it('plans the lanes on arrival order while the cap is 0: a late job with an earlier deadline waits', async () => {
    // The same two jobs on a stock RM (cap 0) and on one that takes priorities (cap 10). YARN
    // starts a queue's apps of one priority in the order they came, so with the cap at 0 the
    // second job runs after the first whatever its deadline, and admission must plan it there.
    const run = async (cap: number) => {
      const rm = new FakeRm();
      rm.priorityCap = cap;
      rm.confCap = cap;
      const { sidecar, submit } = setup({ rm });
      await sidecar.runOnce();
      type Body = {
        decision: string;
        estimatedFinish?: string;
        earliestAdmissibleDeadline?: string;
        reason?: unknown;
      };
      const big = (await submit({ maps: 64, reduces: 0, inputBytes: 64 * 128 * MB, deadline: 3000 })) as {
        body: Body;
      };
      const small = (await submit({
        name: 'urgent',
        maps: 1,
        reduces: 0,
        inputBytes: 128 * MB,
        deadline: 60,
      })) as { body: Body };
      const admission = (sidecar.cluster() as { admission: { policy: string; plannedWith: string } })
        .admission;
      return { big: big.body.decision, bigFinish: big.body.estimatedFinish, small: small.body, admission };
    };
    const stock = await run(0);
    const ordered = await run(10);
    expect(stock.admission).toMatchObject({ policy: 'rtmr', plannedWith: 'rtmr-fifo' });
    expect(ordered.admission).toMatchObject({ policy: 'rtmr', plannedWith: 'rtmr' });
    expect([stock.big, ordered.big]).toEqual(['admitted', 'admitted']);
    expect(ordered.small.decision).toBe('admitted');
    expect(stock.small.decision).toBe('rejected');
    // What it is told: it would run behind the first job, and the earliest deadline that allows it.
    const reason = stock.small.reason as { kind: string; estimatedFinish: string };
    expect(reason.kind).toBe('new-job-misses');
    expect(Date.parse(reason.estimatedFinish)).toBeGreaterThan(Date.parse(stock.bigFinish!));
    expect(Date.parse(stock.small.earliestAdmissibleDeadline!)).toBeGreaterThanOrEqual(
      Date.parse(reason.estimatedFinish),
    );
    // With the order written as priorities it goes first and ends well before the first job.
    expect(Date.parse(ordered.small.estimatedFinish!)).toBeLessThanOrEqual(T0 + 60_000);
  });

  it('with a cap of 3, EDF order is written within 1..3 and each app at most once per change', async () => {
    const rm = new FakeRm();
    rm.priorityCap = 3;
    rm.confCap = 3;
    const { sidecar, submit, ledger } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await sidecar.runOnce();
    await submit({ deadline: 2000 }); // goes first: dl-1 drops to 2
    for (let i = 0; i < 5; i++) await sidecar.runOnce();
    const prio = (id: string) => rm.apps.get(ledger.getJob(id)!.appId!)!.priority;
    expect([prio('dl-2'), prio('dl-1')]).toEqual([3, 2]);
    expect(rm.writes.filter((w) => w.startsWith('priority '))).toEqual([
      `priority ${ledger.getJob('dl-1')!.appId!} 2`,
    ]);
  });

  it('a configured cap above the RM’s is lowered to the RM’s', async () => {
    const rm = new FakeRm();
    rm.priorityCap = 5;
    rm.confCap = 5;
    const { sidecar, submit } = setup({ rm, maxApplicationPriority: 10 });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await sidecar.enforcer.idle();
    expect(rm.submissions.map((s) => s.priority)).toEqual([5]);
  });
});

describe('an RM that refuses writes for want of a user (401)', () => {
  it('keeps the actions pending, sends one write per pause, says what to fix once, and reports it on /readyz', async () => {
    const rm = new FakeRm();
    rm.refuseWrites = true;
    const { sidecar, submit, ledger, log } = setup({ rm });
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await submit({ deadline: 2000 });
    for (let i = 0; i < 5; i++) await sidecar.runOnce();
    // One refused call, then writes wait (60 s by the monotonic clock): no storm.
    expect(rm.writes).toEqual(['refused']);
    expect(ledger.pendingActions().map((a) => a.kind)).toEqual(['submit', 'submit']);
    expect(ledger.pendingActions()[0]!.error).toMatch(/401.*set rm.user/);
    const errors = log.records.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(sidecar.readiness()).toMatchObject({
      ready: true,
      writesRefused: expect.stringMatching(/rm.user/),
    });
  });
});

describe('an RM restarted without recovery (it forgot its apps)', () => {
  it('marks the lost job lost, releases its capacity, counts it, and submits nothing again by default', async () => {
    const { sidecar, rm, submit, ledger, metrics } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 3000 });
    await sidecar.runOnce();
    const lane = () =>
      (
        sidecar.cluster() as { admission: { lanes: Array<{ queue: string; label: string; queued: number }> } }
      ).admission.lanes.find((l) => l.queue === 'realtime' && l.label === '')!;
    expect(lane().queued).toBe(1);
    expect(ledger.getJob('dl-1')!.state).toBe('submitted');
    rm.forgetApps();
    const writes = rm.writes.length;
    await sidecar.runOnce();
    await sidecar.runOnce();
    expect(ledger.getJob('dl-1')).toMatchObject({ state: 'lost', outcome: null });
    expect(ledger.decisionsOf('dl-1').map((d) => d.decision)).toEqual(['admitted', 'lost']);
    expect(lane().queued).toBe(0);
    expect(rm.writes.length).toBe(writes);
    expect(await metrics.registry.metrics()).toMatch(/yss_deadline_outcomes_total\{outcome="lost"\} 1/);
  });

  it('decides again and submits a new app where the submission asked for it (resubmitIfLost)', async () => {
    const { sidecar, rm, submit, ledger, clock } = setup();
    await sidecar.runOnce();
    await submit({ deadline: 3000, resubmitIfLost: true });
    await sidecar.runOnce();
    const first = ledger.getJob('dl-1')!.appId!;
    rm.forgetApps();
    clock.advance(100);
    await sidecar.runOnce();
    await sidecar.runOnce();
    const job = ledger.getJob('dl-1')!;
    expect(job.appId).not.toBe(first);
    expect(job.state).toBe('submitted');
    expect(rm.apps.get(job.appId!)!.applicationTags).toContain('sidecar-id:dl-1');
    expect(ledger.decisionsOf('dl-1').map((d) => d.decision)).toEqual(['admitted', 'resubmitted']);
    expect(rm.writes.filter((w) => w.startsWith('submit '))).toHaveLength(2);
  });

  it('does not resubmit a job whose deadline can no longer be met: it is lost, with the reason', async () => {
    const { sidecar, rm, submit, ledger, clock } = setup();
    await sidecar.runOnce();
    // About 51 s of figures (set-up, a map and a reduce of 128 MB, commit), 63 s with the margin.
    await submit({ deadline: 80, resubmitIfLost: true });
    await sidecar.runOnce();
    rm.forgetApps();
    clock.advance(70); // 10 s left for a job of about 63 s
    await sidecar.runOnce();
    expect(ledger.getJob('dl-1')!.state).toBe('lost');
    expect(ledger.decisionsOf('dl-1').map((d) => d.decision)).toEqual([
      'admitted',
      'not-resubmitted',
      'lost',
    ]);
  });
});

describe('the submission context', () => {
  it('reaches the RM whole: launch context, attempts, log aggregation, AM label; the sidecar’s fields over it', async () => {
    const { sidecar, rm, submit } = setup();
    await sidecar.runOnce();
    const yarnSubmission = {
      'am-container-spec': {
        commands: { command: '{{JAVA_HOME}}/bin/java -Xmx256m org.example.AppMaster 1><LOG_DIR>/stdout' },
        'local-resources': {
          entry: [
            {
              key: 'app.jar',
              value: {
                resource: 'hdfs://nn:8020/apps/app.jar',
                type: 'FILE',
                visibility: 'APPLICATION',
                size: 43004,
                timestamp: 1405452071209,
              },
            },
          ],
        },
        environment: { entry: [{ key: 'CLASSPATH', value: '{{CLASSPATH}}<CPS>./*' }] },
        credentials: { secrets: { entry: { key: 'db', value: 'c2VjcmV0' } } },
      },
      resource: { memory: 512, vCores: 1 },
      'max-app-attempts': 1,
      'attempt-failures-validity-interval': 60000,
      'keep-containers-across-application-attempts': true,
      'am-container-node-label-expression': '',
      'log-aggregation-context': { 'log-include-pattern': 'stdout' },
    };
    const answer = await submit({ deadline: 3000, yarnSubmission });
    expect(answer.status).toBe(201);
    await sidecar.runOnce();
    const [sent] = rm.submissions;
    expect(sent).toMatchObject({
      name: 'report',
      queue: 'realtime',
      priority: 10,
      amResource: { memoryMB: 512, vcores: 1 },
      maxAppAttempts: 1,
      attemptFailuresValidityIntervalMs: 60000,
      keepContainersAcrossApplicationAttempts: true,
      amNodeLabelExpression: '',
      logAggregation: { logIncludePattern: 'stdout' },
      am: {
        command: '{{JAVA_HOME}}/bin/java -Xmx256m org.example.AppMaster 1><LOG_DIR>/stdout',
        localResources: {
          'app.jar': {
            resource: 'hdfs://nn:8020/apps/app.jar',
            type: 'FILE',
            visibility: 'APPLICATION',
            size: 43004,
            timestamp: 1405452071209,
          },
        },
        environment: { CLASSPATH: '{{CLASSPATH}}<CPS>./*' },
        credentials: { tokens: {}, secrets: { db: 'c2VjcmV0' } },
      },
    });
    expect(sent!.tags).toContain('sidecar-id:dl-1');
    // The secret is kept for the RM, never shown.
    const shown = JSON.stringify(sidecar.getJob('dl-1'));
    expect(shown).not.toContain('c2VjcmV0');
    expect(shown).toContain('[redacted]');
  });
});
