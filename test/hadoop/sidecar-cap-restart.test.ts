/**
 * The sidecar, speaking XML, against a real RM of its own with yarn.cluster.max-application-priority
 * 10: EDF order written as priorities, each app at most once per change, counted in the RM's audit
 * log; then the RM restarted without recovery, which forgets every app: the sidecar marks the
 * lost jobs lost, releases their capacity, and resubmits only the one that asked for it.
 */
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { at, read, waitFor } from './cluster';
import { auditOf, killLive, sidecarConfig, TOKEN } from './sidecar-support';

const MB = 1024 * 1024;
const SLEEP_AM = {
  'am-container-spec': { commands: { command: 'sleep 300' } },
  resource: { memory: 512, vCores: 1 },
};

let hadoop: RunningHadoop;
let running: RunningSidecar;

async function cycle(): Promise<void> {
  await running.sidecar.runOnce();
  await running.sidecar.runOnceSettled();
}

async function post(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${running.url}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      user: 'alice',
      maps: 2,
      reduces: 1,
      inputBytes: 16 * MB,
      yarnSubmission: SLEEP_AM,
      ...body,
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

/** The app of a job once the RM has given its AM a container (priority writes wait for that). */
async function launchedApp(jobId: string): Promise<string> {
  return waitFor(`the AM container of ${jobId}`, async () => {
    await cycle();
    const appId = running.ledger.getJob(jobId)?.appId;
    if (!appId) return undefined;
    const app = await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${appId}`);
    return at(app, 'app.amContainerLogs') ? appId : undefined;
  });
}

const rmPriority = async (appId: string) =>
  Number(at(await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${appId}`), 'app.priority'));

const lanes = async () =>
  (
    (await (await fetch(`${running.url}/api/v1/cluster`)).json()) as {
      admission: { lanes: Array<{ queue: string; label: string; queued: number }> };
    }
  ).admission.lanes;

beforeAll(async () => {
  hadoop = await startHadoop({ priorityCap: 10 });
  running = await startSidecar(buildConfig(sidecarConfig(hadoop.info, { user: 'alice', format: 'xml' })), {
    logger: silentLogger(),
    manualPolling: true,
  });
  await cycle();
}, 300_000);

afterAll(async () => {
  await running?.close();
  if (hadoop) await killLive(hadoop.info.rm).catch(() => undefined);
  await hadoop?.stop();
});

describe('a cap of 10', () => {
  it('is read from the RM; EDF order is written as priorities, one write per change, over 6 cycles', async () => {
    const cluster = (await (await fetch(`${running.url}/api/v1/cluster`)).json()) as {
      rm: { priorityCap: unknown };
    };
    expect(cluster.rm.priorityCap).toEqual({ value: 10, source: 'rm' });
    const late = await post({ name: 'late', deadline: 3000 });
    expect(late.priority).toBe(10);
    const lateApp = await launchedApp(late.id as string);
    const early = await post({ name: 'early', deadline: 2000 }); // goes first: late drops to 9
    expect(early).toMatchObject({ priority: 10, position: 1 });
    const earlyApp = await launchedApp(early.id as string);
    for (let i = 0; i < 6; i++) await cycle();
    expect([await rmPriority(earlyApp), await rmPriority(lateApp)]).toEqual([10, 9]);
    const writes = (app: string) =>
      auditOf(hadoop.info, { app, operation: 'Update Application Priority' }).map((a) => [a.user, a.result]);
    expect(writes(lateApp)).toEqual([['alice', 'SUCCESS']]);
    expect(writes(earlyApp)).toEqual([]);
  });
});

describe('an RM restarted without recovery', () => {
  it('loses the apps: the jobs are marked lost and release their capacity; only resubmitIfLost is submitted again', async () => {
    const kept = await post({ name: 'kept', deadline: 3600, resubmitIfLost: true });
    const keptApp = await launchedApp(kept.id as string);
    const queuedBefore = (await lanes()).find((l) => l.queue === 'realtime' && l.label === '')!.queued;
    expect(queuedBefore).toBe(3);

    const restarted = await hadoop.command('restart-rm');
    expect(restarted.event).toBe('RM_RESTARTED');

    const lost = await waitFor('the lost jobs', async () => {
      await cycle();
      const jobs = running.ledger.listJobs({ limit: 100 }).jobs;
      return jobs.filter((j) => j.state === 'lost').length === 2 ? jobs : undefined;
    });
    expect(lost.map((j) => [j.name, j.state]).sort()).toEqual([
      ['early', 'lost'],
      ['kept', expect.stringMatching(/^(accepted|submitted)$/)],
      ['late', 'lost'],
    ]);
    const newApp = await launchedApp(kept.id as string);
    expect(newApp).not.toBe(keptApp);
    // The RM's own word: the new app carries the job's tag, and was submitted once.
    const app = await read(`${hadoop.info.rm}/ws/v1/cluster/apps/${newApp}`);
    expect(String(at(app, 'app.applicationTags')).split(',')).toContain(`sidecar-id:${String(kept.id)}`);
    expect(auditOf(hadoop.info, { app: newApp, operation: 'Submit Application Request' })).toHaveLength(1);
    // Capacity: the two lost jobs left the lane, the resubmitted one is in it again.
    expect((await lanes()).find((l) => l.queue === 'realtime' && l.label === '')!.queued).toBe(1);
    const shown = (await (await fetch(`${running.url}/api/v1/jobs?state=lost`)).json()) as { total: number };
    expect(shown.total).toBe(2);
    const metrics = await (await fetch(`${running.url}/metrics`)).text();
    expect(metrics).toMatch(/yss_deadline_outcomes_total\{outcome="lost"\} 2/);
    expect(running.ledger.decisionsOf(kept.id as string).map((d) => d.decision)).toEqual([
      'admitted',
      'resubmitted',
    ]);
  });
});
