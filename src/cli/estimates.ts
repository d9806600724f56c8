import { Command } from 'commander';
import { validateWorkloadClass } from '../core/estimates';
import { ValidationError } from '../errors/validation';
import { EXIT } from './exit-codes';

/** What `estimates reset` needs: where the running sidecar listens and a write token. */
export interface ResetRequest {
  readonly url: string;
  readonly token: string;
  readonly workloadClass: string;
  /** Injected for tests; the global fetch otherwise. */
  readonly fetch?: typeof fetch;
}

/**
 * POST /api/v1/estimates/{class}/reset on a running sidecar: its learning lives in that
 * process (and its ledger), so the reset goes through its API rather than around it. Returns
 * the HTTP status and the answer's body; a bad class name is a ValidationError before any call.
 */
export async function resetEstimates(req: ResetRequest): Promise<{ status: number; body: unknown }> {
  const cls = validateWorkloadClass(req.workloadClass, 'workloadClass');
  const base = req.url.replace(/\/+$/, '');
  const res = await (req.fetch ?? fetch)(`${base}/api/v1/estimates/${encodeURIComponent(cls)}/reset`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${req.token}` },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page): shown as text.
  }
  return { status: res.status, body };
}

export function estimatesCommand(): Command {
  const cmd = new Command('estimates').description("a running sidecar's learned worst-case estimates");
  cmd
    .command('reset')
    .description(
      'forget what one workload class learned: its jobs are judged with its configured figures again (docs/estimates.md)',
    )
    .argument(
      '<class>',
      "the workload class (a submission's workloadClass, else its job type: cpu, gpu, adaptive)",
    )
    .option('--url <url>', "the sidecar's API", 'http://127.0.0.1:8080')
    .option('--token <token>', 'a write token (auth.tokens); default: $YSS_TOKEN')
    .action(async (workloadClass: string, opts: { url: string; token?: string }) => {
      const token = opts.token ?? process.env.YSS_TOKEN;
      if (!token) {
        process.stderr.write('estimates reset: a write token is needed: --token or YSS_TOKEN\n');
        process.exitCode = EXIT.usage;
        return;
      }
      try {
        const { status, body } = await resetEstimates({ url: opts.url, token, workloadClass });
        process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        // As `run`: a request the sidecar refuses as invalid is usage, any other error unavailable.
        if (status !== 200) process.exitCode = status === 400 ? EXIT.usage : EXIT.unavailable;
      } catch (err) {
        if (err instanceof ValidationError) {
          process.stderr.write(`estimates reset: ${err.message}\n`);
          process.exitCode = EXIT.usage;
        } else {
          process.stderr.write(`estimates reset: cannot reach ${opts.url}: ${String(err)}\n`);
          process.exitCode = EXIT.unavailable;
        }
      }
    });
  return cmd;
}
