import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { HttpResourceManagerClient } from '../../../src/yarn/client';

/**
 * Real processes for the end-to-end tests: the emulated RM and the sidecar, each started through
 * the CLI in its own Node process, talking over loopback on ports the OS picks. Every process
 * started here is tracked and stopped by `stopAll()` (called from afterAll/afterEach), also when
 * a test fails; an exit hook SIGKILLs whatever is left if the test process itself goes away.
 */

export const REPO = resolve(__dirname, '..', '..', '..');
const ENTRY = join(__dirname, 'entry.ts');
const MB = 1024 * 1024;
export { MB };

const live = new Set<Proc>();
process.once('exit', () => {
  for (const p of live) p.child.kill('SIGKILL');
});

export class Proc {
  private out = '';
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on('data', (b: Buffer) => (this.out += b.toString('utf8')));
    child.stderr?.on('data', (b: Buffer) => (this.out += b.toString('utf8')));
    this.exited = new Promise((ok) =>
      child.once('exit', (code) => {
        this.exitCode = code;
        live.delete(this);
        ok(code);
      }),
    );
    live.add(this);
  }

  /** Everything the process wrote, stdout and stderr interleaved. */
  output(): string {
    return this.out;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  async kill9(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

/** The CLI from source in a child process; YSS_* variables of the test's own environment are dropped. */
export function spawnCli(name: string, args: string[], env: Record<string, string> = {}): Proc {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('YSS_')));
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', ENTRY, ...args], {
    cwd: REPO,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Proc(name, child);
}

/**
 * Poll `probe` until it returns a value other than undefined; fail after `timeoutMs` with the
 * last error and the given processes' output. A bounded wait on an observable condition, never a
 * fixed sleep.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  opts: { timeoutMs?: number; intervalMs?: number; procs?: Proc[] } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    for (const p of opts.procs ?? []) {
      if (!p.running) throw new Error(`${what}: ${p.name} exited early:\n${p.output().slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      const logs = (opts.procs ?? []).map((p) => `--- ${p.name}\n${p.output().slice(-3000)}`).join('\n');
      throw new Error(
        `timed out waiting for ${what}${last ? ` (last error: ${String((last as Error).message ?? last)})` : ''}\n${logs}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

export interface EmulatorProc {
  proc: Proc;
  url: string;
  jhsUrl: string;
  /** The RM client of the project, pointed at this emulator. */
  rm: HttpResourceManagerClient;
  /** Control calls go to the JobHistory port, which stays open while the RM port refuses. */
  control(method: string, path: string, body?: unknown): Promise<unknown>;
  writes(): Promise<{ counts: Record<string, number>; log: WriteRecord[] }>;
}

export interface WriteRecord {
  method: string;
  endpoint: string;
  path: string;
  body: string;
  status?: number;
  injected: boolean;
  /** The X-Sidecar-Instance header of the write (sidecars with HA name themselves). */
  instance?: string;
  receivedMs: number;
}

export async function startEmulatorProc(name: string, extraArgs: string[] = []): Promise<EmulatorProc> {
  const proc = spawnCli(name, ['emulator', '--port', '0', '--jhs-port', '0', ...extraArgs]);
  const [url, jhsUrl] = await waitFor(
    `${name} to listen`,
    () => {
      const rm = /ResourceManager: (http:\/\/\S+)/.exec(proc.output());
      const jhs = /JobHistory server: (http:\/\/\S+)/.exec(proc.output());
      return rm && jhs ? [rm[1]!, jhs[1]!] : undefined;
    },
    { procs: [proc], timeoutMs: 30_000 },
  );
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${jhsUrl}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 400) throw new Error(`${method} /_emulator${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : res.json();
  };
  return {
    proc,
    url,
    jhsUrl,
    rm: rmClient([url]),
    control,
    writes: async () =>
      (await control('GET', '/writes')) as { counts: Record<string, number>; log: WriteRecord[] },
  };
}

export function rmClient(urls: string[]): HttpResourceManagerClient {
  return new HttpResourceManagerClient({
    urls,
    format: 'json',
    timeoutMs: 5000,
    maxAttempts: 2,
    haDetection: urls.length > 1,
  });
}

export const TOKEN = 'e2e-token-0123456789abcdef';
export const OTHER_TOKEN = 'e2e-other-0123456789abcdef';

export interface SidecarSettings {
  rmUrls: string[];
  jhsUrl: string;
  ledgerPath: string;
  /** Extra keys merged into the configuration file (section by section). */
  config?: Record<string, Record<string, unknown>>;
  env?: Record<string, string>;
}

export interface SidecarProc {
  proc: Proc;
  url: string;
  submit(body: unknown, opts?: { key?: string; token?: string | null }): Promise<Answer>;
  get<T = unknown>(path: string): Promise<T>;
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & {
    id?: string;
    decision?: string;
    queue?: string;
    label?: string | null;
    priority?: number;
    deadline?: string;
    estimatedFinish?: string;
    error?: { code: string; message: string; issues?: Array<{ path: string; message: string }> };
  };
}

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `yss-e2e-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `yarn-sched-sidecar start --config FILE` with a configuration file written for the test, the
 * tokens through YSS_TOKENS and the port chosen by the OS (server.port 0); the URL is read from
 * its "sidecar listening" log line.
 */
export async function startSidecarProc(name: string, s: SidecarSettings): Promise<SidecarProc> {
  const sections: Record<string, Record<string, unknown>> = {
    rm: { addresses: s.rmUrls, jobHistoryAddress: s.jhsUrl, timeoutMs: 3000, retries: 2 },
    server: { port: 0, host: '127.0.0.1' },
    // Every second, so the tests' bounded waits are short.
    loop: { pollCron: '* * * * * *' },
    ledger: { path: s.ledgerPath },
    log: { level: 'info', format: 'json' },
  };
  for (const [k, v] of Object.entries(s.config ?? {})) sections[k] = { ...(sections[k] ?? {}), ...v };
  const file = `${s.ledgerPath}.${name}.config.yaml`;
  // JSON is YAML.
  writeFileSync(file, JSON.stringify(sections, null, 2));
  const proc = spawnCli(name, ['start', '--config', file], {
    YSS_TOKENS: `ci:${TOKEN},other:${OTHER_TOKEN}`,
    ...s.env,
  });
  const url = await waitFor(
    `${name} to listen`,
    () =>
      /"message":"sidecar listening"[^\n]*"url":"(http:\/\/[^"]+)"/.exec(proc.output())?.[1] ??
      /"url":"(http:\/\/[^"]+)"[^\n]*"message":"sidecar listening"/.exec(proc.output())?.[1],
    { procs: [proc], timeoutMs: 30_000 },
  );
  return {
    proc,
    url,
    async submit(body, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const token = opts.token === undefined ? TOKEN : opts.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (opts.key !== undefined) headers['idempotency-key'] = opts.key;
      const res = await fetch(`${url}/api/v1/jobs`, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    },
    async get<T>(path: string): Promise<T> {
      const res = await fetch(`${url}${path}`);
      if (res.status >= 400 && path !== '/readyz') throw new Error(`GET ${path}: ${res.status}`);
      return (await res.json()) as T;
    },
  };
}

/** Resolves once /readyz answers 200 (the sidecar has read the cluster). */
export async function waitReady(
  sc: SidecarProc,
  procs: Proc[] = [sc.proc],
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(
    'the sidecar to be ready',
    async () => ((await fetch(`${sc.url}/readyz`)).status === 200 ? true : undefined),
    { procs, timeoutMs },
  );
}
