/**
 * Two sidecars with ha.enabled, on a real ZooKeeper and a real PostgreSQL, beside the emulated
 * RM: one leads, the other follows. The follower refuses writes with 503 NOT_LEADER naming the
 * leader, serves the ledger's reads, and is not ready for a load balancer; only the leader
 * writes to the RM (X-Sidecar-Instance). A clean stop of the leader hands over at once.
 */
import { MB, waitFor, type EmulatorProc } from '../e2e/support/procs';
import { SLEEP_AM } from '../yarn-submission';
import {
  leaderOf,
  post,
  startHaServers,
  startHaSidecar,
  waitLeading,
  type HaCluster,
  type HaServers,
} from './support';

let emu: EmulatorProc;
let cluster: HaCluster;

let servers: HaServers | undefined;

beforeAll(async () => {
  servers = await startHaServers('ha-follower', ['--speed', '1']);
  ({ emu, cluster } = servers);
}, 600_000);

afterAll(async () => {
  await servers?.stop();
});

const job = (name: string) => ({
  name,
  user: 'carol',
  deadline: 600,
  maps: 2,
  reduces: 1,
  inputBytes: 16 * MB,
  yarnSubmission: SLEEP_AM,
});

test('one leads and writes; the other refuses writes naming it, serves reads, and takes over on a clean stop', async () => {
  const a = await startHaSidecar(cluster, 'sc-a');
  const epochA = await waitLeading(a, [a.proc]);
  const b = await startHaSidecar(cluster, 'sc-b');
  const procs = [a.proc, b.proc, emu.proc];
  await waitFor(
    'b to know the leader',
    async () => ((await leaderOf(b)).leader?.id === 'sc-a' ? true : undefined),
    {
      procs,
    },
  );
  expect(await leaderOf(b)).toEqual({
    role: 'follower',
    id: 'sc-b',
    leader: { id: 'sc-a', url: a.url, epoch: epochA },
  });

  // A write to the follower: 503 NOT_LEADER, the leader named in the body and Location.
  const refused = await post(b.url, '/api/v1/jobs', job('to-follower'), 'k-follower');
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(refused.headers.get('location')).toBe(`${a.url}/api/v1/jobs`);
  expect(await refused.json()).toEqual({
    error: { code: 'NOT_LEADER', message: `not leader, try ${a.url}`, leader: a.url },
  });
  for (const [method, path] of [
    ['DELETE', '/api/v1/jobs/dl-000000000000'],
    ['POST', '/api/v1/estimates/cpu/reset'],
    ['GET', '/api/v1/cluster'],
    ['GET', '/api/v1/estimates'],
  ] as const) {
    const res = await fetch(`${b.url}${path}`, { method, headers: { authorization: 'Bearer x' } });
    expect([method, path, res.status]).toEqual([method, path, 503]);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('NOT_LEADER');
  }
  // Readiness: only the leader takes traffic from a load balancer.
  await waitFor(
    'the leader to be ready',
    async () => ((await fetch(`${a.url}/readyz`)).status === 200 ? true : undefined),
    {
      procs,
    },
  );
  const notReady = await fetch(`${b.url}/readyz`);
  expect(notReady.status).toBe(503);
  expect(await notReady.json()).toMatchObject({ ready: false, role: 'follower', leader: a.url });

  // The leader admits and submits; the follower reads the job from the shared ledger.
  const admitted = await post(a.url, '/api/v1/jobs', job('to-leader'), 'k-leader');
  expect(admitted.status).toBe(201);
  const { id } = (await admitted.json()) as { id: string };
  const seen = await waitFor(
    'the follower to read the job',
    async () => {
      const res = await fetch(`${b.url}/api/v1/jobs/${id}`);
      return res.status === 200 ? ((await res.json()) as { id: string; decision: string }) : undefined;
    },
    { procs },
  );
  expect(seen).toMatchObject({ id, decision: 'admitted' });
  await waitFor(
    'the submission on the RM',
    async () =>
      (await emu.writes()).log.some((w) => w.endpoint === '/ws/v1/cluster/apps' && w.status === 202)
        ? true
        : undefined,
    { procs },
  );
  const writers = new Set((await emu.writes()).log.map((w) => w.instance));
  expect(writers).toEqual(new Set(['sc-a']));

  // A clean stop deletes the leader's node: b leads at once, with a newer epoch.
  const stoppedAt = Date.now();
  await a.proc.stop();
  expect(a.proc.child.exitCode).toBe(0);
  const epochB = await waitLeading(b, [b.proc, emu.proc], 15_000);
  const handover = Date.now() - stoppedAt;
  expect(epochB).toBeGreaterThan(epochA);
  process.stderr.write(`[ha] clean hand-over: ${handover} ms\n`);
  expect(handover).toBeLessThan(10_000);
  // b answers the same idempotency key with the first answer: the job is not admitted twice.
  const again = await post(b.url, '/api/v1/jobs', job('to-leader'), 'k-leader');
  expect(again.status).toBe(201);
  expect(((await again.json()) as { id: string }).id).toBe(id);
  await b.proc.stop();
});
