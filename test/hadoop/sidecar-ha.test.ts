/**
 * The sidecar against a real RM HA pair (rm1, rm2, ZooKeeper; recovery on, so apps survive a
 * failover): the active RM is killed mid-run; within two poll cycles the sidecar reads from the
 * new active RM, no admitted job is lost, and no write is sent twice. Writes are counted in both
 * RMs' audit logs.
 */
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { buildConfig } from '../../src/config/load';
import { silentLogger } from '../../src/log';
import { startSidecar, type RunningSidecar } from '../../src/service/start';
import { at, read, waitFor } from './cluster';
import { auditOf, killLive, sidecarConfig, TOKEN } from './sidecar-support';

let hadoop: RunningHadoop;
let running: RunningSidecar;

async function cycle(): Promise<void> {
  await running.sidecar.runOnce();
  await running.sidecar.runOnceSettled();
}

async function post(name: string, deadline: number): Promise<string> {
  const res = await fetch(`${running.url}/api/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      user: 'alice',
      deadline,
      maps: 2,
      reduces: 1,
      inputBytes: 16 << 20,
      yarnSubmission: { 'am-container-spec': { commands: { command: 'sleep 300' } } },
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function appOf(jobId: string): Promise<string> {
  return waitFor(`the app of ${jobId}`, async () => {
    await cycle();
    const appId = running.ledger.getJob(jobId)?.appId;
    if (!appId) return undefined;
    const app = await read(`${activeUrl()}/ws/v1/cluster/apps/${appId}`);
    return at(app, 'app.amContainerLogs') ? appId : undefined;
  });
}

let active = '';
const activeUrl = () => hadoop.info.rms[hadoop.info.rmIds.indexOf(active)]!;

beforeAll(async () => {
  hadoop = await startHadoop({ ha: true, recovery: true, priorityCap: 10 });
  active = hadoop.info.activeRm;
  running = await startSidecar(buildConfig(sidecarConfig(hadoop.info, { user: 'alice' })), {
    logger: silentLogger(),
    manualPolling: true,
  });
  await cycle();
}, 300_000);

afterAll(async () => {
  await running?.close();
  if (hadoop) await killLive(activeUrl()).catch(() => undefined);
  await hadoop?.stop();
});

describe('an RM failover mid-run', () => {
  it('is followed within 2 cycles, with no job lost and no write repeated', async () => {
    const late = await post('late', 3000);
    const lateApp = await appOf(late);
    const before = active;

    const killed = await hadoop.command(`kill-rm ${before}`);
    expect(killed.event).toBe('RM_KILLED');
    active = String(killed.data.active);
    expect(active).not.toBe(before);

    // Within two cycles the sidecar reads the cluster from the new active RM.
    await cycle();
    await cycle();
    const readyz = (await (await fetch(`${running.url}/readyz`)).json()) as {
      ready: boolean;
      reason?: string;
    };
    expect(readyz.reason).toBeUndefined();
    expect(readyz.ready).toBe(true);
    const cluster = (await (await fetch(`${running.url}/api/v1/cluster`)).json()) as {
      rm: { haState: string; reachable: boolean };
    };
    expect(cluster.rm).toMatchObject({ haState: 'ACTIVE', reachable: true });

    // The recovered app is still the job's: nothing lost, nothing submitted again.
    expect(running.ledger.getJob(late)).toMatchObject({
      appId: lateApp,
      state: expect.stringMatching(/submitted|running/),
    });
    const recovered = await read(`${activeUrl()}/ws/v1/cluster/apps/${lateApp}`);
    expect(at(recovered, 'app.queue')).toBe('root.realtime');

    // After the failover: a new job goes first, the old one's priority drops once.
    const early = await post('early', 2000);
    const earlyApp = await appOf(early);
    for (let i = 0; i < 4; i++) await cycle();
    expect(Number(at(await read(`${activeUrl()}/ws/v1/cluster/apps/${lateApp}`), 'app.priority'))).toBe(9);
    const submits = (app: string) => auditOf(hadoop.info, { app, operation: 'Submit Application Request' });
    expect(submits(lateApp).map((a) => a.result)).toEqual(['SUCCESS']);
    expect(submits(earlyApp).map((a) => a.result)).toEqual(['SUCCESS']);
    expect(auditOf(hadoop.info, { app: lateApp, operation: 'Update Application Priority' })).toHaveLength(1);
    expect(running.ledger.pendingActions()).toEqual([]);
  });
});
