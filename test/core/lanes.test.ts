import { rtmr } from '../../src/core/admission';
import {
  admitInLanes,
  laneFinished,
  laneKindsFor,
  laneLeft,
  laneStarted,
  queueRanks,
  rebuildLaneState,
  soonestRejection,
  type Lane,
} from '../../src/core/lanes';
import type { SlotModel } from '../../src/core/slots/model';
import { EST, job } from './admission/helpers';

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
});
