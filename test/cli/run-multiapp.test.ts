/**
 * `run` with a client that runs two apps one after the other under the same tags, as Hadoop's
 * grep does (a search, then a sort): the emulated RM and the sidecar as processes on loopback,
 * `run` as a third, and the fake MapReduce client (test/cli/fake-client/hadoop, `apps=2`). Both
 * apps are the job's, both end in the ticket's queue, and the job is judged on the last one once
 * the client has exited.
 */
import { join } from 'node:path';
import {
  MB,
  REPO,
  spawnCli,
  startEmulatorProc,
  startSidecarProc,
  stopAll,
  tempDir,
  TOKEN,
  waitFor,
  waitReady,
  type EmulatorProc,
  type SidecarProc,
} from '../e2e/support/procs';

type JobDetail = {
  state: string;
  outcome: string | null;
  appId: string | null;
  finishedAt: string | null;
  deadline: string;
  betweenApps: boolean;
  apps: Array<{ id: string; state: string | null; queue: string | null; finishedAt: string | null }>;
  ticket: { status: string; client: { state: string; exitCode: number | null } | null } | null;
  decisions: Array<{ decision: string; detail: Record<string, unknown> }>;
};

describe('run with a client of two apps, against the emulated RM', () => {
  let emu: EmulatorProc;
  let sc: SidecarProc;
  let tmp: ReturnType<typeof tempDir>;
  const FAKE = join(REPO, 'test', 'cli', 'fake-client', 'hadoop');

  beforeAll(async () => {
    tmp = tempDir('run-multiapp');
    // At real speed: the apps' times on the RM and the sidecar's clock agree.
    emu = await startEmulatorProc('emulator', ['--speed', '1', '--seed', '3', '--max-priority', '10']);
    sc = await startSidecarProc('sidecar', {
      rmUrls: [emu.url],
      jhsUrl: emu.jhsUrl,
      ledgerPath: join(tmp.dir, 'ledger.db'),
      config: {
        // The emulated RM's apps spend nothing outside their tasks and run no AM in a container.
        admission: {
          initialEstimates: {
            eta: 1,
            mapSecondsPerMb: 0.5,
            reduceSecondsPerMb: 0.5,
            setupSeconds: 0,
            commitSeconds: 0,
          },
          amContainers: 0,
        },
      },
    });
    await waitReady(sc, [sc.proc, emu.proc]);
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    tmp?.cleanup();
  });

  const run = (deadline: string, gapMs: number) =>
    spawnCli(
      'run',
      [
        'run',
        '--deadline',
        deadline,
        '--maps',
        '1',
        '--reduces',
        '1',
        '--input-bytes',
        String(4 * MB),
        '--',
        FAKE,
        'jar',
        'hadoop-mapreduce-examples.jar',
        'grep',
        'apps=2',
        `gap-ms=${gapMs}`,
        'then-queue=default',
      ],
      { YSS_URL: sc.url, YSS_TOKEN: TOKEN, FAKE_RM_URL: emu.url },
    );
  const job = (id: string) => sc.get<JobDetail>(`/api/v1/jobs/${id}`);
  const submitted = (out: string) => [...out.matchAll(/submitted (application_\d+_\d+)/g)].map((m) => m[1]!);

  it('binds both apps to the ticket, keeps the job open between them, and judges it on the last', async () => {
    const p = run('1h', 6000);
    const id = await waitFor('the ticket', () => /admitted as (dl-[0-9a-f]+)/.exec(p.output())?.[1], {
      procs: [p],
    });
    // The first app ended, the client waits before its second: the job is between apps.
    const between = await waitFor(
      'the job to be between apps',
      async () => {
        const j = await job(id);
        return j.betweenApps ? j : undefined;
      },
      { procs: [p], timeoutMs: 30_000 },
    );
    expect(between).toMatchObject({ state: 'running', outcome: null, finishedAt: null });
    expect(between.apps).toHaveLength(1);
    expect(between.ticket!.client).toMatchObject({ state: 'running', exitCode: null });
    expect(await p.exited).toBe(0);
    const [first, second] = submitted(p.output());
    expect(second).toBeDefined();
    const judged = await waitFor(
      'the job to be judged',
      async () => {
        const j = await job(id);
        return j.outcome !== null ? j : undefined;
      },
      { timeoutMs: 30_000, procs: [sc.proc] },
    );
    // Both apps in the ticket's queue on the RM (the second was submitted to default and moved).
    for (const app of [first!, second!]) expect((await emu.rm.app(app)).queue).toMatch(/realtime$/);
    const last = await emu.rm.app(second!);
    expect(judged).toMatchObject({
      state: 'finished',
      outcome: 'met',
      appId: first,
      finishedAt: new Date(last.finishedTime).toISOString(),
      ticket: { status: 'bound', client: { state: 'exited', exitCode: 0 } },
    });
    expect(judged.apps.map((a) => [a.id, a.state, a.queue])).toEqual([
      [first, 'FINISHED', 'root.realtime'],
      [second, 'FINISHED', 'root.realtime'],
    ]);
    expect(judged.decisions.find((d) => d.decision === 'app-bound')!.detail).toEqual({
      app: second,
      ordinal: 2,
    });
    expect(judged.decisions.find((d) => d.decision === 'apps-ended')!.detail).toMatchObject({
      apps: [first, second],
      lastApp: second,
      clientExitCode: 0,
    });
    // One job: the second app was not decided on its own.
    const list = await sc.get<{ jobs: Array<{ id: string; apps: Array<{ id: string }> }> }>('/api/v1/jobs');
    expect(list.jobs.filter((j) => j.apps.some((a) => a.id === second))).toEqual([
      expect.objectContaining({ id }),
    ]);
  }, 90_000);

  it("refuses a client's report that is invalid, unauthenticated, or for no ticket", async () => {
    const put = (path: string, body: string, o: { token?: string | null; type?: string } = {}) =>
      fetch(`${sc.url}/api/v1/jobs/${path}/client`, {
        method: 'PUT',
        headers: {
          'content-type': o.type ?? 'application/json',
          ...(o.token === null ? {} : { authorization: `Bearer ${o.token ?? TOKEN}` }),
        },
        body,
      }).then(async (r) => ({
        status: r.status,
        code: ((await r.json()) as { error: { code: string } }).error.code,
      }));
    const rejected = await sc.submit({
      name: 'too-tight',
      user: 'alice',
      deadline: 2,
      maps: 40,
      reduces: 2,
      inputBytes: 4096 * MB,
    });
    expect(rejected.body.decision).toBe('rejected');
    const id = String(rejected.body.id);
    expect(await put(id, '{"state":"running"}', { token: null })).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(await put(id, '{"state":"gone"}')).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await put(id, '{"state":"exited"}')).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await put(id, 'state=running', { type: 'text/plain' })).toEqual({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    expect(await put('dl-none', '{"state":"running"}')).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(await put(id, '{"state":"exited","exitCode":0}')).toEqual({
      status: 409,
      code: 'TICKET_NOT_WAITING',
    });
  }, 30_000);

  it('judges the job missed when its second app ends after the deadline, though the first ended before', async () => {
    const p = run('25s', 20_000);
    const id = await waitFor('the ticket', () => /admitted as (dl-[0-9a-f]+)/.exec(p.output())?.[1], {
      procs: [p],
    });
    expect(await p.exited).toBe(0);
    const [first, second] = submitted(p.output());
    const judged = await waitFor(
      'the job to be judged',
      async () => {
        const j = await job(id);
        return j.outcome !== null ? j : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const deadlineMs = Date.parse(judged.deadline);
    expect((await emu.rm.app(first!)).finishedTime).toBeLessThanOrEqual(deadlineMs);
    const last = await emu.rm.app(second!);
    expect(last.finishedTime).toBeGreaterThan(deadlineMs);
    expect(judged).toMatchObject({
      state: 'finished',
      outcome: 'missed',
      finishedAt: new Date(last.finishedTime).toISOString(),
    });
  }, 90_000);
});
