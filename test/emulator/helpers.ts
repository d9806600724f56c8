import { ManualClock } from '../../src/emulator/clock';
import {
  defaultEmulatorConfig,
  defaultQueues,
  type EmulatorConfig,
  type QueueConfig,
} from '../../src/emulator/config';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server';
import { HttpResourceManagerClient } from '../../src/yarn/client';
import type { Format } from '../../src/yarn/format';

/** 2025-01-01T00:00:00Z: the emulated cluster's start in tests. */
export const T0 = Date.UTC(2025, 0, 1);

export interface Harness {
  emu: RunningEmulator;
  clock: ManualClock;
  /** Move simulated time forward by `seconds` (real time × speed). */
  advance(seconds: number): void;
}

/** The default queues plus `test` and `dedicated` (reservable), which the conformance suite names. */
export function conformanceQueues(): QueueConfig[] {
  const [realtime, besteffort, dflt] = defaultQueues();
  return [
    { ...realtime!, capacity: 30 },
    { ...besteffort!, capacity: 20 },
    { ...dflt!, capacity: 30 },
    { ...dflt!, name: 'test', capacity: 10 },
    { ...dflt!, name: 'dedicated', capacity: 10, reservable: true },
  ];
}

export async function harness(
  options: Partial<EmulatorOptions> & { config?: EmulatorConfig } = {},
): Promise<Harness> {
  const clock = new ManualClock(T0);
  const speed = options.speed ?? 10;
  const emu = await startEmulator({ clock, speed, seed: 7, ...options });
  return {
    emu,
    clock,
    advance: (seconds) => clock.advance((seconds * 1000) / speed),
  };
}

export function client(url: string | string[], format: Format = 'json', extra: Record<string, unknown> = {}) {
  return new HttpResourceManagerClient({
    urls: Array.isArray(url) ? url : [url],
    format,
    timeoutMs: 5_000,
    maxAttempts: 1,
    sleep: async () => undefined,
    ...extra,
  });
}

export { defaultEmulatorConfig };
