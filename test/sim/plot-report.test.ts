import { plots, type PolicyReport, type SummaryFile } from '../../src/sim/report';

/**
 * Which plots a report draws, from summary.json's figures: the admission bars only when some
 * policy refused or missed, a sweep's figures against D (one line per policy family, the ones
 * without D flat) instead of one bar per swept label, and each policy's figures with their
 * spread in its bars.
 */
function report(over: Partial<PolicyReport>): PolicyReport {
  return {
    acceptRatio: null,
    successRatio: null,
    utilization: 0.5,
    jobs: 10,
    accepted: 10,
    succeeded: 10,
    makespanSeconds: 1000,
    meanMapResponseSeconds: 40,
    localityRate: 0.9,
    energyKWh: null,
    taskEnergyKWh: null,
    meanTurnaroundSeconds: 100,
    missed: 0,
    sd: {},
    runs: 1,
    ...over,
  };
}

interface Row {
  group?: string;
  series: string;
  value: number | null;
  hi?: number | null;
  x?: number;
  kind?: string;
}
const rows = (spec: unknown) => (spec as { data: { values: Row[] } }).data.values;

describe('plots()', () => {
  it('an admission experiment: admission, locality and turnaround bars, with each figure and its spread', () => {
    const summary: SummaryFile = {
      format: 'yarn-sched-sidecar-sim-summary',
      version: 1,
      experiment: 'w',
      seeds: [1, 2],
      policies: {
        rtmr: report({ acceptRatio: 0.9, successRatio: 1, utilization: 0.8, sd: { acceptRatio: 0.05 } }),
        'fifo-all': report({ acceptRatio: 1, successRatio: 0.7, makespanSeconds: 1500 }),
      },
    };
    const out = plots(summary, []);
    expect(out.map((p) => p.name)).toEqual(['admission', 'locality', 'turnaround']);
    const admission = rows(out[0]!.spec);
    const accept = admission.find((r) => r.series === 'rtmr' && r.group === 'accept ratio');
    expect(accept?.value).toBe(0.9);
    expect(accept?.hi).toBeCloseTo(0.95, 12);
    expect(admission.find((r) => r.series === 'fifo-all' && r.group === 'success ratio')?.value).toBe(0.7);
    expect(rows(out[2]!.spec).find((r) => r.series === 'fifo-all' && r.group === 'makespan')?.value).toBe(
      1500,
    );
    const title = (out[0]!.spec as { title: { text: string; subtitle: string } }).title;
    expect(title).toEqual({
      text: 'w: accept, success and utilisation per policy',
      subtitle: 'mean of 2 seeds (1, 2), whiskers +/- 1 sd',
    });
  });

  it('a sweep over D: every figure against D, one line per policy family, the ones without D flat', () => {
    const summary: SummaryFile = {
      format: 'yarn-sched-sidecar-sim-summary',
      version: 1,
      experiment: 'locality',
      seeds: [1],
      policies: {
        fifo: report({ localityRate: 0.78 }),
        'delay:D=0.3': report({ localityRate: 0.85 }),
        'delay:D=3': report({ localityRate: 0.93 }),
        'delay:D=30': report({ localityRate: 0.99 }),
      },
    };
    const out = plots(summary, [], { sweep: { parameter: 'D', values: [0.3, 3, 30] } });
    expect(out.map((p) => p.name)).toEqual([
      'locality-vs-d',
      'map-response-vs-d',
      'turnaround-vs-d',
      'makespan-vs-d',
    ]);
    const locality = rows(out[0]!.spec);
    expect(locality.filter((r) => r.series === 'delay').map((r) => [r.x, r.value])).toEqual([
      [0.3, 0.85],
      [3, 0.93],
      [30, 0.99],
    ]);
    expect(locality.filter((r) => r.series === 'fifo').map((r) => r.value)).toEqual([0.78, 0.78, 0.78]);
    expect(new Set(locality.filter((r) => r.series === 'fifo').map((r) => r.kind))).toEqual(
      new Set(['without D (constant)']),
    );
    const x = (out[0]!.spec as { encoding: { x: { scale: { type: string }; axis: { values: number[] } } } })
      .encoding.x;
    expect(x.scale.type).toBe('log');
    expect(x.axis.values).toEqual([0.3, 3, 30]);
  });
});
