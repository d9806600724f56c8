import { buildRegistry, defaultRegistry } from '../../src/core/registry';
import { entry } from '../../src/core/policy-entry';
import { ValidationError } from '../../src/errors/validation';

describe('policy registry', () => {
  const registry = defaultRegistry();

  it('names every placement policy of the issue', () => {
    expect(registry.names('placement')).toEqual([
      'asrpt',
      'delay',
      'efh',
      'efh-no-ae',
      'fair-delay',
      'fair-matchmaking',
      'fifo',
      'ideal-energy',
      'job-size',
      'matchmaking',
    ]);
  });

  it('creates each policy under its own name with validated arguments', () => {
    for (const name of [
      'fifo',
      'delay',
      'matchmaking',
      'fair-delay',
      'fair-matchmaking',
      'asrpt',
      'job-size',
    ]) {
      expect(registry.createPlacement(name).name).toBe(name);
    }
    expect(registry.createPlacement('delay', { maxDelayMs: 9000 }).name).toBe('delay');
    expect(() => registry.createPlacement('delay', { maxDelay: 9000 })).toThrow(/placement\.args.*maxDelay/);
  });

  it('an unknown name is a ValidationError listing the known names', () => {
    let err: unknown;
    try {
      registry.createPlacement('fiffo');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toBe(
      'placement.policy: unknown placement policy "fiffo"; known: asrpt, delay, efh, efh-no-ae, fair-delay, fair-matchmaking, fifo, ideal-energy, job-size, matchmaking',
    );
    expect(() => registry.createAdmission('edf')).toThrow(
      /admission\.policy: unknown admission policy "edf"; known: dc, edf-all, fifo-all, rtmr, rtmr-fifo, rtmr-no-feedback, yarn-greedy/,
    );
    expect(() => buildRegistry().createAdmission('rtmr')).toThrow(/known: \(none registered\)/);
  });

  it('takes admission entries by name, says which kind a misplaced name is, and refuses a name in both tables', () => {
    const withAdmission = buildRegistry({
      'fifo-all': entry('admit everything', (a) => ({ kind: 'fifo-all', a })),
    });
    expect(withAdmission.names('admission')).toEqual(['fifo-all']);
    expect(withAdmission.createAdmission('fifo-all', { x: 1 })).toEqual({ kind: 'fifo-all', a: { x: 1 } });
    expect(() => withAdmission.createPlacement('fifo-all')).toThrow(/"fifo-all" is an admission policy/);
    expect(() => withAdmission.createAdmission('efh')).toThrow(/"efh" is a placement policy/);
    expect(() => buildRegistry({ fifo: entry('x', () => 1) })).toThrow(/registry\.fifo: named both/);
  });

  it('holds the admission policies, each built by the admission core with its arguments validated', () => {
    expect(registry.names('admission')).toEqual([
      'dc',
      'edf-all',
      'fifo-all',
      'rtmr',
      'rtmr-fifo',
      'rtmr-no-feedback',
      'yarn-greedy',
    ]);
    expect(() => registry.createAdmission('rtmr', {})).toThrow(ValidationError);
  });

  it.each(['dc', 'edf-all', 'fifo-all', 'rtmr', 'rtmr-fifo', 'rtmr-no-feedback', 'yarn-greedy'])(
    'builds %s from the arguments the live sidecar passes, and it admits a small job on an empty cluster',
    (name) => {
      const policy = registry.createAdmission(name, {
        slotModel: { name: 'unified', containers: 8 },
        estimates: { eta: 1, mapCostMax: 0.1, reduceCostMax: 0.1 },
        feedbackThresholdSeconds: 30,
      });
      const job = { id: 'j', arrival: 0, deadline: 600, maps: 4, reduces: 1, inputSize: 512 };
      expect(policy.admit(policy.initialState(0), job, 0).admitted).toBe(true);
    },
  );

  it('is frozen: building it has no side effects on another registry', () => {
    expect(Object.isFrozen(registry)).toBe(true);
    expect(Object.isFrozen(registry.placement)).toBe(true);
    expect(defaultRegistry()).not.toBe(registry);
  });
});
