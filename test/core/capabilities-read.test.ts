import { buildConfig } from '../../src/config/load';
import { classedJob, deadlineJobOf, bookOf } from '../../src/core/estimate-book';
import { defaultRegistry } from '../../src/core/registry';
import { ValidationError } from '../../src/errors/validation';

const MB = 1024 * 1024;

describe('a driver job as the core job (deadlineJobOf)', () => {
  const job = { id: 'j', arrival: 10, deadline: 100, maps: 2, reduces: 0, inputBytes: 3 * MB };

  it('converts bytes to MB and keeps times and counts (a map-only job stays map-only)', () => {
    expect(deadlineJobOf(job)).toEqual({
      id: 'j',
      arrival: 10,
      deadline: 100,
      maps: 2,
      reduces: 0,
      inputSize: 3,
    });
  });

  it('reads splits, and takes the input size from them only when told', () => {
    const withSplits = { ...job, inputBytes: 4 * MB, splitBytes: [MB, 2 * MB] };
    expect(deadlineJobOf(withSplits)).toMatchObject({ inputSize: 4, mapSplits: [1, 2] });
    expect(deadlineJobOf(withSplits, { inputSize: 'splits' })).toMatchObject({ inputSize: 3 });
  });

  it('gives a job without deadline a never-reached one, and floors a deadline when told', () => {
    expect(deadlineJobOf({ ...job, deadline: null }).deadline).toBe(1e12);
    expect(deadlineJobOf({ ...job, deadline: -5 }, { minDeadline: 1e-3 }).deadline).toBe(1e-3);
  });

  it('attaches the class and its figures (classedJob)', () => {
    const est = { eta: 1, mapCostMax: 2, reduceCostMax: 3 };
    expect(classedJob(job, 'etl', bookOf(est))).toMatchObject({ workloadClass: 'etl', estimates: est });
  });
});

describe('capabilities the drivers read', () => {
  const registry = defaultRegistry();

  it("takes RTMR's feedback off with its arguments", () => {
    expect(registry.admissionCapabilities('rtmr').feedback).toBe(true);
    expect(registry.admissionCapabilities('rtmr', { feedback: false }).feedback).toBe(false);
    expect(registry.admissionCapabilities('fifo-all', { feedback: false }).feedback).toBe(true);
  });

  it("says DC's test runs a job's reduces at once, and no other admission policy's does", () => {
    const atOnce = registry.names('admission').filter((n) => registry.admissionCapabilities(n).reducesAtOnce);
    expect(atOnce).toEqual(['dc']);
  });

  it('refuses enforcement.reservations under an admission policy without reservations', () => {
    const options = { knownAdmissionPolicies: registry.names('admission') };
    expect(() =>
      buildConfig({ admission: { policy: 'rtmr' }, enforcement: { reservations: true } }, options),
    ).not.toThrow();
    let err: unknown;
    try {
      buildConfig({ admission: { policy: 'dc' }, enforcement: { reservations: true } }, options);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.path)).toEqual(['enforcement.reservations']);
  });
});
