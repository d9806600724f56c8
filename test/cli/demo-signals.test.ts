/**
 * `npm start` (the demo) as a user runs it, in a child process: Ctrl-C (SIGINT) while the job
 * stream runs says the demo stopped and how many jobs it had submitted, never that all were
 * submitted, exits 0, and leaves no temporary folder behind.
 */
import { existsSync } from 'node:fs';
import { spawnCli, stopAll, waitFor } from '../e2e/support/procs';

afterAll(stopAll);

describe('demo on Ctrl-C', () => {
  jest.setTimeout(120_000);

  it('says what it stopped, exits 0 and removes its ledger folder', async () => {
    const p = spawnCli('demo', [
      'demo',
      '--port',
      '0',
      '--rm-port',
      '0',
      '--jhs-port',
      '0',
      '--jobs',
      '1000',
      '--interval-ms',
      '100',
    ]);
    const ledger = await waitFor('the ledger line', () => /^Ledger: +(\S+)/m.exec(p.output())?.[1], {
      procs: [p],
      timeoutMs: 60_000,
    });
    const dir = ledger.replace(/\/ledger\.db$/, '');
    expect(dir).toMatch(/yarn-sched-sidecar-demo-/);
    // Two jobs decided: the stream is running and the ledger written.
    await waitFor(
      'two decisions',
      () => ((p.output().match(/\): (admitted|rejected)/g) ?? []).length >= 2 ? true : undefined),
      {
        procs: [p],
        timeoutMs: 60_000,
      },
    );
    expect(existsSync(ledger)).toBe(true);

    p.child.kill('SIGINT');
    expect(await p.exited).toBe(0);
    const out = p.output();
    expect(out).toContain('SIGINT: stopping the demo');
    const stopped =
      /Demo stopped: (\d+) job\(s\) submitted of 1000; sidecar and emulated cluster closed, (\S+) removed\./.exec(
        out,
      );
    expect(stopped).not.toBeNull();
    expect(Number(stopped![1])).toBeGreaterThanOrEqual(2);
    expect(Number(stopped![1])).toBeLessThan(1000);
    expect(stopped![2]).toBe(dir);
    expect(out).not.toMatch(/All .*demo jobs submitted|job stream has ended/);
    expect(existsSync(dir)).toBe(false);
  });
});
