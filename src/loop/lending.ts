import type { PreemptionSettings } from '../yarn/conf';
import { sameQueue } from '../yarn/ids';
import type { QueueInfo, SchedulerInfo } from '../yarn/model';

/**
 * Whether the real-time queue's guarantee is its own when an admitted job needs it (issue: the
 * promise on a shared cluster). The CapacityScheduler lends a queue's idle guarantee to the other
 * queues, each up to its maximum capacity, and takes it back only by preemption. So per
 * partition the real-time queue reaches: what it is guaranteed, what it may grow to, what it
 * uses, how much of the partition the other queues may hold beyond their own guarantees (what
 * they can borrow), how much they hold beyond them now, and which of them preemption cannot
 * touch. All percentages are of the partition, as the scheduler reports them (absolute*).
 */
export interface PartitionLending {
  /** '' is the default partition. */
  partition: string;
  guaranteed: number;
  maximum: number;
  used: number;
  /** Sum over the other leaves of max(0, absolute max - absolute capacity): what they may borrow. */
  othersMayBorrow: number;
  /** Sum over the other leaves of max(0, absolute used - absolute capacity): borrowed now. */
  othersBorrowNow: number;
  /** Other leaves that may borrow here and whose containers are never preempted. */
  unpreemptable: string[];
  /**
   * `own`: nobody may borrow the guarantee; `preempted`: it can be lent, and preemption takes it
   * back (after its waits); `lent`: it can be lent and nothing takes it back (preemption off,
   * or every borrower exempt); `unknown`: preemption's state is not known.
   */
  verdict: 'own' | 'preempted' | 'lent' | 'unknown';
}

export interface LendingView {
  queue: string;
  /** The real-time queue was found among the scheduler's leaves. */
  found: boolean;
  preemption: PreemptionSettings;
  partitions: PartitionLending[];
  /** One line per partition whose guarantee can be lent with nothing to take it back. */
  warnings: string[];
}

function leavesOf(q: QueueInfo): QueueInfo[] {
  return q.kind === 'leaf' || q.children.length === 0 ? [q] : q.children.flatMap(leavesOf);
}

function reaches(q: QueueInfo, label: string): boolean {
  return label === '' || q.accessibleNodeLabels.includes('*') || q.accessibleNodeLabels.includes(label);
}

/** The queue's absolute figures in one partition (its per-partition ones where the RM sends them). */
function figures(q: QueueInfo, label: string): { cap: number; max: number; used: number } {
  if (!reaches(q, label)) return { cap: 0, max: 0, used: 0 };
  const p = q.partitions.find((x) => x.partition === label);
  if (p) return { cap: p.absoluteCapacity, max: p.absoluteMaxCapacity, used: p.absoluteUsedCapacity };
  if (label !== '') return { cap: 0, max: 0, used: 0 };
  return { cap: q.absoluteCapacity, max: q.absoluteMaxCapacity, used: q.absoluteUsedCapacity };
}

const round = (x: number) => Math.round(x * 100) / 100;

/** The partitions the queue reaches: the default one and each label it names (not `*`). */
function partitionsOf(q: QueueInfo, labels: readonly string[]): string[] {
  const named = q.accessibleNodeLabels.includes('*') ? labels : q.accessibleNodeLabels;
  return ['', ...new Set(named.filter((l) => l !== '' && l !== '*'))];
}

function verdictOf(
  borrow: number,
  preemption: PreemptionSettings,
  borrowers: QueueInfo[],
): PartitionLending['verdict'] {
  if (borrow <= 0) return 'own';
  if (preemption.enabled === undefined) return 'unknown';
  if (!preemption.enabled) return 'lent';
  return borrowers.every((q) => q.preemptionDisabled === true) ? 'lent' : 'preempted';
}

/**
 * The lending view of the real-time queue from one read of the scheduler and of the RM's
 * preemption settings. `labels`: the cluster's node labels (for a queue that reaches `*`).
 */
export function lendingView(
  scheduler: SchedulerInfo,
  preemption: PreemptionSettings,
  realtimeQueue: string,
  labels: readonly string[] = [],
): LendingView {
  const leaves = leavesOf(scheduler.root);
  const rt = leaves.find((q) => sameQueue(q.path, realtimeQueue) || q.name === realtimeQueue);
  if (rt === undefined)
    return { queue: realtimeQueue, found: false, preemption, partitions: [], warnings: [] };
  const others = leaves.filter((q) => q !== rt);
  const partitions = partitionsOf(rt, labels).map((label): PartitionLending => {
    const own = figures(rt, label);
    let mayBorrow = 0;
    let borrowNow = 0;
    const borrowers: QueueInfo[] = [];
    for (const q of others) {
      const f = figures(q, label);
      if (f.max > f.cap) {
        mayBorrow += f.max - f.cap;
        borrowers.push(q);
      }
      borrowNow += Math.max(0, f.used - f.cap);
    }
    return {
      partition: label,
      guaranteed: own.cap,
      maximum: own.max,
      used: own.used,
      othersMayBorrow: round(mayBorrow),
      othersBorrowNow: round(borrowNow),
      unpreemptable: borrowers.filter((q) => q.preemptionDisabled === true).map((q) => q.path),
      verdict: verdictOf(Math.min(mayBorrow, own.cap), preemption, borrowers),
    };
  });
  const warnings = partitions
    .filter((p) => p.verdict === 'lent' || (p.verdict === 'preempted' && p.unpreemptable.length > 0))
    .map((p) => {
      const where = p.partition === '' ? 'the default partition' : `partition ${p.partition}`;
      const why =
        p.verdict === 'lent' && preemption.enabled === false
          ? 'preemption is off (yarn.resourcemanager.scheduler.monitor.enable=false)'
          : `preemption cannot take back what ${p.unpreemptable.join(', ')} hold(s) (disable_preemption)`;
      return (
        `${rt.path}'s guarantee in ${where} (${p.guaranteed}%) can be lent: the other queues may grow ` +
        `${p.othersMayBorrow}% of the partition beyond their own guarantees (${p.othersBorrowNow}% now), and ${why}; ` +
        "an admitted job can wait behind another tenant's containers: use enforcement.reservations for hard deadlines"
      );
    });
  return { queue: rt.path, found: true, preemption, partitions, warnings };
}
