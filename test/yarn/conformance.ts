/**
 * The RM REST conformance suite: what any server that speaks the RM's REST API must satisfy for
 * the sidecar's client to work, checked over real HTTP in JSON and in XML. Run it against every
 * implementation (the fixture server now; the emulator later) with describeRmConformance().
 *
 * It asserts invariants and round trips, not one server's data: the fixture server's exact
 * values are checked in client.fixture.test.ts.
 */
import { RmRemoteError } from '../../src/errors/rm-remote';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import { flattenQueues } from '../../src/yarn/mapping';
import type { QueueInfo } from '../../src/yarn/model';
import { amCommand } from '../../src/yarn/submission';

export interface ServerUnderTest {
  url: string;
  close(): Promise<void>;
}

const NODE_STATES = [
  'NEW',
  'RUNNING',
  'UNHEALTHY',
  'DECOMMISSIONING',
  'DECOMMISSIONED',
  'LOST',
  'REBOOTED',
  'SHUTDOWN',
];
const APP_STATES = ['NEW', 'NEW_SAVING', 'SUBMITTED', 'ACCEPTED', 'RUNNING', 'FINISHED', 'FAILED', 'KILLED'];
const EPS = 1e-6;

function checkQueue(q: QueueInfo): void {
  expect(q.path.endsWith(q.name)).toBe(true);
  expect(q.capacity).toBeGreaterThanOrEqual(0);
  expect(q.capacity).toBeLessThanOrEqual(q.maxCapacity + EPS);
  if (q.kind === 'leaf') expect(q.children).toEqual([]);
  for (const c of q.children) {
    expect(c.path).toBe(`${q.path}.${c.name}`);
    checkQueue(c);
  }
}

/** What differs between servers: their queues, and whether calls need a user. */
export interface ConformanceOptions {
  /** A leaf queue an app may be moved to. */
  moveTo: string;
  /** A reservable queue. */
  reservationQueue: string;
  /** Sent as user.name (an RM with simple authentication needs one). */
  user?: string;
}

const FIXTURE_QUEUES: ConformanceOptions = { moveTo: 'test', reservationQueue: 'dedicated' };

