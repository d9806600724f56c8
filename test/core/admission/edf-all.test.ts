import { edfAll } from '../../../src/core/admission/edf-all';
import { defaultRegistry } from '../../../src/core/registry';
import type { SlotModel } from '../../../src/core/slots/model';
import { EST, job } from './helpers';

const model: SlotModel = { name: 'mr1', mapSlots: 2, reduceSlots: 1 };

describe('edf-all: EDF order without admission control', () => {
  it('admits a job that will miss its deadline and reports its estimated finish', () => {
    const p = edfAll({ slotModel: model, estimates: EST });
    const r = p.admit(p.initialState(0), job('late', { maps: 4, inputSize: 40, deadline: 5 }), 0);
    expect(r).toMatchObject({ admitted: true, estimatedFinish: 60 });
  });

  it('queues by absolute deadline, not by arrival', () => {
    const p = edfAll({ slotModel: model, estimates: EST });
    let s = p.initialState(0);
    s = p.admit(s, job('far', { arrival: 0, deadline: 1000 }), 0).state;
    const second = p.admit(s, job('near', { arrival: 1, deadline: 50 }), 1);
    expect(second).toMatchObject({ admitted: true, position: 0 });
    expect(p.queue(second.state).map((j) => j.id)).toEqual(['near', 'far']);
  });

  it('is registered with its capabilities: no promise, its own EDF queue, snapshot rebuild', () => {
    const registry = defaultRegistry();
    expect(registry.names('admission')).toContain('edf-all');
    expect(registry.admissionCapabilities('edf-all')).toMatchObject({
      promisesDeadlines: false,
      queueOrder: 'policy',
      dispatch: null,
      snapshotRebuild: true,
    });
    const p = registry.createAdmission('edf-all', { slotModel: model, estimates: EST });
    expect(p.name).toBe('edf-all');
  });
});
