/**
 * Overrun handling: misses among admitted jobs when actual task times
 * reach 2x their estimates, without feedback, with the papers' feedback controller alone, and
 * with overrun handling (learning and re-admission), on the same generated workloads
 * (src/sim/overrun.ts). `npm run bench -- overrun`; OVERRUN_WORKLOADS sets the count (2000).
 */
import { recordFigure } from './support';
import { OVERRUN_ARMS, overrunStudy } from '../src/sim/overrun';

export default async function (): Promise<void> {
  const workloads = Number(process.env.OVERRUN_WORKLOADS ?? 2000);
  for (const slotModel of ['mr1', 'unified'] as const) {
    const t0 = process.hrtime.bigint();
    const r = overrunStudy({ workloads, seed: 1, slotModel });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(
      `${slotModel}: ${r.workloads} workloads, ${r.jobs} jobs, actual up to 2x estimate (${s.toFixed(1)} s)`,
    );
    for (const arm of OVERRUN_ARMS) {
      const a = r.arms[arm];
      const rate = a.admitted === 0 ? 0 : (100 * a.misses) / a.admitted;
      console.log(
        `  ${arm.padEnd(12)} admitted ${String(a.admitted).padStart(6)}  missed ${String(a.misses).padStart(5)} (${rate.toFixed(2)}% of admitted)`,
      );
      // Ratio: misses without feedback over this arm's.
      const baseline = r.arms['no-feedback'].misses;
      recordFigure(`overrun ${slotModel} ${r.workloads} workloads, ${arm}: misses`, '% of admitted', rate, {
        ratio: a.misses === 0 ? null : baseline / a.misses,
      });
    }
    const none = r.arms['no-feedback'].misses;
    const fb = r.arms.feedback.misses;
    console.log(`  misses without feedback / with: ${fb === 0 ? 'all gone' : (none / fb).toFixed(1) + 'x'}`);
  }
}