export function describeRmConformance(
  name: string,
  start: () => Promise<ServerUnderTest>,
  options: ConformanceOptions = FIXTURE_QUEUES,
): void {
  describe.each(['json', 'xml'] as const)(`RM conformance: ${name} (%s)`, (format) => {
    let server: ServerUnderTest;
    let rm: HttpResourceManagerClient;

    beforeAll(async () => {
      server = await start();
      rm = new HttpResourceManagerClient({
        urls: [server.url],
        format,
        timeoutMs: 5_000,
        maxAttempts: 1,
        ...(options.user === undefined ? {} : { user: options.user }),
      });
    });
    afterAll(() => server.close());

    it('reports an active RM with a version', async () => {
      const info = await rm.clusterInfo();
      expect(info.haState).toBe('ACTIVE');
      expect(info.resourceManagerVersion).not.toBe('');
    });

    it('reports metrics whose memory adds up', async () => {
      const x = await rm.clusterMetrics();
      expect(x.totalMB).toBeGreaterThanOrEqual(x.allocatedMB);
      expect(x.totalNodes).toBeGreaterThanOrEqual(x.activeNodes);
    });

    it('reports a queue tree under root with consistent capacities', async () => {
      const s = await rm.scheduler();
      expect(s.root.path).toBe('root');
      checkQueue(s.root);
      const leaves = flattenQueues(s.root).filter((q) => q.kind === 'leaf');
      expect(leaves.length).toBeGreaterThan(0);
    });

    it('reports nodes with known states and total = used + available', async () => {
      const nodes = await rm.nodes();
      expect(nodes.length).toBeGreaterThan(0);
      for (const n of nodes) {
        expect(NODE_STATES).toContain(n.state);
        expect(n.total.memoryMB).toBe(n.used.memoryMB + n.available.memoryMB);
        expect(n.total.vcores).toBe(n.used.vcores + n.available.vcores);
      }
      const one = await rm.node(nodes[0]!.id);
      expect(one.id).toBe(nodes[0]!.id);
    });

    it('reports apps, one app and its attempts, state, queue, priority and timeouts', async () => {
      const apps = await rm.apps({ states: ['RUNNING', 'FINISHED', 'ACCEPTED'], limit: 100 });
      expect(apps.length).toBeGreaterThan(0);
      for (const a of apps) expect(APP_STATES).toContain(a.state);
      const id = apps[0]!.id;
      expect((await rm.app(id)).id).toMatch(/^application_\d+_\d+$/);
      for (const att of await rm.appAttempts(id)) expect(att.id).toBeGreaterThan(0);
      // The state endpoint speaks RMAppState: it adds FINAL_SAVING, FINISHING and KILLING.
      expect([...APP_STATES, 'FINAL_SAVING', 'FINISHING', 'KILLING']).toContain(await rm.appState(id));
      expect(await rm.appQueue(id)).not.toBe('');
      expect(Number.isInteger(await rm.appPriority(id))).toBe(true);
      const timeouts = await rm.appTimeouts(id);
      for (const t of timeouts) expect(t.type).toBe('LIFETIME');
      expect((await rm.appTimeout(id, 'LIFETIME')).type).toBe('LIFETIME');
    });

    it('answers an unknown app with a RemoteException NotFoundException (404)', async () => {
      const err = await rm.app('application_1324057493980_9999').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RmRemoteError);
      expect(err).toMatchObject({ status: 404, exception: 'NotFoundException' });
    });

    it('lists node labels, node-to-label and label-to-node mappings that agree', async () => {
      const labels = (await rm.nodeLabels()).map((l) => l.name);
      const byNode = await rm.nodeToLabels();
      for (const ls of byNode.values()) for (const l of ls) expect(labels).toContain(l);
      for (const mapping of await rm.labelMappings()) {
        expect(labels).toContain(mapping.label.name);
        for (const n of mapping.nodes) expect(byNode.get(n)).toContain(mapping.label.name);
      }
    });

    it('submits an app: new-application, then 202 with a Location', async () => {
      const fresh = await rm.newApplication();
      expect(fresh.applicationId).toMatch(/^application_\d+_\d+$/);
      expect(fresh.maximumResourceCapability.memoryMB).toBeGreaterThan(0);
      const res = await rm.submitApp({
        applicationId: fresh.applicationId,
        name: 'conformance',
        queue: 'default',
        priority: 1,
        tags: ['deadline', 'conformance'],
        appNodeLabelExpression: '',
        amNodeLabelExpression: '',
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('sleep 1'),
      });
      expect(res.status).toBe(202);
      expect(res.location).toContain(fresh.applicationId);
    });

    it('moves, reprioritises, sets a lifetime on and kills an app', async () => {
      const apps = await rm.apps();
      // A live app where there is one: a real RM refuses to move or kill a finished one.
      const id = (apps.find((a) => a.state === 'RUNNING' || a.state === 'ACCEPTED') ?? apps[0]!).id;
      const moved = await rm.moveApp(id, options.moveTo);
      expect(moved.moved).toBe(true);
      expect(Number.isInteger(await rm.setAppPriority(id, 8))).toBe(true);
      const lifetime = await rm.setAppLifetime(id, Date.UTC(2030, 0, 1));
      expect(lifetime.type).toBe('LIFETIME');
      const first = await rm.killApp(id, 'conformance');
      expect([200, 202]).toContain(first.status);
      // 202 while the kill runs (a real RM answers KILLING); repeated, the PUT says 200 once done.
      let again = await rm.killApp(id);
      for (let i = 0; i < 40 && again.status === 202; i++) {
        await new Promise((r) => setTimeout(r, 250));
        again = await rm.killApp(id);
      }
      expect(again).toEqual({ status: 200, state: 'KILLED' });
    });

    it('creates, lists, updates and deletes a reservation', async () => {
      const id = await rm.newReservation();
      expect(id).toMatch(/^reservation_/);
      const def = {
        arrival: Date.UTC(2030, 0, 1),
        deadline: Date.UTC(2030, 0, 1, 1),
        name: 'conformance',
        interpreter: 0,
        requests: [
          {
            capability: { memoryMB: 1024, vcores: 1, extra: {} },
            numContainers: 2,
            minConcurrency: 2,
            durationMs: 60_000,
          },
        ],
      };
      await rm.submitReservation(id, options.reservationQueue, def);
      for (const r of await rm.reservations({
        queue: options.reservationQueue,
        includeResourceAllocations: true,
      })) {
        expect(r.definition.deadline).toBeGreaterThanOrEqual(r.definition.arrival);
      }
      await rm.updateReservation(id, { ...def, deadline: def.deadline + 60_000 });
      await rm.deleteReservation(id);
    });
  });
}
