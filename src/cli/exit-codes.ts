import { CommanderError } from 'commander';
import { SidecarError } from '../errors/base';
import { ValidationError } from '../errors/validation';

/**
 * One exit-code table for every command: the same kind of failure ends every command with the
 * same code. docs/cli.md shows this table (test/cli/exit-codes.test.ts holds the two together).
 * 69 and 75 are sysexits.h's EX_UNAVAILABLE and EX_TEMPFAIL; 127 and 128 + n are the shell's.
 */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  stalled: 3,
  deposed: 4,
  unavailable: 69,
  rejected: 75,
  notStarted: 127,
} as const;

export type ExitName = keyof typeof EXIT;

export interface ExitCodeRow {
  /** The code as docs/cli.md shows it: a number, `128 + n` or `other`. */
  code: string;
  commands: string;
  meaning: string;
}

/** The table of docs/cli.md, row by row. */
export const EXIT_CODE_TABLE: readonly ExitCodeRow[] = [
  {
    code: String(EXIT.ok),
    commands: 'all',
    meaning:
      'done; `start`, `demo` and `emulator` stopped by Ctrl-C (SIGINT) or SIGTERM after a clean shutdown; for `run`, the command succeeded',
  },
  {
    code: String(EXIT.internal),
    commands: 'all',
    meaning: 'an unexpected error (a bug): its message is printed',
  },
  {
    code: String(EXIT.usage),
    commands: 'all',
    meaning:
      'invalid options, arguments, configuration (file or `YSS_*` variable, named in the message), input or token; or the sidecar refused the request as invalid (400); nothing was done',
  },
  {
    code: String(EXIT.stalled),
    commands: '`simulate`',
    meaning: 'the simulation stalled (`SIMULATION_STALLED`)',
  },
  {
    code: String(EXIT.deposed),
    commands: '`start`',
    meaning:
      'with `ha.enabled`: this instance led and was deposed (its ZooKeeper connection lost or session expired, or a newer leader fenced the ledger); it stopped writing first; start it again (a restart policy) and it follows',
  },
  {
    code: String(EXIT.unavailable),
    commands: '`start`, `demo`, `emulator`, `probe`, `estimates reset`, `run`, `replay`',
    meaning:
      'something the command needs is unavailable: the RM, the JobHistory server or the sidecar cannot be reached or answered an error, a port is taken, the ledger cannot be opened',
  },
  {
    code: String(EXIT.rejected),
    commands: '`run`',
    meaning: 'the deadline was rejected; the reason and the earliest admissible deadline are printed',
  },
  {
    code: String(EXIT.notStarted),
    commands: '`run`',
    meaning: 'the command could not be started (not found, not executable); the ticket is cancelled',
  },
  {
    code: '128 + n',
    commands: '`run`, `demo`',
    meaning:
      '`run`: the command was stopped by signal n (130 after Ctrl-C); `demo`: a second Ctrl-C while it stops ends it at once',
  },
  { code: 'other', commands: '`run`', meaning: "the command's own exit code" },
];

/**
 * The code for an error a command did not handle itself: commander's own (bad options: usage;
 * `--help`, `--version`: 0), a validation error (usage), any other typed error of the sidecar
 * (an RM or the sidecar could not be used: unavailable), anything else a bug (internal).
 */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (err instanceof ValidationError) return EXIT.usage;
  if (err instanceof SidecarError) return EXIT.unavailable;
  return EXIT.internal;
}

/**
 * The code for a service (start, demo, emulator) that could not start: bad settings are usage,
 * anything else (a port taken, a ledger that cannot be opened, an RM that cannot be read) is
 * something it needs being unavailable.
 */
export function startFailureCode(err: unknown): number {
  return err instanceof ValidationError ? EXIT.usage : EXIT.unavailable;
}
