import { followedOf } from './app-reads';
import type { LoopParts } from './context';
import { recordPlan, planPriorities } from './plan';
import type { Reconciler } from './reconcile';
import { expireTickets } from './tickets';
import { sample } from './views';

/**
 * One poll-decide-enforce cycle, the pipeline in order:
 *   observe   poll the RM into the capacity view and lanes (observe.ts), reconcile its apps with
 *             the ledger (reconcile.ts: running, ended, discovered, lost, refused), overruns and
 *             lane progress from the AMs (lane-progress.ts), the RM's priority cap;
 *   decide    in the core's lanes (lanes.ts; discovered apps and lost jobs are decided there);
 *   plan      the RM writes the lanes' EDF order calls for (plan.ts, planPriorities);
 *   enforce   the outbox carries out every recorded write (src/enforce/enforcer.ts).
 * Each part runs even if another failed; its error is logged, not thrown.
 */
export async function runCycle(p: LoopParts, reconciler: Reconciler): Promise<void> {
  const { metrics, ledger, config, rm } = p.deps;
  const end = metrics.pollSeconds.startTimer();
  // The apps of open admitted jobs (tickets too) are followed: read by their tags every cycle.
  const openBefore = ledger.openAdmittedJobsReused();
  const read = await p.observation.poll(
    (view, sharing) => p.lanes.applyCapacity(view, sharing),
    openBefore.map(followedOf),
  );
  const step = (name: string, fn: () => unknown) => runStep(p, name, fn);
  if (read !== undefined) {
    const { apps } = read;
    await step('track apps', () => reconciler.trackApps(apps, read.full, openBefore));
    // After the apps are tracked: a ticket whose app appeared in this poll is bound, not expired.
    await step('tickets', () => expireTickets(p));
    // Read once after tracking, for the steps below (each read it on its own before).
    const open = ledger.openAdmittedJobsReused();
    // Before the lanes read their progress: a change of order rebuilds them, to be read below.
    await step('priority cap', async () => {
      await p.cap.readFrom(rm, p.deps.now);
      const switched = p.lanes.followOrder();
      if (switched !== undefined) {
        p.log.info('lanes planned with another admission order', {
          policy: switched,
          configured: config.admission.policy,
          priorityCap: p.cap.cap.value,
          why:
            switched === config.admission.policy
              ? 'the RM takes application priorities: the queue order is written as priorities'
              : 'the RM caps application priorities at 0: it starts apps in arrival order, so admission plans that order',
        });
      }
    });
    await step('overruns', () => p.progress.detectOverruns(open));
    await step('lane progress', () => p.progress.readLaneProgress(apps));
    // Each app that waited for its AM's container while preemption freed its lane's guarantee.
    await step('preemption delay', () =>
      p.observation.delays.observe(apps, (a) => p.lanes.heldWithPreemption(a)),
    );
    await step('priorities', () =>
      ledger.transaction(() =>
        recordPlan(
          ledger,
          planPriorities(config, ledger, p.lanes.all(), apps, (pos) => p.cap.priorityAt(pos), open),
        ),
      ),
    );
  }
  await step('enforce', () => p.enforcer.drain());
  await step('stats', () => sample(p));
  metrics.queueDepth.set(ledger.countOpenAdmittedJobs());
  metrics.jobsPredictedToMiss.set(p.progress.countPredictedToMiss());
  end();
}

async function runStep(p: LoopParts, name: string, fn: () => unknown): Promise<void> {
  try {
    await fn();
  } catch (err) {
    p.log.error('cycle step failed', { step: name, error: err instanceof Error ? err.stack : String(err) });
  }
}
