import type { Command } from 'commander';

/**
 * What `--help` adds under each command's options: what it does beyond the option list, where
 * its settings come from, and examples to copy. Keyed by the command's path (`estimates reset`);
 * test/cli/help.test.ts checks that every command has an entry and shows it.
 */
export interface CommandHelp {
  /** Paragraphs shown before the examples (may be empty). */
  notes: readonly string[];
  /** Command lines, without the leading `yarn-sched-sidecar `. */
  examples: readonly string[];
}

/** The configuration's environment variables; its modules are loaded only for start's help. */
const envList = (): string => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when start's help is built
  const { ENV_OVERRIDES } = require('../config/load') as typeof import('../config/load');
  return ENV_OVERRIDES.map((o) => `  ${o.env.padEnd(28)} ${o.path.join('.')}`).join('\n');
};

export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  '': {
    notes: ['Each command has its own --help. Exit codes are the same for every command (docs/cli.md).'],
    examples: ['demo', 'probe --rm http://rm1:8088,http://rm2:8088', 'start --config /etc/yss/config.yaml'],
  },
  start: {
    get notes() {
      return [
        'Reads the configuration file (every key: docs/configuration.md; unknown keys are errors), then\n' +
          'these environment variables, each overriding one key:\n' +
          envList() +
          '\nA bad value is reported with its source: the file and line, or the environment variable.',
        'Serves the API, /metrics, /healthz, /readyz and the dashboard on server.host:server.port.\n' +
          'SIGINT or SIGTERM stops it after the current cycle (exit 0).',
      ];
    },
    examples: [
      'start',
      'start --config /etc/yarn-sched-sidecar/config.yaml',
      'YSS_SHADOW=true YSS_TOKENS=ops:$(openssl rand -hex 24) yarn-sched-sidecar start --config my.yaml',
    ],
  },
  demo: {
    notes: [
      'Prints every decision and a curl line, with a generated token, for submitting your own job.\n' +
        'The ledger lives in a temporary folder, removed when the demo stops (Ctrl-C included).',
    ],
    examples: [
      'demo',
      'demo --port 9090 --rm-port 9088 --jhs-port 9888',
      'demo --jobs 20 --speed 50 --seed 7',
    ],
  },
  probe: {
    notes: ['Reads only; run it first against a cluster the sidecar will manage.'],
    examples: [
      'probe --rm http://rm:8088',
      'probe --rm http://rm1:8088,http://rm2:8088 --user yarn --json',
      'probe --rm https://rm:8090 --ca-file /etc/ssl/rm-ca.pem --xml',
    ],
  },
  simulate: {
    notes: [
      'Writes summary.json, a per-job CSV and SVG plots to --out.',
      'Another tenant on a unified cluster (--tenant-share and the options after it): docs/simulator.md.',
      "--sweep PARAM=a,b,c runs an experiment once per value of one of its parameters and writes sweep.json, sweep.csv and a plot of its headline figures against PARAM, the seed's figures as dashed lines; a wrong PARAM lists the experiment's parameters.",
    ],
    examples: [
      'simulate --experiment rtmr-workload-1 --runs 5 --out sim-out',
      'simulate --experiment rtmr-workload-2 --sweep deadlineScale=0.1,0.25,0.5,1 --runs 3 --out sim-sweep',
      'simulate --cluster examples/cluster.yaml --trace examples/trace.jsonl --policies rtmr,dc,fifo-all+fifo',
      'simulate --cluster examples/cluster.yaml --trace examples/sls-sample.json --policies rtmr --sls-deadline-factor 2 --skip-bad',
      'simulate --experiment tenants --runs 3 --out sim-tenants',
      'simulate --experiment efh --tenant-share 0.5 --tenant-max 1 --preemption on',
    ],
  },
  replay: {
    notes: [
      'Writes replay.json, jobs.csv, jobs.jsonl, SLS and Rumen traces and plots to --out: docs/replay.md.',
      'Jobs keep their deadline tag; others get --deadline file=PATH (job name -> deadline), then slack=Fx (F times the real duration).',
      'Exit 2 for bad input (named), 69 when the JobHistory server or the RM cannot be read.',
    ],
    examples: [
      'replay --since 7d --deadline slack=1.5x --out replay-out',
      'replay --from 2026-11-22T00:00:00Z --to 2026-11-29T00:00:00Z --deadline file=deadlines.yaml --deadline slack=2x',
      'replay --since 1d --policies rtmr,fifo-all --config config/default.yaml --rm http://rm:8088 --jhs http://jhs:19888',
    ],
  },
  emulator: {
    notes: ['Fault controls and every option: docs/emulator.md. SIGINT or SIGTERM stops it (exit 0).'],
    examples: [
      'emulator',
      'emulator --config examples/emulator.yaml --port 8088 --speed 10',
      'emulator --fail-share 0.1 --latency-ms 200 --max-priority 10',
      'emulator --history-jobs 100000 --history-days 7',
    ],
  },
  estimates: {
    notes: [],
    examples: ['estimates reset cpu --url http://sidecar:8080 --token "$YSS_TOKEN"'],
  },
  'estimates reset': {
    notes: ['Needs a write token (auth.tokens): --token or YSS_TOKEN.'],
    examples: [
      'estimates reset cpu',
      'estimates reset nightly-etl --url http://sidecar:8080 --token "$YSS_TOKEN"',
    ],
  },
  run: {
    notes: [
      '--sidecar and --token default to YSS_URL and YSS_TOKEN. Rejected: nothing runs (exit 75).\n' +
        'Admitted: the command runs with the ticket and `run` exits with its code.',
    ],
    examples: [
      'run --deadline 1h --maps 40 --reduces 2 --input-bytes 5368709120 -- hadoop jar wc.jar wordcount /in /out',
      'run --deadline 2026-11-24T19:00:00Z --maps 8 --reduces 0 --input /data/day -- spark-submit --class Job job.jar',
      'run --deadline 30m --maps 4 --reduces 1 --input-bytes 1073741824 --type gpu -- ./submit.sh',
    ],
  },
};

/** The command's path under the program: `` for the program, `estimates reset`, ... */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds each command's notes, examples and the pointer to the exit codes to its --help. */
export function addHelp(cmd: Command, program = 'yarn-sched-sidecar'): void {
  const help = COMMAND_HELP[commandPath(cmd)];
  if (help) {
    const examples = help.examples.map((e) => (e.includes(program) ? `  $ ${e}` : `  $ ${program} ${e}`));
    cmd.addHelpText(
      'after',
      [
        '',
        ...help.notes.flatMap((n) => [n, '']),
        'Examples:',
        ...examples,
        '',
        'Exit codes: docs/cli.md',
      ].join('\n'),
    );
  }
  for (const sub of cmd.commands) addHelp(sub, program);
}
