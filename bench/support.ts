/**
 * What several benches share and that needs none of src/: the repository root, the base tree
 * to compare with, the sidecar's bench configuration, timing, medians and single-figure rows. bench/poll-child.ts
 * imports it too, so it must stay free of src/ imports (the child's resident memory is the
 * sidecar's of the tree it runs). The stub RM lives in bench/stub-rm.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { recordResult } from './results';

export const ROOT = resolve(__dirname, '..');
export const MB = 1024 * 1024;
/** The API token every bench sidecar is configured with. */
export const TOKEN = 'bench-token-0123456789abcdef';

export const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** Whether tracked files of this working tree have changes. */
export const isDirty = (): boolean => git('status', '--porcelain', '--untracked-files=no') !== '';

/**
 * The commit to compare with (`ref`, else YSS_BENCH_BASE; default HEAD when the working tree has
 * changes, HEAD~1 when it has none), exported to DIR/base-COMMIT with this tree's node_modules linked in.
 * The ref may also be the folder of a checkout with its node_modules (a `git worktree` of the
 * commit): that tree is used, and built, where it is.
 */
export function exportBaseTree(
  dir: string,
  ref: string = process.env.YSS_BENCH_BASE || (isDirty() ? 'HEAD' : 'HEAD~1'),
): { root: string; commit: string } {
  if (existsSync(join(ref, 'package.json'))) {
    const root = resolve(ref);
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    return { root, commit };
  }
  const commit = git('rev-parse', '--short', ref);
  const root = join(dir, `base-${commit}`);
  mkdirSync(root, { recursive: true });
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${root}"`], { cwd: ROOT });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return { root, commit };
}

/** Milliseconds since `start` (a process.hrtime.bigint() reading). */
export const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/** The middle element (the upper one of an even count) of a sample. */
export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The raw configuration (for buildConfig) of a sidecar in a bench: loopback, one token, quiet. */
export function sidecarConfigInput(o: {
  rmUrl: string;
  ledgerPath: string;
  timeoutMs: number;
  maxWritesPerCycle: number;
  /** rm.format (json unless given). */
  format?: 'json' | 'xml';
}): Record<string, unknown> {
  return {
    rm: {
      addresses: [o.rmUrl],
      jobHistoryAddress: o.rmUrl,
      timeoutMs: o.timeoutMs,
      ...(o.format === undefined ? {} : { format: o.format }),
    },
    auth: { tokens: [{ name: 'bench', token: TOKEN }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: o.ledgerPath },
    enforcement: { maxWritesPerCycle: o.maxWritesPerCycle },
    log: { level: 'error' },
  };
}

/** Records a figure with no spread (one value for the whole run): its median and p99 are both `value`. */
export function recordFigure(
  name: string,
  unit: string,
  value: number,
  o: { ratio?: number | null; rssMB?: number } = {},
): void {
  recordResult({ name, unit, median: value, p99: value, ...o });
}
