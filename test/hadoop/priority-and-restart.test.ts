/**
 * Application priorities as the real RM caps them (yarn.cluster.max-application-priority: 0 by
 * default, 10 with --priority-cap 10), and an RM restarted without recovery, which forgets
 * every app while its NodeManagers and node labels come back.
 */
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { at, http, list, read, sharedCluster, submitSleeper, waitFor } from './cluster';

async function setPriority(rm: string, id: string, priority: number): Promise<unknown> {
  const a = await http(`${rm}/ws/v1/cluster/apps/${id}/priority`, {
    method: 'PUT',
    user: 'alice',
    body: { priority },
  });
  if (a.status !== 200) throw new Error(`PUT priority ${priority}: ${a.status} ${a.text}`);
  return JSON.parse(a.text);
}

async function kill(rm: string, id: string): Promise<void> {
  const a = await http(`${rm}/ws/v1/cluster/apps/${id}/state`, {
    method: 'PUT',
    user: 'alice',
    body: { state: 'KILLED' },
  });
  // 202 while the kill is in progress, 200 once done.
  expect([200, 202]).toContain(a.status);
  await waitFor(`${id} KILLED`, async () =>
    at(await read(`${rm}/ws/v1/cluster/apps/${id}`), 'app.state') === 'KILLED' ? true : undefined,
  );
}

describe('priority cap: Hadoop default (the shared cluster)', () => {
  const { rm, priorityCap } = sharedCluster();

  it('is 0: a submitted priority and a write of 10 both read back as 0', async () => {
    expect(priorityCap).toBe(0);
    const id = await submitSleeper(rm, { user: 'alice', queue: 'realtime', priority: 5 });
    expect(at(await read(`${rm}/ws/v1/cluster/apps/${id}`), 'app.priority')).toBe(0);
    expect(await setPriority(rm, id, 10)).toEqual({ priority: 0 });
    expect(at(await read(`${rm}/ws/v1/cluster/apps/${id}`), 'app.priority')).toBe(0);
    await kill(rm, id);
  });
});

describe('--priority-cap 10, and restart-rm', () => {
  let hadoop: RunningHadoop;

  beforeAll(async () => {
    hadoop = await startHadoop({ priorityCap: 10 });
  }, 300_000);

  afterAll(async () => {
    await hadoop?.stop();
  });

  it('keeps priorities up to 10 and caps higher ones at 10', async () => {
    const { rm } = hadoop.info;
    expect(hadoop.info.priorityCap).toBe(10);
    const id = await submitSleeper(rm, { user: 'alice', queue: 'realtime', priority: 3 });
    expect(at(await read(`${rm}/ws/v1/cluster/apps/${id}`), 'app.priority')).toBe(3);
    expect(await setPriority(rm, id, 7)).toEqual({ priority: 7 });
    expect(await setPriority(rm, id, 12)).toEqual({ priority: 10 });
  });

  it('restart-rm: the RM comes back on the same address without its apps, nodes and labels intact', async () => {
    const { rm } = hadoop.info;
    const before = list(at(await read(`${rm}/ws/v1/cluster/apps`), 'apps.app'));
    expect(before).toHaveLength(1);
    const oldId = String(at(before[0], 'id'));
    const startedOn = Number(at(await read(`${rm}/ws/v1/cluster/info`), 'clusterInfo.startedOn'));

    const answer = await hadoop.command('restart-rm');
    expect(answer.event).toBe('RM_RESTARTED');
    expect(answer.data).toMatchObject({ id: 'rm1', haState: 'ACTIVE', rm });
    expect(answer.data['pid']).not.toBe(hadoop.info.pids['rm1']);

    const info = await read(`${rm}/ws/v1/cluster/info`);
    expect(Number(at(info, 'clusterInfo.startedOn'))).toBeGreaterThan(startedOn);
    expect(list(at(await read(`${rm}/ws/v1/cluster/apps`), 'apps.app'))).toEqual([]);
    const gone = await http(`${rm}/ws/v1/cluster/apps/${oldId}`);
    expect(gone.status).toBe(404);
    expect(at(JSON.parse(gone.text), 'RemoteException.exception')).toBe('NotFoundException');
    const nodes = list(at(await read(`${rm}/ws/v1/cluster/nodes`), 'nodes.node'));
    expect(nodes.map((n) => at(n, 'state'))).toEqual(['RUNNING', 'RUNNING']);
    expect(nodes.flatMap((n) => list(at(n, 'nodeLabels')))).toEqual(['gpu']);
    // The new RM takes apps again, numbered from its own start time.
    const id = await submitSleeper(rm, { user: 'alice', queue: 'besteffort' });
    expect(id).not.toBe(oldId);
  });
});
