/**
 * The test controls: standby and failover, injected failures with the client's retries, the
 * write counter, latency, truncated and corrupted bodies, dropped and refused connections.
 */
import { RmHttpError } from '../../src/errors/rm-http';
import { RmMalformedResponseError } from '../../src/errors/rm-malformed';
import { RmUnavailableError } from '../../src/errors/rm-unavailable';
import { endpointOf } from '../../src/emulator/controls';
import { client, harness, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

describe('standby and failover', () => {
  let active: Harness;
  let standby: Harness;

  beforeAll(async () => {
    active = await harness();
    standby = await harness();
  });
  afterAll(async () => {
    await active.emu.close();
    await standby.emu.close();
  });

  it('answers as a standby RM exactly as INDEX.md section 7 describes', async () => {
    standby.emu.controls.set({ standbyOf: active.emu.url });
    const info = await fetch(`${standby.emu.url}/ws/v1/cluster/info`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { clusterInfo: { haState: string } }).clusterInfo.haState).toBe('STANDBY');
    const redirected = await fetch(`${standby.emu.url}/ws/v1/cluster/apps?states=RUNNING`, {
      redirect: 'manual',
    });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get('location')).toBe(`${active.emu.url}/ws/v1/cluster/apps?states=RUNNING`);
    expect(await redirected.text()).toBe(
      'This is standby RM. The redirect url is: /ws/v1/cluster/apps?states=RUNNING',
    );
    // `/ws/v1/cluster` without /info is redirected too.
    expect((await fetch(`${standby.emu.url}/ws/v1/cluster`, { redirect: 'manual' })).status).toBe(307);
    expect((await fetch(`${standby.emu.url}/isActive`)).status).toBe(405);
    expect((await fetch(`${active.emu.url}/isActive`)).status).toBe(200);
  });

  it('lets the client fail over to the active emulator, before and during use', async () => {
    standby.emu.controls.set({ standbyOf: null });
    const rm = client([standby.emu.url, active.emu.url]);
    const first = await rm.newApplication();
    expect(first.applicationId).toContain(`application_${standby.emu.rm.clusterTimestamp}_`);
    // The RM it talks to becomes a standby: the next calls land on the other one.
    await fetch(`${standby.emu.url}/_emulator/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ standbyOf: active.emu.url }),
    });
    const before = active.emu.controls.writeCounts()['POST /ws/v1/cluster/apps/new-application'] ?? 0;
    const second = await rm.newApplication();
    expect(second.applicationId).toContain(`application_${active.emu.rm.clusterTimestamp}_`);
    expect(rm.transport.activeUrl).toBe(active.emu.url);
    expect(active.emu.controls.writeCounts()['POST /ws/v1/cluster/apps/new-application']).toBe(before + 1);
    // The standby saw the write, answered 307 and did not act on it.
    const atStandby = standby.emu.controls.writeLog.filter(
      (w) => w.endpoint === '/ws/v1/cluster/apps/new-application',
    );
    expect(atStandby.map((w) => [w.status, w.injected])).toEqual([
      [200, false],
      [307, true],
    ]);
  });
});

describe('30% failing requests', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
    const setup = client(h.emu.url);
    for (let i = 0; i < 3; i++) {
      const { applicationId } = await setup.newApplication();
      await setup.submitApp({
        applicationId,
        name: `a${i}`,
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('true'),
      });
    }
    h.emu.controls.clearWrites();
    h.emu.controls.set({ failShare: 0.3 });
  });
  afterAll(() => h.emu.close());

  it('completes every idempotent read through the client retries', async () => {
    const rm = client(h.emu.url, 'json', { maxAttempts: 10 });
    const ids = (await rm.apps()).map((a) => a.id);
    expect(ids).toHaveLength(3);
    let served = 0;
    const before = h.emu.controls.injectedFailures;
    for (let round = 0; round < 20; round++) {
      await rm.clusterInfo();
      await rm.clusterMetrics();
      await rm.scheduler();
      await rm.nodes();
      expect((await rm.app(ids[round % 3]!)).id).toBe(ids[round % 3]);
      served += 5;
    }
    expect(served).toBe(100);
    // Roughly 30% of the attempts failed and were retried (seeded, so the count is fixed).
    const injected = h.emu.controls.injectedFailures - before;
    expect(injected).toBeGreaterThan(20);
    expect(injected).toBeLessThan(80);
  });

  it('sends no write twice: every failed write is reported, none resent', async () => {
    const rm = client(h.emu.url, 'json', { maxAttempts: 10 });
    h.emu.controls.clearWrites();
    let failed = 0;
    let ok = 0;
    for (let i = 0; i < 40; i++) {
      try {
        await rm.newApplication();
        ok++;
      } catch (err) {
        expect(err).toBeInstanceOf(RmHttpError);
        expect([500, 503]).toContain((err as RmHttpError).status);
        failed++;
      }
    }
    const log = h.emu.controls.writeLog;
    expect(h.emu.controls.writeCounts()).toEqual({ 'POST /ws/v1/cluster/apps/new-application': 40 });
    expect(log.filter((w) => w.injected)).toHaveLength(failed);
    expect(log.filter((w) => !w.injected && w.status === 200)).toHaveLength(ok);
    expect(failed).toBeGreaterThan(0);
    expect(ok).toBeGreaterThan(0);
  });
});

describe('latency, bodies and connections', () => {
  let h: Harness;
  const waited: number[] = [];
  beforeAll(async () => {
    h = await harness({ delay: async (ms) => void waited.push(ms) });
  });
  afterAll(() => h.emu.close());
  afterEach(() => h.emu.controls.reset());

  it('adds the configured latency to every answer', async () => {
    h.emu.controls.set({ latencyMs: 250 });
    await client(h.emu.url).clusterMetrics();
    expect(waited).toEqual([250]);
  });

  it('truncates or corrupts bodies, which the client reports as malformed', async () => {
    h.emu.controls.set({ truncateShare: 1 });
    await expect(client(h.emu.url).clusterMetrics()).rejects.toBeInstanceOf(RmMalformedResponseError);
    await expect(client(h.emu.url, 'xml').scheduler()).rejects.toBeInstanceOf(RmMalformedResponseError);
    h.emu.controls.set({ truncateShare: 0, corruptShare: 1 });
    await expect(client(h.emu.url).nodes()).rejects.toBeInstanceOf(RmMalformedResponseError);
  });

  it('drops connections, refuses them, and serves again once resumed', async () => {
    h.emu.controls.set({ dropConnections: true });
    await expect(client(h.emu.url).clusterInfo()).rejects.toBeInstanceOf(RmUnavailableError);
    h.emu.controls.reset();
    await h.emu.stopListening();
    const refused = await client(h.emu.url)
      .clusterInfo()
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RmUnavailableError);
    expect((refused as RmUnavailableError).message).toContain('ECONNREFUSED');
    await h.emu.resumeListening();
    expect((await client(h.emu.url).clusterInfo()).haState).toBe('ACTIVE');
  });

  it('rejects an invalid fault setting at the control endpoint', async () => {
    const res = await fetch(`${h.emu.url}/_emulator/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ failShare: 2 }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'failShare must be a number in [0, 1]' });
  });

  it('names endpoints by their templates', () => {
    expect(endpointOf('/ws/v1/cluster/apps/application_1_0001/state')).toBe(
      '/ws/v1/cluster/apps/{appid}/state',
    );
    expect(endpointOf('/ws/v1/history/mapreduce/jobs/job_1_0002/tasks/task_1_0002_m_000003')).toBe(
      '/ws/v1/history/mapreduce/jobs/{jobid}/tasks/{taskid}',
    );
  });
});

