/**
 * Twenty apps through the real client, driven by an injected clock: submission with label
 * expressions and tags, a move, a priority raise, a kill and a lifetime; the answers, later
 * GETs, the final states, and the JobHistory tasks against the simulated run.
 */
import { JobHistoryClient } from '../../src/yarn/jobhistory';
import { MB } from '../../src/sim/model';
import { DEFAULT_COSTS } from '../../src/emulator/config';
import { LIFETIME_DIAGNOSTICS } from '../../src/emulator/rm-state';
import { client, defaultEmulatorConfig, harness, T0, type Harness } from './helpers';
import { amCommand } from '../../src/yarn/submission';

const N = 20;
const QUEUES = ['realtime', 'besteffort', 'default'];

describe.each(['json', 'xml'] as const)('20 apps through the client (%s)', (format) => {
  let h: Harness;
  let rm: ReturnType<typeof client>;
  const ids: string[] = [];
  const MOVED = 1;
  const RAISED = 2;
  const KILLED = 3;
  const TIMED_OUT = 4;
  const isGpu = (i: number) => i % 5 === 0;

  beforeAll(async () => {
    // A cluster that allows priorities up to 10 (a stock one caps them at 0).
    h = await harness({ speed: 20, config: defaultEmulatorConfig({ maxApplicationPriority: 10 }) });
    rm = client(h.emu.url, format);
    for (let i = 0; i < N; i++) {
      const { applicationId } = await rm.newApplication();
      const maps = 2 + (i % 4);
      // The app whose lifetime runs out is large enough to be still running then.
      const mb = i === TIMED_OUT ? 4096 : 64;
      const res = await rm.submitApp({
        applicationId,
        name: `app-${i}`,
        queue: isGpu(i) ? 'realtime' : QUEUES[i % 3],
        priority: 1,
        applicationType: 'MAPREDUCE',
        tags: [
          `maps:${maps}`,
          'reduces:1',
          `input-bytes:${maps * mb * MB}`,
          `type:${isGpu(i) ? 'gpu' : 'cpu'}`,
          `Sidecar-Id:S${i}`,
          'deadline:2025-01-01T10:00:00.000Z',
        ],
        appNodeLabelExpression: isGpu(i) ? 'gpu' : '',
        amNodeLabelExpression: '',
        amResource: { memoryMB: 1024, vcores: 1 },
        am: amCommand('true'),
      });
      expect(res.status).toBe(202);
      expect(res.location).toBe(`${h.emu.url}/ws/v1/cluster/apps/${applicationId}`);
      ids.push(applicationId);
    }
  });
  afterAll(() => h.emu.close());

  it('lists the 20 apps with their queues, labels and lower-cased tags', async () => {
    h.advance(2);
    const apps = await rm.apps({ applicationTags: ['sidecar-id:s7'] });
    expect(apps.map((a) => a.id)).toEqual([ids[7]]);
    const all = await rm.apps();
    expect(all.map((a) => a.id)).toEqual(ids);
    for (const [i, a] of all.entries()) {
      expect(a.appNodeLabelExpression).toBe(isGpu(i) ? 'gpu' : '');
      expect(a.applicationTags).toContain(`sidecar-id:s${i}`);
      expect(a.applicationTags).toContain('deadline:2025-01-01t10:00:00.000z');
      // The RM reports the queue's full path (measured on 3.4.3).
      expect(a.queue).toBe(`root.${isGpu(i) ? 'realtime' : QUEUES[i % 3]}`);
      expect(['SUBMITTED', 'ACCEPTED', 'RUNNING']).toContain(a.state);
    }
    expect((await rm.apps({ queue: 'realtime' })).map((a) => a.id)).toEqual(
      ids.filter((_, i) => isGpu(i) || i % 3 === 0),
    );
  });

  it('moves one app and reports the full queue path', async () => {
    const moved = await rm.moveApp(ids[MOVED]!, 'default');
    expect(moved).toEqual({ queue: 'root.default', moved: true });
    expect(await rm.appQueue(ids[MOVED]!)).toBe('root.default');
    expect((await rm.app(ids[MOVED]!)).queue).toBe('root.default');
    expect(h.emu.rm.engine.snapshot().jobs.find((j) => j.id === ids[MOVED])!.queue).toBe('default');
  });

  it('raises a priority and answers the capped value', async () => {
    expect(await rm.setAppPriority(ids[RAISED]!, 50)).toBe(10);
    expect(await rm.appPriority(ids[RAISED]!)).toBe(10);
    expect(h.emu.rm.engine.snapshot().jobs.find((j) => j.id === ids[RAISED])!.priority).toBe(10);
  });

  it('kills an app: 202 first, then 200 KILLED', async () => {
    const first = await rm.killApp(ids[KILLED]!, 'test kill');
    expect(first.status).toBe(202);
    // The RMAppState while the kill runs, as a real RM answers it.
    expect(first.state).toBe('KILLING');
    expect(await rm.appState(ids[KILLED]!)).toBe('KILLED');
    expect(await rm.killApp(ids[KILLED]!)).toEqual({ status: 200, state: 'KILLED' });
  });

  it('sets a lifetime that kills the app when it runs out', async () => {
    const expiry = h.emu.time.nowEpochMs() + 10_000;
    const t = await rm.setAppLifetime(ids[TIMED_OUT]!, expiry);
    expect(t).toEqual({ type: 'LIFETIME', expiryTime: expiry, remainingTimeInSeconds: 10 });
    expect((await rm.appTimeout(ids[TIMED_OUT]!)).expiryTime).toBe(expiry);
    h.advance(9);
    expect(await rm.appState(ids[TIMED_OUT]!)).toBe('RUNNING');
    h.advance(2);
    const app = await rm.app(ids[TIMED_OUT]!);
    expect(app.state).toBe('KILLED');
    expect(app.finalStatus).toBe('KILLED');
    expect(app.finishedTime).toBe(expiry);
    expect(app.diagnostics).toContain(LIFETIME_DIAGNOSTICS);
  });

  it('ends with the killed and timed-out apps KILLED and every other app FINISHED', async () => {
    for (let k = 0; k < 60; k++) h.advance(60);
    const apps = await rm.apps();
    for (const [i, a] of apps.entries()) {
      const expected = i === KILLED || i === TIMED_OUT ? 'KILLED' : 'FINISHED';
      expect([a.id, a.state]).toEqual([ids[i], expected]);
      if (expected === 'FINISHED') expect(a.finalStatus).toBe('SUCCEEDED');
      expect(a.finishedTime).toBeGreaterThan(a.startedTime);
      expect(a.startedTime).toBeGreaterThanOrEqual(T0);
    }
    expect(await rm.apps({ states: ['KILLED'] })).toHaveLength(2);
  });

  it('serves each finished job in the JobHistory server with the simulated task times', async () => {
    const jhs = JobHistoryClient.forHistoryServer({ urls: [h.emu.jhsUrl], format, maxAttempts: 1 });
    const emu = h.emu.rm;
    for (const [i, id] of ids.entries()) {
      if (i === KILLED || i === TIMED_OUT) continue;
      const tasks = await jhs.tasksOfApp(id);
      const rec = emu.mustApp(id);
      expect(tasks).toHaveLength(rec.maps + rec.reduces);
      const records = emu.taskRecordsOf(id).filter((t) => t.completed);
      for (const task of tasks) {
        expect(task.state).toBe('SUCCEEDED');
        const index = Number(task.id.slice(task.id.lastIndexOf('_') + 1));
        const kind = task.type === 'MAP' ? 'map' : 'reduce';
        const sim = records.find((r) => r.kind === kind && r.index === index)!;
        expect(task.startTime).toBe(emu.epoch(sim.start));
        expect(task.finishTime).toBe(emu.epoch(sim.end));
        expect(task.elapsedTime).toBe(task.finishTime - task.startTime);
        // Node labels: maps and reduces of GPU apps ran on the gpu partition, the others' off it.
        expect(sim.nodeClass).toBe(isGpu(i) ? 'gpu' : 'cpu');
      }
      expect((await jhs.tasksOfApp(id, 'REDUCE')).map((t) => t.type)).toEqual(['REDUCE']);
    }
  });

  it('never runs a map longer than the documented worst case per MB', () => {
    const emu = h.emu.rm;
    for (const id of ids) {
      const mb = emu.splitMB(emu.mustApp(id));
      const worst =
        (DEFAULT_COSTS.mapFixedSeconds + DEFAULT_COSTS.mapSecondsPerMB * mb) * 1.5 * DEFAULT_COSTS.jitter[1];
      for (const t of emu.taskRecordsOf(id)) {
        if (t.kind === 'map' && t.completed) expect(t.end - t.start).toBeLessThanOrEqual(worst + 1e-9);
      }
    }
  });
});
