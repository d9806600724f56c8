import { dc, rtmr } from '../../src/core/admission';
import { progressOf, type TaskProgress } from '../../src/core/admission/common/progress';
import {
  admitInLanes,
  laneFinished,
  laneFinishes,
  laneKindsFor,
  laneLeft,
  laneStarted,
  queueRanks,
  rebuildLaneState,
  soonestRejection,
  type Lane,
} from '../../src/core/lanes';
import type { SlotModel } from '../../src/core/slots/model';
import { EST, EST_AM, job } from './admission/helpers';

const small: SlotModel = { name: 'unified', containers: 1 };
const big: SlotModel = { name: 'unified', containers: 8 };
const lane = (model: SlotModel): Lane & { model: SlotModel } => {
  const policy = rtmr({ slotModel: model, estimates: EST });
  return { policy, model, state: policy.initialState(0) };
};

describe('admission lanes (src/core/lanes), shared by the simulator and the sidecar', () => {
  it.each([
    ['cpu', false, ['cpu']],
    ['gpu', false, ['gpu']],
    ['adaptive', false, ['cpu', 'gpu']],
    ['adaptive', true, ['gpu', 'cpu']],
  ] as const)('a %s job (GPU cheaper: %s) is tried in %j', (type, gpuFirst, kinds) => {
    expect(laneKindsFor(type, gpuFirst)).toEqual(kinds);
  });

  it('admits in the first lane that takes the job, changing no state', () => {
    const cpu = lane(small);
    const gpu = lane(big);
    const j = job('j', { maps: 8, inputSize: 80, deadline: 120 });
    const before = [cpu.state, gpu.state];
    const rejected: string[] = [];
    const r = admitInLanes(
      [
        { lane: cpu, job: j, name: 'cpu' },
        { lane: gpu, job: j, name: 'gpu' },
      ],
      0,
      undefined,
      (t) => rejected.push(t.name),
    );
    expect(rejected).toEqual(['cpu']);
    expect(r.admitted?.name).toBe('gpu');
    expect([cpu.state, gpu.state]).toEqual(before);
  });

  it('reports the rejection whose earliest admissible deadline is soonest', () => {
    const j = job('j', { maps: 8, inputSize: 80, deadline: 1 });
    const r = admitInLanes(
      [
        { lane: lane(small), job: j },
        { lane: lane(big), job: j },
      ],
      0,
    );
    expect(r.admitted).toBeNull();
    const soonest = soonestRejection(r.rejected)!;
    expect(soonest.result.admitted).toBe(false);
    expect(soonest).toBe(r.rejected[1]);
  });

  it('routes a job through its lane: started, ranked, finished or left', () => {
    const l = lane(big);
    const a = job('a', { deadline: 100 });
    const b = job('b', { deadline: 50 });
    for (const j of [a, b]) {
      const r = admitInLanes([{ lane: l, job: j }], 0).admitted!;
      l.state = r.result.state;
    }
    expect([...queueRanks(l)]).toEqual([
      ['b', 0],
      ['a', 1],
    ]);
    laneStarted(l, 'b');
    laneFinished(l, 'b', { mapFinishTimes: [1], reduceFinishTimes: [2], finishedAt: 2 }, 2);
    laneLeft(l, 'a', 3);
    expect(queueRanks(l).size).toBe(0);
  });

  it('rebuilds a lane from its open jobs: by snapshot, or by re-admitting each whole', () => {
    const l = lane(big);
    const jobs = [{ job: job('a', { deadline: 100 }) }, { job: job('b', { deadline: 50 }) }];
    const state = rebuildLaneState(l.policy, big, EST, 0, jobs);
    expect(l.policy.queue(state).map((j) => j.id)).toEqual(['b', 'a']);
    const readmitting = { ...l.policy, fromSnapshot: undefined } as unknown as Lane['policy'];
    const again = rebuildLaneState(readmitting, big, EST, 0, jobs);
    expect(l.policy.queue(again).map((j) => j.id)).toEqual(['b', 'a']);
  });

  describe("a running job's predicted finish (laneFinishes after a rebuild from its progress)", () => {
    // 2 maps of 10 MB (eps^m = 10 s) and a reduce of 20 MB (eps^r = 20 s), on 8 free containers.
    const j = job('j', { maps: 2, reduces: 1, inputSize: 20, deadline: 100 });
    const done: TaskProgress = { kind: 'map', state: 'done', start: 0 };
    const reduceSince = (start: number): TaskProgress => ({ kind: 'reduce', state: 'running', start });
    /** The lane rebuilt at `now` from j's tasks (and `others`, read or not), then its finishes. */
    const predictAt = (
      now: number,
      tasks: readonly TaskProgress[],
      others: Array<{ job: typeof j }> = [],
    ) => {
      const l = lane(big);
      l.state = rebuildLaneState(l.policy, big, EST, now, [
        { job: j, progress: progressOf(j, tasks, now) },
        ...others,
      ]);
      return laneFinishes(l);
    };

    it('is the estimate while its tasks keep their estimates, and later once a task runs past its own', () => {
      // The admission's answer: maps 0-10, the reduce 10-30.
      const admitted = admitInLanes([{ lane: lane(big), job: j }], 0).admitted!;
      expect(admitted.result.admitted && admitted.result.estimatedFinish).toBe(30);
      // Maps done, the reduce running since 10: on time, it ends at 30, the estimate.
      expect(predictAt(20, [done, done, reduceSince(10)]).get('j')).toBe(30);
      // The reduce started late, at 70: within its 20 s at 75, it ends at 90.
      expect(predictAt(75, [done, done, reduceSince(70)]).get('j')).toBe(90);
      // At 100 it has run 30 s of its 20: it holds its slot until twice its estimate, 110.
      expect(predictAt(100, [done, done, reduceSince(70)]).get('j')).toBe(110);
      // At 120, past that too: one more estimate from now, 140; after the deadline of 100.
      const late = predictAt(120, [done, done, reduceSince(70)]).get('j')!;
      expect(late).toBe(140);
      expect(late).toBeGreaterThan(j.arrival + j.deadline);
    });

    it('places a job not yet read whole from now behind the started one; with its set-up and commit', () => {
      const queued = job('q', { maps: 8, reduces: 1, inputSize: 80, deadline: 400 });
      // q: 8 maps of 10 s on the 7 containers the running reduce leaves (maps 100-110, one
      // 110-120), its 80 s reduce 120-200.
      const f = predictAt(100, [done, done, reduceSince(70)], [{ job: queued }]);
      expect([...f]).toEqual([
        ['j', 110],
        ['q', 200],
      ]);
      // With an AM holding a container (set-up 3 s, commit 2 s): j has started, so its AM takes
      // a container again but no set-up; its commit follows its reduce: 110 + 2.
      const policy = rtmr({ slotModel: big, estimates: EST_AM });
      const l: Lane = { policy, state: null };
      l.state = rebuildLaneState(policy, big, EST_AM, 100, [
        { job: j, progress: progressOf(j, [done, done, reduceSince(70)], 100) },
      ]);
      expect(laneFinishes(l).get('j')).toBe(112);
    });

    it('is empty for a policy whose state keeps no finish per job (dc)', () => {
      const policy = dc({ slotModel: big, filterRatio: 1, mapCost: 1, reduceCost: 1, transferCost: 0 });
      const l: Lane = { policy, state: rebuildLaneState(policy, big, EST, 0, [{ job: j }]) };
      expect(laneFinishes(l).size).toBe(0);
    });
  });
});
