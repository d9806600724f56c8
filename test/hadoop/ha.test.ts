/**
 * A cluster of its own with two ResourceManagers (--ha, rm1 and rm2, elected through an
 * embedded ZooKeeper): one ACTIVE, one STANDBY that redirects REST calls to it, and a failover
 * when the active one is stopped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHadoop, type RunningHadoop } from '../../hadoop/launch';
import { at, http, list, read, waitFor } from './cluster';

let hadoop: RunningHadoop;

beforeAll(async () => {
  hadoop = await startHadoop({ ha: true });
}, 300_000);

afterAll(async () => {
  await hadoop?.stop();
});

/** The last lines an RM's log has about its ZooKeeper session and the election. */
function electorLog(rmId: string): string {
  const file = join(hadoop.info.logs, `${rmId}.log`);
  if (!existsSync(file)) return `(no ${rmId}.log)`;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) =>
      /ActiveStandbyElector|ElectorService|ClientCnxn|ZooKeeper|Transitioning|transitioned/i.test(l),
    )
    .slice(-20)
    .join('\n');
}

/**
 * Whether an RM's elector dropped the connection event of its own session as a stale client's:
 * Hadoop's ActiveStandbyElector can handle a new session's SyncConnected before it has stored the
 * new client, logs "Ignoring stale result from old client with sessionId X" for the session it
 * has just established, and reports TERMINATED from then on, while that session is up and the RM
 * takes part in the election (it became ACTIVE or STANDBY through it). Seen under load.
 */
function droppedOwnConnectEvent(rmId: string): boolean {
  const file = join(hadoop.info.logs, `${rmId}.log`);
  if (!existsSync(file)) return false;
  const log = readFileSync(file, 'utf8');
  const established = [...log.matchAll(/Session establishment complete .*session id = (0x[0-9a-f]+)/g)];
  return established.some(([, id]) =>
    log.includes(`Ignoring stale result from old client with sessionId ${id}`),
  );
}

/** Each RM's haState, or DOWN when it does not answer. */
async function haStates(): Promise<Record<string, unknown>> {
  const states: Record<string, unknown> = {};
  for (const [i, url] of hadoop.info.rms.entries()) {
    const a = await http(`${url}/ws/v1/cluster/info`).catch(() => null);
    states[hadoop.info.rmIds[i]!] =
      a === null ? 'DOWN' : a.status === 200 ? at(JSON.parse(a.text), 'clusterInfo.haState') : a.status;
  }
  return states;
}

describe('--ha', () => {
  it('has one ACTIVE and one STANDBY RM, both connected to ZooKeeper', async () => {
    // Both in the election (one ACTIVE, one STANDBY) is what ZooKeeper decided; each RM's own
    // report of its connection is read too, allowing for its elector's race (droppedOwnConnectEvent).
    const { rms, rmIds, activeRm, rm, zk } = hadoop.info;
    expect(rmIds).toEqual(['rm1', 'rm2']);
    expect(rms).toHaveLength(2);
    expect(zk).toMatch(/^127\.0\.0\.1:\d+$/);
    const states = await haStates();
    expect(Object.values(states).sort()).toEqual(['ACTIVE', 'STANDBY']);
    expect(states[activeRm]).toBe('ACTIVE');
    expect(rm).toBe(rms[rmIds.indexOf(activeRm)]);
    for (const [i, url] of rms.entries()) {
      // A session a busy machine let expire comes back: wait for it rather than read once, and
      // say what the RM reported and what its elector logged if it never does.
      let seen: unknown;
      await waitFor(
        `${rmIds[i]} (${url}) connected to ZooKeeper`,
        async () => {
          const info = await read(`${url}/ws/v1/cluster/info`);
          seen = at(info, 'clusterInfo.haZooKeeperConnectionState');
          if (seen === 'CONNECTED') return true;
          if (seen === 'TERMINATED' && droppedOwnConnectEvent(rmIds[i]!)) {
            console.log(
              `${rmIds[i]}: TERMINATED, its elector having dropped its own session's connect event`,
            );
            return true;
          }
          return undefined;
        },
        120_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last reported: ${String(seen)}\n${electorLog(rmIds[i]!)}`);
      });
    }
  }, 300_000);

  it('the STANDBY redirects other REST calls to the ACTIVE (307, by host name)', async () => {
    const { rms, rmIds, activeRm } = hadoop.info;
    const standby = rms[1 - rmIds.indexOf(activeRm)]!;
    const a = await http(`${standby}/ws/v1/cluster/nodes`);
    expect(a.status).toBe(307);
    const activePort = new URL(hadoop.info.rm).port;
    expect(a.location).toBe(`http://localhost:${activePort}/ws/v1/cluster/nodes`);
  });

  it('fails over when the active RM stops, and takes the old one back as STANDBY', async () => {
    const { activeRm, rmIds, rms } = hadoop.info;
    const other = rmIds.find((id) => id !== activeRm)!;

    const killed = await hadoop.command(`kill-rm ${activeRm}`);
    expect(killed.event).toBe('RM_KILLED');
    expect(killed.data).toMatchObject({ id: activeRm, active: other, rm: rms[rmIds.indexOf(other)] });
    expect(await haStates()).toEqual({ [activeRm]: 'DOWN', [other]: 'ACTIVE' });
    // The new active RM has both NodeManagers and the gpu label from the shared label store.
    const nodes = list(at(await read(`${rms[rmIds.indexOf(other)]}/ws/v1/cluster/nodes`), 'nodes.node'));
    expect(nodes.map((n) => at(n, 'state'))).toEqual(['RUNNING', 'RUNNING']);
    expect(nodes.flatMap((n) => list(at(n, 'nodeLabels')))).toEqual(['gpu']);

    const started = await hadoop.command(`start-rm ${activeRm}`);
    expect(started.event).toBe('RM_STARTED');
    expect(started.data).toMatchObject({ id: activeRm, haState: 'STANDBY' });
    expect(await haStates()).toEqual({ [activeRm]: 'STANDBY', [other]: 'ACTIVE' });
  });
});
