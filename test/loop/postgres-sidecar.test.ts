/**
 * The sidecar on a PostgreSQL ledger (`ledger.url`), beside the emulated RM, over real HTTP:
 * submissions answer once PostgreSQL holds them, the enforcer's writes reach the RM and their
 * confirmations PostgreSQL, a restart finds everything, the URL's password shows nowhere, and a
 * newer writer taking the ledger over stops the sidecar before it writes anything more.
 */
import { buildConfig } from '../../src/config/load';
import { ManualClock } from '../../src/emulator/clock';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { openPostgresLedger, PostgresLedger } from '../../src/store/postgres';
import { sidecarLogCapture } from '../log-capture';
import { tableRows } from '../store/builders';
import { postgresAvailability, startTestPostgres, type TestPostgres } from '../support/postgres';
import { SLEEP_AM } from '../yarn-submission';

const TOKEN = 'tok-5d1e8b7c3a2f4e6b8d0c1a3e5f7b9d2c';
const MB = 1024 * 1024;
const pg = postgresAvailability();

let server: TestPostgres;
let emulator: RunningEmulator;
const capture = sidecarLogCapture();

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function start(url: string): Promise<RunningSidecar> {
  const config = buildConfig({
    rm: { addresses: [emulator.url], jobHistoryAddress: emulator.jhsUrl, timeoutMs: 5000, retries: 0 },
    admission: { initialEstimates: { eta: 1, mapSecondsPerMb: 0.1, reduceSecondsPerMb: 0.1 } },
    auth: { tokens: [{ name: 'ci', token: TOKEN }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { url, flushTimeoutMs: 10_000 },
    log: { level: 'debug' },
  });
  return startSidecar(config, {
    logger: capture.logger,
    now: () => emulator.time.nowEpochMs(),
    manualPolling: true,
  });
}

function submit(running: RunningSidecar, name: string, key: string): Promise<Response> {
  return fetch(`${running.url}/api/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'idempotency-key': key },
    body: JSON.stringify({
      name,
      user: 'alice',
      deadline: 3600,
      maps: 2,
      reduces: 1,
      inputBytes: 64 * MB,
      yarnSubmission: SLEEP_AM,
    }),
  });
}

if (pg === 'missing-ci') {
  it("has PostgreSQL to run the sidecar on it (CI installs Debian's postgresql)", () => {
    throw new Error(
      'PostgreSQL (initdb, pg_ctl) is not installed; .ci/run installs Debian package postgresql',
    );
  });
}

(pg === 'run' ? describe : describe.skip)('the sidecar on a PostgreSQL ledger', () => {
  jest.setTimeout(120_000);
  beforeAll(async () => {
    server = await startTestPostgres();
    emulator = await startEmulator({ clock: new ManualClock(Date.UTC(2026, 10, 22, 8)), speed: 10, seed: 3 });
  }, 120_000);
  afterAll(async () => {
    await emulator?.close();
    server?.destroy();
  });

  it('records, enforces and restarts from PostgreSQL, never showing its password, and stops once fenced', async () => {
    const url = await server.createDatabase();
    let running = await start(url);
    expect(running.ledger).toBeInstanceOf(PostgresLedger);
    await running.sidecar.runOnce();
    const answers = await Promise.all([1, 2, 3].map((i) => submit(running, `job ${i}`, `k${i}`)));
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const ids = await Promise.all(answers.map(async (r) => ((await r.json()) as { id: string }).id));

    // Answered: PostgreSQL holds each job, its decision, its submit action and its idempotent answer.
    const reader = await openPostgresLedger(url, { writer: 'later' });
    await reader.catchUp();
    for (const id of ids) {
      expect(reader.getJob(id)?.decision).toBe('admitted');
      expect(reader.decisionsOf(id)).toHaveLength(1);
      expect(reader.actionsOf(id).map((a) => a.kind)).toContain('submit');
    }
    expect(reader.findIdempotent('ci', 'k2')?.jobId).toBe(ids[1]);

    // Enforced: the apps are on the RM and their confirmations in PostgreSQL.
    await running.sidecar.runOnce();
    await running.sidecar.runOnceSettled();
    await running.ledger.flush();
    await reader.catchUp();
    for (const id of ids) {
      expect(reader.actionsOf(id).find((a) => a.kind === 'submit')?.status).toBe('done');
      expect(reader.getJob(id)?.appId).toMatch(/^application_/);
    }
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/^yss_ledger_writer 1$/m);
    expect(metrics).toMatch(/^yss_ledger_unshipped_changes 0$/m);
    const before = tableRows((running.ledger as PostgresLedger).workingCopy());
    await running.close();

    // A restart finds everything, and a retried submission gets its first answer.
    running = await start(url);
    expect(tableRows((running.ledger as PostgresLedger).workingCopy())).toEqual(before);
    const again = await submit(running, 'job 1', 'k1');
    expect(again.status).toBe(201);
    expect(((await again.json()) as { id: string }).id).toBe(ids[0]);

    // A newer writer takes over: the sidecar's next write is refused and it stops.
    const epoch = await reader.fenceEpoch();
    await reader.takeOver(epoch + 1, 'the other sidecar');
    const refused = await submit(running, 'job 4', 'k4');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { code: 'LEDGER_FENCED' } });
    await until('the fenced sidecar to stop listening', () => !running.server.listening);
    await reader.catchUp();
    expect(reader.listJobs({}).total).toBe(3); // job 4, decided and refused, never reached PostgreSQL
    reader.close();
    await reader.closed;
    await running.close();

    // A follower (`ledgerWriter: 'later'`) starts, serves what the ledger holds, and refuses writes.
    const follower = await startSidecar(
      buildConfig({
        rm: { addresses: [emulator.url], jobHistoryAddress: emulator.jhsUrl },
        auth: { tokens: [{ name: 'ci', token: TOKEN }] },
        server: { port: 0, host: '127.0.0.1' },
        ledger: { url },
      }),
      {
        logger: capture.logger,
        now: () => emulator.time.nowEpochMs(),
        manualPolling: true,
        ledgerWriter: 'later',
      },
    );
    try {
      expect((follower.ledger as PostgresLedger).isWriter()).toBe(false);
      expect(await (await fetch(`${follower.url}/metrics`)).text()).toMatch(/^yss_ledger_writer 0$/m);
      (follower.ledger as PostgresLedger).follow(50);
      await until('the follower to load the jobs', () => follower.ledger.listJobs({}).total === 3);
      const listed = (await (await fetch(`${follower.url}/api/v1/jobs`)).json()) as { total: number };
      expect(listed.total).toBe(3);
      await follower.sidecar.runOnce(); // reads the RM (its writes refused): ready to decide
      const notLeader = await submit(follower, 'job 5', 'k5');
      expect(notLeader.status).toBe(503);
      expect(await notLeader.json()).toMatchObject({ error: { code: 'NOT_LEADER' } });
    } finally {
      await follower.close();
    }

    const logs = capture.lines.join('\n');
    expect(logs).toContain('ledger on PostgreSQL');
    expect(logs).not.toContain('s3cret-pw');
  });
});
