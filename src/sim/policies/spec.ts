import { defaultRegistry, type PolicyRegistry } from '../../core/registry';
import { ValidationError } from '../../errors/validation';
import type { TenantSpec } from '../tenant';
import type { EstimateBasis } from './estimates';

/** The registry the simulator runs with: the shared one, every policy by name. */
export function simulatorRegistry(): PolicyRegistry {
  return defaultRegistry();
}

/** One run's policies: admission (or none) and placement, each with its arguments. */
export interface PolicySpec {
  /** The label in summary.json and the plots. */
  label: string;
  admission: string | null;
  admissionArgs?: Record<string, unknown>;
  placement: string;
  placementArgs?: Record<string, unknown>;
  /** Another tenant the run shares the cluster with (src/sim/tenant.ts); none when absent. */
  tenant?: TenantSpec;
  /**
   * Admission's estimates for this policy alone, when an experiment gives it other figures
   * than the run's (Kc and Anyanwu's DC measured its own): what they are taken from, and a factor.
   */
  estimates?: { basis?: EstimateBasis; scale?: number };
}

/**
 * Parses `--policies` items: `ADMISSION`, `PLACEMENT`, or `ADMISSION+PLACEMENT`, each name
 * optionally followed by `:key=value,...` arguments for that policy, e.g.
 * `rtmr+fifo`, `delay:maxDelayMs=4500`, `fifo-all+efh`. A lone admission name runs with
 * `fifo` placement; a lone placement name runs without admission (every job accepted).
 */
export function parsePolicyList(text: string, registry: PolicyRegistry = simulatorRegistry()): PolicySpec[] {
  const items = text
    .split(/[;\s]+|,(?![^:]*=)/)
    .map((s) => s.trim())
    .filter(Boolean);
  const issues: Array<{ path: string; message: string }> = [];
  const specs: PolicySpec[] = [];
  items.forEach((item, i) => {
    const parts = item.split('+');
    let admission: string | null = null;
    let admissionArgs: Record<string, unknown> = {};
    let placement = 'fifo';
    let placementArgs: Record<string, unknown> = {};
    for (const part of parts) {
      const [name, argText] = splitArgs(part);
      if (name in registry.admission) {
        admission = name;
        admissionArgs = argText;
      } else if (name in registry.placement) {
        placement = name;
        placementArgs = argText;
      } else {
        issues.push({
          path: `policies[${i}]`,
          message: `unknown policy "${name}"; admission: ${registry.names('admission').join(', ') || '(none registered)'}; placement: ${registry.names('placement').join(', ')}`,
        });
      }
    }
    specs.push({ label: item, admission, admissionArgs, placement, placementArgs });
  });
  if (issues.length) throw new ValidationError(issues);
  return specs;
}

function splitArgs(part: string): [string, Record<string, unknown>] {
  const idx = part.indexOf(':');
  if (idx < 0) return [part, {}];
  const args: Record<string, unknown> = {};
  for (const kv of part.slice(idx + 1).split(',')) {
    const [k, v] = kv.split('=');
    if (!k || v === undefined) continue;
    const n = Number(v);
    args[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(n) && v.trim() !== '' ? n : v;
  }
  return [part.slice(0, idx), args];
}
