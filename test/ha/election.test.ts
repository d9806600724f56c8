import { epochOf, LeaderElection, pauseLimitMs, sequenceOf } from '../../src/ha/election';
import { createLogger, silentLogger } from '../../src/log';
import { startZooKeeper, type RunningZooKeeper } from '../support/zookeeper';

/** Leader election against ZooKeeper's own server (Java 17, the launcher's jars). */

let zk: RunningZooKeeper;
const live: LeaderElection[] = [];

beforeAll(async () => {
  zk = await startZooKeeper();
}, 600_000);

afterEach(async () => {
  await Promise.all(live.splice(0).map((e) => e.close()));
});

afterAll(async () => {
  await zk?.stop();
});

let rootN = 0;
function candidate(id: string, root: string, sessionTimeoutMs = 4000): LeaderElection {
  const e = new LeaderElection({
    connect: zk.connect,
    path: root,
    sessionTimeoutMs,
    self: { id, url: `http://${id}.example:8080` },
    logger: process.env.ZK_DEBUG
      ? createLogger({ level: 'debug', format: 'json' }).child({ id })
      : silentLogger(),
  });
  live.push(e);
  return e;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The events an election emitted, in order. */
function record(e: LeaderElection): string[] {
  const events: string[] = [];
  e.on('elected', (epoch) => events.push(`elected ${epoch}`));
  e.on('deposed', (reason) => events.push(`deposed ${reason}`));
  e.on('leaderChanged', (url) => events.push(`leader ${url}`));
  return events;
}

test('sequenceOf reads the sequence ZooKeeper appends to a node name', () => {
  expect(sequenceOf('n_a1b2c3_0000000042')).toBe(42);
  expect(sequenceOf('/yss/election/n_ff_0000000007')).toBe(7);
  expect(sequenceOf('n_abc')).toBeNaN();
  expect(epochOf('n_a1b2c3_0000000000')).toBe(1);
  expect(pauseLimitMs(6000)).toBe(4000);
});

test('the first candidate leads, the others know its URL, and the next one leads when it leaves', async () => {
  const root = `/t${++rootN}`;
  const a = candidate('a', root);
  const aEvents = record(a);
  a.start();
  const epochA = await until('a to lead', () => a.epoch() ?? undefined);
  const b = candidate('b', root);
  const c = candidate('c', root);
  const bEvents = record(b);
  const cEvents = record(c);
  b.start();
  await until('b to know the leader', () => b.leader() ?? undefined);
  c.start();
  await until('c to know the leader', () => c.leader() ?? undefined);
  expect(a.isLeader()).toBe(true);
  expect(b.isLeader()).toBe(false);
  expect(c.isLeader()).toBe(false);
  expect(b.leader()).toEqual({ id: 'a', url: 'http://a.example:8080', epoch: epochA });
  expect(c.leader()?.url).toBe('http://a.example:8080');
  expect(aEvents).toEqual([`leader http://a.example:8080`, `elected ${epochA}`]);

  // a leaves cleanly: its node is deleted, b (next in line) leads with a larger epoch; c follows b.
  const left = Date.now();
  await a.close();
  const epochB = await until('b to lead', () => b.epoch() ?? undefined);
  const tookMs = Date.now() - left;
  expect(epochB).toBeGreaterThan(epochA);
  expect(tookMs).toBeLessThan(5000);
  await until('c to follow b', () => (c.leader()?.id === 'b' ? true : undefined));
  expect(c.isLeader()).toBe(false);
  expect(bEvents).toEqual([
    `leader http://a.example:8080`,
    `leader http://b.example:8080`,
    `elected ${epochB}`,
  ]);
  expect(cEvents).toEqual([`leader http://a.example:8080`, `leader http://b.example:8080`]);
}, 60_000);

test('a leader whose process stands still longer than the session allows is deposed before it acts', async () => {
  const root = `/t${++rootN}`;
  const a = candidate('a', root, 3000);
  const events = record(a);
  a.start();
  const epoch = await until('a to lead', () => a.epoch() ?? undefined);
  // The event loop blocked (as a stopped process, when it resumes): the first look says no.
  const end = Date.now() + pauseLimitMs(3000) + 300;
  while (Date.now() < end) {
    /* busy: nothing else runs */
  }
  expect(a.isLeader()).toBe(false);
  expect(events).toEqual([
    `leader http://a.example:8080`,
    `elected ${epoch}`,
    'deposed the process stood still longer than the session allows',
  ]);
  // It never leads again, even though its node may still be the lowest.
  await new Promise((r) => setTimeout(r, 500));
  expect(a.isLeader()).toBe(false);
}, 60_000);

test('losing ZooKeeper deposes the leader at once; followers join again after their sessions expire', async () => {
  const root = `/t${++rootN}`;
  const a = candidate('a', root, 2000);
  const b = candidate('b', root, 2000);
  const aEvents = record(a);
  a.start();
  await until('a to lead', () => a.epoch() ?? undefined);
  b.start();
  await until('b to know a', () => (b.leader()?.id === 'a' ? true : undefined));

  await zk.kill();
  await until(
    'a to be deposed',
    () => (aEvents.some((e) => e.startsWith('deposed')) ? true : undefined),
    10_000,
  );
  expect(a.isLeader()).toBe(false);
  expect(aEvents.at(-1)).toBe('deposed the ZooKeeper connection was lost');

  // Down longer than the sessions: they expire on the server. b joins again and leads, since
  // a (deposed for good) never takes part again and its session is gone.
  await new Promise((r) => setTimeout(r, 3000));
  await zk.restart();
  const epochB = await until('b to lead', () => b.epoch() ?? undefined, 30_000);
  expect(epochB).toBeGreaterThan(0);
  expect(a.isLeader()).toBe(false);
}, 90_000);
