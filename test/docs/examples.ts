/**
 * The examples of a page in docs/, run as written: each is the fenced `sh` block right after an
 * `<!-- example: NAME -->` comment. The tests run it with bash, with `yarn-sched-sidecar` (the CLI
 * from source) and a `hadoop` of the test's choice first on the PATH, so a page whose commands
 * drift from what the code does fails its test.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runProcess, type ProcessRun } from '../hadoop/cluster';

const REPO = resolve(__dirname, '..', '..');

/** NAME -> the shell text of its example, in the order of the page. */
export function docExamples(page: string): Map<string, string> {
  const text = readFileSync(join(REPO, page), 'utf8');
  const out = new Map<string, string>();
  for (const m of text.matchAll(/<!-- example: ([\w-]+) -->\s*\n```sh\n([\s\S]*?)\n```/g)) {
    if (out.has(m[1]!)) throw new Error(`${page}: example ${m[1]} is there twice`);
    out.set(m[1]!, m[2]!);
  }
  return out;
}

export interface ExampleBin {
  /** A folder for the PATH: `yarn-sched-sidecar` and `hadoop`. */
  bin: string;
  /** A HADOOP_HOME whose share/hadoop/mapreduce holds the given jars (as links). */
  hadoopHome: string;
  cleanup(): void;
}

/**
 * `yarn-sched-sidecar` runs the CLI from source (as test/e2e does); `hadoop` is `hadoopScript`
 * (a shell script's text) or a link to an executable; `jars` are linked into HADOOP_HOME.
 */
export function exampleBin(hadoop: { script: string } | { link: string }, jars: string[] = []): ExampleBin {
  const dir = mkdtempSync(join(tmpdir(), 'yss-doc-examples-'));
  const bin = join(dir, 'bin');
  const share = join(dir, 'hadoop-home', 'share', 'hadoop', 'mapreduce');
  mkdirSync(bin);
  mkdirSync(share, { recursive: true });
  const cli = join(bin, 'yarn-sched-sidecar');
  writeFileSync(
    cli,
    `#!/bin/sh\nexec "${process.execPath}" --require "${require.resolve('tsx/cjs')}" "${join(REPO, 'test', 'e2e', 'support', 'entry.ts')}" "$@"\n`,
  );
  chmodSync(cli, 0o755);
  const h = join(bin, 'hadoop');
  if ('link' in hadoop) symlinkSync(hadoop.link, h);
  else {
    writeFileSync(h, hadoop.script);
    chmodSync(h, 0o755);
  }
  for (const jar of jars) symlinkSync(jar, join(share, jar.slice(jar.lastIndexOf('/') + 1)));
  return {
    bin,
    hadoopHome: join(dir, 'hadoop-home'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs an example with bash (-e, -u, pipefail), the bin folder first on the PATH. */
export function runExample(
  code: string,
  b: ExampleBin,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ProcessRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('YSS_')));
  return runProcess('bash', ['-euo', 'pipefail', '-c', code], {
    timeoutMs,
    cwd: REPO,
    env: { ...base, PATH: `${b.bin}:${process.env.PATH ?? ''}`, HADOOP_HOME: b.hadoopHome, ...env },
  });
}
