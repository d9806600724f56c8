import type { TransportOptions } from '../yarn/transport';
import type { SidecarConfig } from './schema';

/** The settings of `rm` that every client built from the configuration shares. */
export type RmTransportSettings = Pick<
  TransportOptions,
  | 'format'
  | 'user'
  | 'timeoutMs'
  | 'firstByteTimeoutMs'
  | 'callBudgetMs'
  | 'maxResponseBytes'
  | 'responseLimits'
  | 'maxAttempts'
  | 'caFile'
>;

/**
 * The transport options the configuration's `rm` section gives the RM, JobHistory and WebHDFS
 * clients: the answers' format, the simple-auth user (none when empty), the time limits, the
 * response limits, the CA file, and `rm.retries` + 1 attempts per idempotent call. The caller
 * adds the addresses, and whatever it sets otherwise (one attempt, a logger, metrics).
 */
export function rmTransportOptions(rm: SidecarConfig['rm']): RmTransportSettings {
  return {
    format: rm.format,
    user: rm.user || undefined,
    timeoutMs: rm.timeoutMs,
    firstByteTimeoutMs: rm.firstByteTimeoutMs,
    callBudgetMs: rm.callBudgetMs,
    maxResponseBytes: rm.maxResponseBytes,
    responseLimits: rm.responseLimits,
    maxAttempts: rm.retries + 1,
    caFile: rm.caFile,
  };
}
