import { Engine } from '../../src/sim/engine';
import { runPolicies } from '../../src/sim/driver';
import { acceptAll, cluster, greedyLocal, nodeClass, traceJob } from './doubles';

/**
 * A replayed job's time outside its tasks (TraceJob.overheads): its tasks wait for its set-up,
 * and it finishes its commit after its last task. Heartbeats every second at phases in [0, 1).
 */
const spec = cluster({
  slotModel: 'unified',
  heartbeatSeconds: 1,
  remoteReadPenalty: 0,
  nodeClasses: [nodeClass('n', 1, { containers: 4 })],
});
const replayed = (id: string, over = {}) =>
  traceJob(id, {
    maps: 2,
    reduces: 1,
    replay: { mapSeconds: [10, 20], reduceSeconds: [5] },
    overheads: { setupSeconds: 7, commitSeconds: 3 },
    ...over,
  });

describe('set-up and commit of a replayed job', () => {
  it('its tasks start after its set-up, and it finishes its commit after its last task', () => {
    const e = new Engine(spec, { seed: 1, admission: acceptAll(), placement: greedyLocal() });
    e.submit(replayed('a'));
    e.run();
    const o = e.outcomes()[0]!;
    // The first heartbeat at or after 7 s starts both maps; the reduce follows the 20 s map.
    expect(o.start).toBeGreaterThanOrEqual(7);
    expect(o.start).toBeLessThan(8);
    expect(o.finish! - o.start!).toBeGreaterThanOrEqual(20 + 5 + 3);
    // The reduce waits for the next heartbeat after the maps (up to one).
    expect(o.finish! - o.start!).toBeLessThanOrEqual(20 + 5 + 3 + 1);
    const tasks = e.taskRecords();
    const lastTask = Math.max(...tasks.map((t) => t.end));
    expect(o.finish! - lastTask).toBeCloseTo(3, 9);
  });

  it('without overheads the job is as before: tasks at the first heartbeat, finish with the last task', () => {
    const e = new Engine(spec, { seed: 1, admission: acceptAll(), placement: greedyLocal() });
    e.submit(replayed('a', { overheads: undefined }));
    e.run();
    const o = e.outcomes()[0]!;
    expect(o.start).toBeLessThan(1);
    expect(o.finish).toBeCloseTo(Math.max(...e.taskRecords().map((t) => t.end)), 9);
  });

  it('a job killed in its set-up never runs a task; one killed in its commit does not finish', () => {
    const e = new Engine(spec, { seed: 1, admission: acceptAll(), placement: greedyLocal() });
    e.submit(replayed('a'));
    e.submit(replayed('b', { arrival: 0 }));
    e.advanceTo(3);
    e.kill('a');
    e.advanceTo(7 + 1 + 20 + 5 + 1);
    e.kill('b');
    e.run();
    const [a, b] = e.outcomes();
    expect(a).toMatchObject({ status: 'killed', start: null, finish: null });
    expect(b).toMatchObject({ status: 'killed', finish: null });
    expect(e.taskRecords().filter((t) => t.job === 'a')).toEqual([]);
    expect(e.taskRecords().filter((t) => t.job === 'b' && t.completed)).toHaveLength(3);
  });

  it('admission decides at the arrival, and a rejection may say the earliest deadline it would admit', () => {
    const jobs = [replayed('big', { deadline: 100 }), replayed('late', { arrival: 1, deadline: 2 })];
    const [r] = runPolicies({
      cluster: spec,
      jobs,
      specs: [{ label: 'rtmr', admission: 'rtmr', placement: 'fifo' }],
      seed: 1,
      learning: null,
      searchEarliest: true,
    });
    const late = r!.outcomes.find((o) => o.id === 'late')!;
    expect(late.admitted).toBe(false);
    expect(late.earliestDeadline).toBeGreaterThan(2);
    // Admitted with that deadline, as the search says.
    const [again] = runPolicies({
      cluster: spec,
      jobs: [jobs[0]!, { ...jobs[1]!, deadline: late.earliestDeadline! }],
      specs: [{ label: 'rtmr', admission: 'rtmr', placement: 'fifo' }],
      seed: 1,
      learning: null,
    });
    expect(again!.outcomes.find((o) => o.id === 'late')!.admitted).toBe(true);
  });
});
