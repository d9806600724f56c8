import type { Tree } from './format';
import type { HttpTransport } from './transport';

/**
 * A running Spark app's executors, from its driver's REST API through the RM's web proxy
 * (`/proxy/{appid}/api/v1/applications/{appid}/allexecutors`; the driver of a Spark app on YARN
 * serves its UI behind that proxy). Spark answers JSON only.
 */
export interface SparkExecutors {
  /** When its first executor was added (epoch ms), the driver left out; null while it has none. */
  firstExecutorMs: number | null;
  /** Executors added so far, active or gone (the driver left out). */
  executors: number;
}

/** Spark's REST times: `2026-11-29T01:30:31.141GMT`. */
export function sparkTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text.replace(/GMT$/, 'Z'));
  return Number.isFinite(ms) ? ms : null;
}

/** The executors of a Spark REST `allexecutors` answer. */
export function mapSparkExecutors(tree: Tree): SparkExecutors {
  if (!Array.isArray(tree)) throw new Error('a Spark executors list must be a JSON array');
  let first: number | null = null;
  let executors = 0;
  for (const e of tree) {
    if (typeof e !== 'object' || e === null || Array.isArray(e) || e.id === 'driver') continue;
    executors++;
    const added = sparkTime(e.addTime);
    if (added !== null && (first === null || added < first)) first = added;
  }
  return { firstExecutorMs: first, executors };
}

export async function runningSparkExecutors(
  transport: HttpTransport,
  appId: string,
): Promise<SparkExecutors> {
  const seg = encodeURIComponent(appId);
  const { tree } = await transport.sendForTree({
    method: 'GET',
    path: `/proxy/${seg}/api/v1/applications/${seg}/allexecutors`,
    format: 'json',
  });
  return mapSparkExecutors(tree);
}