describe('a write applied whose answer is lost', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.emu.close());
  afterEach(() => h.emu.controls.reset());

  const lost = (endpoint: string) =>
    h.emu.controls.writeLog.filter((w) => w.endpoint === endpoint && w.lostStatus !== undefined);

  it('changes the state, closes the connection, and the client reports it once, unsent again', async () => {
    const rm = client(h.emu.url, 'json', { maxAttempts: 10 });
    const { applicationId } = await rm.newApplication();
    h.emu.controls.clearWrites();
    h.emu.controls.set({ loseAnswerShare: 1 });
    const err = await rm
      .submitApp({
        applicationId,
        name: 'lost',
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('true'),
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as RmUnavailableError).code).toBe('RM_UNAVAILABLE');
    expect((err as RmUnavailableError).context.reason).toBe('ECONNRESET');
    // The client says the write may have happened, so a caller looks before it sends again.
    expect((err as RmUnavailableError).outcomeUnknown).toBe(true);
    expect((err as Error).message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/ws\/v1\/cluster\/apps.*: the connection failed after the request was sent \(ECONNRESET .*\); the write may have been applied$/,
    );
    // Sent once, handled by the RM (202), answer never delivered.
    expect(h.emu.controls.writeCounts()).toEqual({ 'POST /ws/v1/cluster/apps': 1 });
    expect(lost('/ws/v1/cluster/apps').map((w) => [w.lostStatus, w.status, w.injected])).toEqual([
      [202, undefined, false],
    ]);
    // Reads are answered as usual, and show the app the client was told nothing about.
    const app = await rm.app(applicationId);
    expect(app.name).toBe('lost');
    expect(['SUBMITTED', 'ACCEPTED', 'RUNNING']).toContain(app.state);
  });

  it('applies a lost kill, a lost move and a lost new-application too', async () => {
    const rm = client(h.emu.url);
    const { applicationId } = await rm.newApplication();
    await rm.submitApp({
      applicationId,
      name: 'k',
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('x'),
    });
    h.advance(1);
    h.emu.controls.set({ loseAnswerShare: 1 });
    await expect(rm.moveApp(applicationId, 'besteffort')).rejects.toBeInstanceOf(RmUnavailableError);
    await expect(rm.killApp(applicationId)).rejects.toBeInstanceOf(RmUnavailableError);
    const before = h.emu.rm.newApplication();
    await expect(rm.newApplication()).rejects.toBeInstanceOf(RmUnavailableError);
    h.emu.controls.reset();
    expect(await rm.appState(applicationId)).toBe('KILLED');
    expect((await rm.app(applicationId)).queue).toBe('root.besteffort');
    // The lost new-application consumed an id: the next one skips it.
    const seq = (id: string) => Number(id.slice(id.lastIndexOf('_') + 1));
    expect(seq((await rm.newApplication()).applicationId)).toBe(seq(before) + 2);
  });

  it('leaves reads and the other faults alone, and is set and checked at the control endpoint', async () => {
    h.emu.controls.set({ loseAnswerShare: 1 });
    expect((await client(h.emu.url).clusterInfo()).haState).toBe('ACTIVE');
    const put = (body: unknown) =>
      fetch(`${h.emu.url}/_emulator/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      ((await (await put({ loseAnswerShare: 0.25 })).json()) as { loseAnswerShare: number }).loseAnswerShare,
    ).toBe(0.25);
    const bad = await put({ loseAnswerShare: -1 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'loseAnswerShare must be a number in [0, 1]' });
  });
});
