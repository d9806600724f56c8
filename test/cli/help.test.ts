/**
 * `--help` on every command, as a user reads it from the real CLI (a child process): each
 * command's options, its notes and at least one example of that very command.
 */
import { buildProgram } from '../../src/cli/main';
import { COMMAND_HELP, commandPath } from '../../src/cli/help';
import { ENV_OVERRIDES } from '../../src/config/load';
import type { Command } from 'commander';
import { spawnCli, stopAll } from '../e2e/support/procs';

function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

const paths = allCommands(buildProgram()).map(commandPath);

afterAll(stopAll);

describe('--help', () => {
  jest.setTimeout(120_000);

  it('has notes and examples for every command, and for no command that does not exist', () => {
    expect(Object.keys(COMMAND_HELP).sort()).toEqual([...paths].sort());
  });

  it.each(paths)('of "%s" shows an example of that command and where the exit codes are', async (path) => {
    const p = spawnCli(`help ${path}`, [...(path ? path.split(' ') : []), '--help']);
    expect(await p.exited).toBe(0);
    const out = p.output();
    expect(out).toMatch(/^Usage: yarn-sched-sidecar/);
    expect(out).toContain('\nExamples:\n');
    const examples = out.slice(out.indexOf('\nExamples:\n')).split('\n');
    expect(examples.some((l) => l.startsWith(`  $ `) && l.includes(`yarn-sched-sidecar ${path}`))).toBe(true);
    expect(out).toContain('Exit codes: docs/cli.md');
  });

  it('of start lists every environment variable with the key it sets', async () => {
    const p = spawnCli('help start', ['start', '--help']);
    await p.exited;
    for (const o of ENV_OVERRIDES)
      expect(p.output()).toMatch(new RegExp(`${o.env} +${o.path.join('\\.')}\\n`));
  });
});
