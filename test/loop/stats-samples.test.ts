/**
 * The dashboard's samples (src/loop/views.ts): one slot per sample in the ledger's named values,
 * the latest MAX_SAMPLES kept in order, a series kept by an earlier version as one value moved
 * into slots, and the counts and energy read from the ledger's job totals.
 */
import type { StatsSample } from '../../src/model/job-views';
import type { LoopParts } from '../../src/loop/context';
import { MAX_SAMPLES, sample, statsOf } from '../../src/loop/views';
import { SqliteLedger } from '../../src/store/ledger';
import { jobRecord } from '../store/builders';

function parts(ledger: SqliteLedger, clock: { now: number }): LoopParts {
  return {
    deps: { ledger, now: () => clock.now },
    observation: { capacity: { partitions: [{ label: '', utilization: 0.25 }] } },
  } as unknown as LoopParts;
}

const slotKeys = (ledger: SqliteLedger) =>
  (
    ledger.connection.prepare("SELECT key FROM kv WHERE key LIKE 'stats%' ORDER BY key").all() as Array<{
      key: string;
    }>
  ).map((r) => r.key);

describe('dashboard samples', () => {
  it('keeps the latest samples in the order they were taken, each in a slot of its own', () => {
    const ledger = SqliteLedger.open(':memory:');
    const clock = { now: Date.UTC(2026, 10, 25) };
    const p = parts(ledger, clock);
    const taken = MAX_SAMPLES + 10;
    for (let i = 0; i < taken; i++) {
      ledger.insertJob(jobRecord(`j${i}`, i % 2 === 0 ? {} : { decision: 'rejected', state: 'rejected' }));
      clock.now += 5_000;
      sample(p);
    }
    const { samples } = statsOf(ledger);
    expect(samples).toHaveLength(MAX_SAMPLES);
    // The oldest ten are gone; the rest in order, each counting the jobs written before it.
    expect(samples.map((s) => s.accepted + s.rejected)).toEqual(
      Array.from({ length: MAX_SAMPLES }, (_, i) => i + 11),
    );
    expect(samples.at(-1)).toMatchObject({
      accepted: 365,
      rejected: 365,
      utilizationByLabel: { '': 0.25 },
      predictedToMiss: 0,
    });
    // One slot per kept sample and the next sequence number: nothing grows past them.
    expect(slotKeys(ledger)).toHaveLength(MAX_SAMPLES + 1);
    expect(ledger.getValue('stats:next')).toBe(taken);
  });

  it('counts the running admitted jobs predicted to miss their deadline', () => {
    const ledger = SqliteLedger.open(':memory:');
    const clock = { now: Date.UTC(2026, 10, 25) };
    const running = { state: 'running' as const, deadlineMs: 600_000, estimatedFinishMs: 300_000 };
    ledger.insertJob(jobRecord('on-time', running));
    ledger.insertJob(jobRecord('late', { ...running, predictedFinishMs: 600_001 }));
    ledger.insertJob(jobRecord('late-too', { ...running, estimatedFinishMs: 650_000 }));
    // Not running (queued), or ended: not counted.
    ledger.insertJob(jobRecord('queued', { ...running, state: 'accepted', predictedFinishMs: 700_000 }));
    ledger.insertJob(
      jobRecord('ended', { ...running, state: 'finished', outcome: 'missed', predictedFinishMs: 700_000 }),
    );
    sample(parts(ledger, clock));
    expect(statsOf(ledger).samples.at(-1)!.predictedToMiss).toBe(2);
    ledger.updateJob('late', { predictedFinishMs: 600_000 });
    sample(parts(ledger, clock));
    expect(statsOf(ledger).samples.at(-1)!.predictedToMiss).toBe(1);
  });

  it('moves a series kept as one value into slots at its first sample, older samples first', () => {
    const ledger = SqliteLedger.open(':memory:');
    const clock = { now: Date.UTC(2026, 10, 25) };
    const old = Array.from(
      { length: 700 },
      (_, i) =>
        ({
          at: new Date(clock.now - (700 - i) * 5_000).toISOString(),
          accepted: i,
        }) as unknown as StatsSample,
    );
    ledger.setValue('stats', old);
    // Read before the move (a follower of a leader not yet upgraded): the series as it was.
    expect(statsOf(ledger).samples).toEqual(old);
    ledger.insertJob(
      jobRecord('a', { energyJoules: 7.2e6, label: 'gpu', state: 'finished', outcome: 'met' }),
    );
    sample(parts(ledger, clock));
    const { samples } = statsOf(ledger);
    expect(samples).toHaveLength(701);
    expect(samples.slice(0, 700)).toEqual(old);
    expect(samples[700]).toMatchObject({
      at: new Date(clock.now).toISOString(),
      accepted: 1,
      met: 1,
      energyKWh: 2,
      energyKWhByLabel: { gpu: 2 },
    });
    expect(ledger.getValue('stats')).toBeUndefined();
  });
});
