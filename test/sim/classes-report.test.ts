import { bookOf } from '../../src/core/estimate-book';
import { runPolicies } from '../../src/sim/driver';
import { admissionPort, judgedBy } from '../../src/sim/policies';
import { jobsCsv } from '../../src/sim/report';
import { cluster, traceJob } from './doubles';

/**
 * The workload class in the simulator's per-job output (docs/simulator.md, `jobs.csv`): each
 * row names the class whose estimates judged the job, and a rejection's reason names it too.
 */
describe('workload classes in jobs.csv and rejection reasons', () => {
  const jobs = [
    // 4 maps of 100 MB at 0.1 s/MB: no plan finishes them within 1 s.
    traceJob('etl-1', { workloadClass: 'etl', deadline: 1 }),
    traceJob('plain', { arrival: 1, deadline: 5000 }),
    traceJob('plain-late', { arrival: 2, deadline: 2 }),
  ];
  const runs = runPolicies({
    cluster: cluster(),
    jobs,
    specs: [{ label: 'rtmr', admission: 'rtmr', placement: 'fifo' }],
    seed: 1,
  });
  const outcomes = runs[0]!.outcomes;

  it('each outcome carries its class: the trace’s class field, else the job type', () => {
    expect(outcomes.map((o) => [o.id, o.workloadClass, o.admitted])).toEqual([
      ['etl-1', 'etl', false],
      ['plain', 'cpu', true],
      ['plain-late', 'cpu', false],
    ]);
  });

  it('a rejection names the class whose estimates judged it', () => {
    expect(outcomes[0]!.reason).toMatch(/^new-job-misses: etl-1 late by \d+\.\d s \(class etl estimates\)$/);
    expect(outcomes[2]!.reason).toMatch(
      /^new-job-misses: plain-late late by \d+\.\d s \(class cpu estimates\)$/,
    );
    expect(outcomes[1]!.reason).toBeNull();
  });

  it('jobs.csv has a class column after type, one value per row', () => {
    const lines = jobsCsv([1], [runs]).trim().split('\n');
    const head = lines[0]!.split(',');
    expect(head.slice(head.indexOf('type'), head.indexOf('type') + 3)).toEqual(['type', 'class', 'user']);
    const col = head.indexOf('class');
    expect(lines.slice(1).map((l) => l.split(',')[col])).toEqual(['etl', 'cpu', 'cpu']);
  });

  it('a class without figures of its own is judged, and named, with the default', () => {
    const est = { eta: 0.1, mapCostMax: 0.1, reduceCostMax: 0.1 };
    const book = bookOf(est, { etl: est });
    expect(judgedBy(book, 'etl')).toBe('class etl estimates');
    expect(judgedBy(book, 'cpu')).toBe('class cpu, default estimates');
    // A class named like an Object.prototype member has no figures of its own either.
    expect(judgedBy(book, 'constructor')).toBe('class constructor, default estimates');
    const port = admissionPort('rtmr', {}, cluster(), book);
    const d = port.decide(traceJob('x', { deadline: 1 }), 0);
    expect(d.admit).toBe(false);
    expect(d.reason).toMatch(/\(class cpu, default estimates\)$/);
  });
});
