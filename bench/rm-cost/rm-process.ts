/**
 * What the ResourceManager's JVM spends, read from outside it: its CPU time from /proc (utime +
 * stime of every thread, dead ones included, as the kernel sums them into the process), and its
 * young-generation collections from its own JMX servlet (/jmx), which reports the same counters
 * as `jstat -gc` (YGC) without attaching a tool to the JVM.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (`getconf CLK_TCK`, 100 on Linux). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim();
    const n = Number(out);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`getconf CLK_TCK answered ${JSON.stringify(out)}`);
    ticksPerSecond = n;
  }
  return ticksPerSecond;
}

/**
 * utime + stime (fields 14 and 15) of a /proc/PID/stat line, in clock ticks. The command name
 * (field 2) is in parentheses and may hold spaces: fields are counted after its closing one.
 */
export function statTicks(line: string): number {
  const close = line.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc/PID/stat line: ${line.slice(0, 80)}`);
  // After ")": state (field 3) is at index 0, so field N is at index N - 3.
  const fields = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime))
    throw new Error(`no utime/stime in /proc/PID/stat line: ${line.slice(0, 120)}`);
  return utime + stime;
}

/** The process's CPU time so far (user + system, every thread), in ms. */
export function cpuMs(pid: number): number {
  return (statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) * 1000) / clockTicks();
}

/** Young-generation collectors by the names the JVM's MXBeans give them (Serial, Parallel, CMS, G1). */
const YOUNG = new Set(['Copy', 'PS Scavenge', 'ParNew', 'G1 Young Generation']);

export interface GcCount {
  young: number;
  /** Milliseconds the young collections took, as the JVM counts them. */
  youngMs: number;
}

/** The young collections of a /jmx answer for `java.lang:type=GarbageCollector,*`. */
export function youngGcOf(jmx: unknown): GcCount {
  const beans = (jmx as { beans?: unknown } | null)?.beans;
  if (!Array.isArray(beans)) throw new Error('the /jmx answer has no beans');
  let young = 0;
  let youngMs = 0;
  let seen = false;
  for (const b of beans as Array<Record<string, unknown>>) {
    if (typeof b.Name !== 'string' || !YOUNG.has(b.Name)) continue;
    seen = true;
    young += Number(b.CollectionCount);
    youngMs += Number(b.CollectionTime);
  }
  if (!seen) throw new Error('the /jmx answer names no young-generation collector');
  return { young, youngMs };
}

/** The RM's young collections so far, from its /jmx. */
export async function youngGcs(rm: string): Promise<GcCount> {
  const res = await fetch(`${rm}/jmx?qry=java.lang:type=GarbageCollector,name=*`);
  if (res.status !== 200) throw new Error(`GET ${rm}/jmx: ${res.status}`);
  return youngGcOf(await res.json());
}
