/**
 * Simulator speed: workload II under every admission policy, and a synthetic
 * 2,000-node, 20,000-job trace. Prints wall time and events per second.
 * `npm run bench -- sim`
 */
import { msSince, recordFigure } from './support';
import { runPolicies } from '../src/sim/driver';
import { experiment } from '../src/sim/experiments';
import { syntheticCluster, syntheticTrace } from '../src/sim/workloads';

export default async function (): Promise<void> {
  const e = experiment('rtmr-workload-2');
  const jobs = e.jobs(1);
  const t0 = process.hrtime.bigint();
  const results = runPolicies({
    cluster: e.cluster,
    jobs,
    specs: e.specs,
    seed: 1,
    jobsFor: (s) => e.jobsFor!(s, jobs),
  });
  const ms = msSince(t0);
  console.log(
    `workload II (89 jobs, 30 nodes) under ${results.length} admission policies: ${ms.toFixed(0)} ms in all`,
  );
  recordFigure('sim workload II, every admission policy', 'ms', ms);
  for (const r of results) {
    console.log(
      `  ${r.spec.label.padEnd(18)} ${r.wallMs.toFixed(0).padStart(6)} ms  ${String(r.events).padStart(7)} events  ${((r.events / r.wallMs) * 1000).toFixed(0).padStart(8)} events/s  accepted ${r.summary.accepted}/${r.summary.jobs}`,
    );
    recordFigure(`sim workload II, ${r.spec.label}`, 'ms', r.wallMs);
  }

  const nodes = Number(process.env.SIM_BENCH_NODES ?? 2000);
  const count = Number(process.env.SIM_BENCH_JOBS ?? 20000);
  const cluster = syntheticCluster(nodes);
  // Facebook-like sizes (mean ~220 maps of ~19 s); arrivals spaced for roughly 70% map-slot load.
  const meanMaps = 217;
  const interarrival = (meanMaps * 19) / (nodes * 4 * 0.7);
  const trace = syntheticTrace(7, count, interarrival);
  const t1 = process.hrtime.bigint();
  const [syn] = runPolicies({
    cluster,
    jobs: trace,
    specs: [{ label: 'fifo', admission: null, placement: 'fifo' }],
    seed: 1,
  });
  const ms2 = msSince(t1);
  const tasks = trace.reduce((n, j) => n + j.maps + j.reduces, 0);
  console.log(
    `synthetic: ${nodes} nodes, ${count} jobs, ${tasks} tasks, no admission + fifo placement: ${(ms2 / 1000).toFixed(1)} s, ` +
      `${syn!.events} events, ${((syn!.events / ms2) * 1000).toFixed(0)} events/s, makespan ${syn!.summary.makespanSeconds?.toFixed(0)} s simulated`,
  );
  const name = `sim synthetic ${nodes} nodes ${count} jobs, fifo`;
  recordFigure(name, 's', ms2 / 1000);
  recordFigure(`${name}: event rate`, 'events/s', (syn!.events / ms2) * 1000);
}
