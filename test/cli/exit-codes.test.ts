/**
 * One exit-code table for every command: docs/cli.md shows src/cli/exit-codes.ts's table row by
 * row, `run` keeps the same codes, and the real CLI (a child process, as a user runs it) exits
 * with them for each kind of failure, whichever command meets it.
 */
import { createServer, type Server } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, EXIT_CODE_TABLE } from '../../src/cli/exit-codes';
import { RUN_EXIT } from '../../src/cli/run';
import { REPO, spawnCli, stopAll } from '../e2e/support/procs';

/** The rows of the table under `## Exit codes` in docs/cli.md, cells trimmed. */
function docsTable(): string[][] {
  const text = readFileSync(join(REPO, 'docs', 'cli.md'), 'utf8');
  const section = text.slice(text.indexOf('## Exit codes'));
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );
}

/** Runs the CLI to its end: its exit code and everything it printed. */
async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  const p = spawnCli(`cli ${args.join(' ')}`, args, env);
  const code = await p.exited;
  return { code, out: p.output() };
}

afterAll(stopAll);

describe('the exit-code table', () => {
  it('is the table docs/cli.md shows, row by row', () => {
    expect(docsTable()).toEqual(EXIT_CODE_TABLE.map((r) => [r.code, r.commands, r.meaning]));
  });

  it('has one row per code, and run keeps the same codes for the same failures', () => {
    const codes = EXIT_CODE_TABLE.map((r) => r.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of Object.values(EXIT)) expect(codes).toContain(String(code));
    expect(RUN_EXIT).toEqual({
      usage: EXIT.usage,
      unavailable: EXIT.unavailable,
      rejected: EXIT.rejected,
      notStarted: EXIT.notStarted,
    });
  });
});

describe('the CLI exits by the table', () => {
  jest.setTimeout(120_000);

  it('0 for --version (help: test/cli/help.test.ts)', async () => {
    expect((await cli(['--version'])).code).toBe(EXIT.ok);
  });

  it.each([
    ['an option that is not a number', ['demo', '--port', 'eighty']],
    ['a missing required option', ['run', '--maps', '2', '--reduces', '1', '--', 'true']],
    ['a file that cannot be read', ['emulator', '--cluster', '/nonexistent/cluster.yaml']],
    ['an unknown experiment (thrown by the action)', ['simulate', '--experiment', 'no-such']],
  ])('2 (usage) for %s', async (_what, args) => {
    const { code, out } = await cli(args);
    expect(code).toBe(EXIT.usage);
    expect(out).not.toMatch(/unexpected error/);
  });

  it('2 for a bad YSS_TOKENS, naming the variable rather than the configuration file', async () => {
    const { code, out } = await cli(['start', '--config', 'config/default.yaml'], {
      YSS_TOKENS: 'ops:short',
    });
    expect(code).toBe(EXIT.usage);
    expect(out).toContain(
      'configuration error: environment variable YSS_TOKENS: auth.tokens.0.token: must be at least 16 characters',
    );
    expect(out).not.toContain('default.yaml');
  });

  describe('69 (unavailable) when what the command needs cannot be reached or used', () => {
    let taken: Server;
    let port: number;
    beforeAll(async () => {
      // Holds the port; a connection to it is accepted and then closed without an answer.
      taken = createServer((socket) => socket.destroy());
      await new Promise<void>((ok) => taken.listen(0, '127.0.0.1', ok));
      port = (taken.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((ok) => taken.close(() => ok())));

    it('probe, when the RM does not answer', async () => {
      const { code, out } = await cli(['probe', '--rm', `http://127.0.0.1:${port}`, '--timeout-ms', '500']);
      expect(code).toBe(EXIT.unavailable);
      expect(out).toMatch(/probe failed: RM_/);
    });

    it('estimates reset, when the sidecar cannot be reached', async () => {
      const { code, out } = await cli(['estimates', 'reset', 'cpu', '--url', 'http://127.0.0.1:1'], {
        YSS_TOKEN: 'a-token-0123456789abcdef',
      });
      expect(code).toBe(EXIT.unavailable);
      expect(out).toContain('estimates reset: cannot reach http://127.0.0.1:1');
    });

    it('emulator, when its port is taken', async () => {
      const { code, out } = await cli(['emulator', '--port', String(port), '--jhs-port', '0']);
      expect(code).toBe(EXIT.unavailable);
      expect(out).toMatch(/emulator: cannot start: .*EADDRINUSE/);
    });
  });
});
