/**
 * Per-queue default deadlines (admission.queueDefaults): a submission without `deadline` to a
 * queue with a default gets it from its arrival, and the answer, the job's ledger row, its
 * decision and its view say so; without a default it is refused, naming the field and why.
 */
import { SidecarMetrics } from '../../src/metrics';
import { parseSubmission } from '../../src/model/deadline-submission';
import type { JobDetailView } from '../../src/model/job-views';
import { buildConfig } from '../../src/config/load';
import { defaultRegistry } from '../../src/core/registry';
import { ValidationError } from '../../src/errors/validation';
import { silentLogger } from '../../src/log';
import { Sidecar } from '../../src/loop/sidecar';
import { SqliteLedger } from '../../src/store/ledger';
import { FakeRm } from './fake-rm';
import { SLEEP_AM } from '../yarn-submission';

/** No per-task floor (docs/estimates.md): the figures here are worked out in seconds per MB alone. */
// The papers' arithmetic: no per-task floor, no time outside the tasks (amContainers 0 beside it).
const NO_FLOOR = { mapTaskSeconds: 0, reduceTaskSeconds: 0, setupSeconds: 0, commitSeconds: 0 };

const T0 = Date.parse('2026-11-22T08:00:00Z');
const MB = 1024 * 1024;

function setup(queueDefaults: Record<string, { deadlineSeconds: number }>) {
  const now = T0;
  const config = buildConfig({
    admission: {
      initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1, ...NO_FLOOR },
      amContainers: 0,
      profiles: { enabled: false },
      queueDefaults,
    },
  });
  const rm = new FakeRm();
  const ledger = SqliteLedger.open(':memory:', { clock: () => now });
  let n = 0;
  const sidecar = new Sidecar({
    config,
    rm: rm.api(),
    ledger,
    registry: defaultRegistry(),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    now: () => now,
    newId: () => `dl-${++n}`,
  });
  // 8 maps of 128 MB and one reduce: 115.2 s in the real-time queue's 8 containers.
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
        now,
      ),
      { submitter: 'ci', idempotencyKey: key, requestHash: JSON.stringify(body) },
    );
  return { sidecar, ledger, submit };
}

type Answer = Record<string, unknown> & { id: string; decision: string; deadline: string };

const DEFAULTS = {
  realtime: { deadlineSeconds: 3600 },
  // By path: a submission naming the queue `besteffort` finds it through the RM's queue list.
  'root.besteffort': { deadlineSeconds: 60 },
};

describe('per-queue default deadlines', () => {
  it('gives a submission without a deadline its queue default, and says so in the answer, the ledger and the view', async () => {
    const { sidecar, ledger, submit } = setup(DEFAULTS);
    await sidecar.runOnce();
    const res = await submit({});
    const body = res.body as Answer;
    expect(res.status).toBe(201);
    expect(body).toMatchObject({
      decision: 'admitted',
      queue: 'realtime',
      deadline: '2026-11-22T09:00:00.000Z',
      deadlineSource: 'queue-default',
      defaultDeadlineSeconds: 3600,
      slackSeconds: 3600 - 115.2,
    });
    const row = ledger.getJob(body.id)!;
    expect(row.deadlineMs).toBe(T0 + 3_600_000);
    expect(row.spec).toMatchObject({
      deadline: '2026-11-22T09:00:00.000Z',
      deadlineSource: 'queue-default',
      defaultDeadlineSeconds: 3600,
    });
    const view = sidecar.getJob(body.id) as JobDetailView;
    expect(view.deadlineSource).toBe('queue-default');
    expect(view.decisions[0]!.detail).toMatchObject({
      deadlineSource: 'queue-default',
      defaultDeadlineSeconds: 3600,
    });
  });

  it('keeps a deadline the request gives, even where the queue has a default', async () => {
    const { sidecar, submit } = setup(DEFAULTS);
    await sidecar.runOnce();
    const body = (await submit({ deadline: 600 })).body as Answer;
    expect(body).toMatchObject({ deadline: '2026-11-22T08:10:00.000Z', deadlineSource: 'request' });
    expect(body).not.toHaveProperty('defaultDeadlineSeconds');
    expect((sidecar.getJob(body.id) as JobDetailView).deadlineSource).toBe('request');
  });

  it('finds a default written by queue path, and rejects against it with the usual reason', async () => {
    const { sidecar, submit } = setup(DEFAULTS);
    await sidecar.runOnce();
    // 60 s is too short for the job in the best-effort queue's 6 containers.
    const body = (await submit({ queue: 'besteffort' })).body as Answer;
    expect(body).toMatchObject({
      decision: 'rejected',
      deadline: '2026-11-22T08:01:00.000Z',
      deadlineSource: 'queue-default',
      defaultDeadlineSeconds: 60,
      reason: { kind: 'new-job-misses' },
    });
  });

  it('refuses a submission without a deadline to a queue with no default, naming the field and the queue', async () => {
    const { sidecar, ledger, submit } = setup(DEFAULTS);
    await sidecar.runOnce();
    const err = await submit({ queue: 'default' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      {
        path: 'deadline',
        message: "is required: queue 'default' has no default deadline configured (admission.queueDefaults)",
      },
    ]);
    expect(ledger.listJobs({}).total).toBe(0);
  });

  it('refuses it with no defaults at all, as before', async () => {
    const { sidecar, submit } = setup({});
    await sidecar.runOnce();
    await expect(submit({})).rejects.toThrow(
      "deadline: is required: queue 'realtime' has no default deadline configured",
    );
  });

  it("uses '*' for every queue without its own entry", async () => {
    const { sidecar, submit } = setup({ ...DEFAULTS, '*': { deadlineSeconds: 7200 } });
    await sidecar.runOnce();
    expect((await submit({ queue: 'default', dryRun: true })).body).toMatchObject({
      deadline: '2026-11-22T10:00:00.000Z',
      defaultDeadlineSeconds: 7200,
    });
    // Its own entry still wins over '*'.
    expect((await submit({ dryRun: true })).body).toMatchObject({ defaultDeadlineSeconds: 3600 });
  });

  it('answers a retried request without a deadline with the first answer', async () => {
    const { sidecar, ledger, submit } = setup(DEFAULTS);
    await sidecar.runOnce();
    const first = await submit({}, 'nightly-1');
    const again = await submit({}, 'nightly-1');
    expect(again).toEqual(first);
    expect(ledger.listJobs({}).total).toBe(1);
  });
});
