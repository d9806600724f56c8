/**
 * For the tests that run the sidecar against a real cluster: its configuration for a cluster's
 * ready line, and the RM's audit log (RMAuditLogger), the RM's own record of every write.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HadoopInfo } from '../../hadoop/launch';
import { at, http, list, read } from './cluster';

export const TOKEN = 'real-hadoop-token';

/** The sidecar's configuration (as written in YAML) for a real cluster. */
export function sidecarConfig(
  info: HadoopInfo,
  o: { user?: string; format?: 'json' | 'xml'; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    rm: {
      addresses: info.rms,
      jobHistoryAddress: info.jhs,
      webHdfsAddress: info.webhdfs,
      format: o.format ?? 'json',
      timeoutMs: 10_000,
      retries: 1,
      ...(o.user === undefined ? {} : { user: o.user }),
    },
    // 1 GB containers: the realtime queue's 50 % of a 16 GB node holds 8 of them.
    admission: {
      containerMemoryMb: 1024,
      containerVcores: 1,
      initialEstimates: { eta: 1, mapSecondsPerMb: 2, reduceSecondsPerMb: 2 },
    },
    enforcement: { lifetimeTimeouts: true },
    auth: { tokens: [{ name: 'ci', token: TOKEN }] },
    server: { port: 0, host: '127.0.0.1' },
    ledger: { path: ':memory:' },
    ...o.extra,
  };
}

export interface AuditLine {
  line: string;
  user: string;
  operation: string;
  result: string;
  fields: Record<string, string>;
}

/** The RM audit log's lines (of every RM of the cluster), filtered by app and operation. */
export function auditOf(info: HadoopInfo, o: { app?: string; operation?: string } = {}): AuditLine[] {
  const out: AuditLine[] = [];
  for (const id of info.rmIds) {
    const file = path.join(info.logs, `${id}.log`);
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const at = line.indexOf('RMAuditLogger: ');
      if (at < 0) continue;
      const fields: Record<string, string> = {};
      for (const part of line.slice(at + 'RMAuditLogger: '.length).split('\t')) {
        const eq = part.indexOf('=');
        if (eq > 0) fields[part.slice(0, eq)] = part.slice(eq + 1);
      }
      if (o.app !== undefined && fields.APPID !== o.app) continue;
      if (o.operation !== undefined && fields.OPERATION !== o.operation) continue;
      out.push({
        line,
        user: fields.USER ?? '',
        operation: fields.OPERATION ?? '',
        result: fields.RESULT ?? '',
        fields,
      });
    }
  }
  return out;
}

/** Kills every app the RM has not finished (ACCEPTED or RUNNING), and waits until none is left. */
export async function killLive(rm: string, user = 'alice'): Promise<void> {
  const live = async () =>
    list(
      at(
        await read(`${rm}/ws/v1/cluster/apps?states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING`, 'json', user),
        'apps.app',
      ),
    ).map((a) => String(at(a, 'id')));
  for (let round = 0; round < 60; round++) {
    const ids = await live();
    if (ids.length === 0) return;
    for (const id of ids)
      await http(`${rm}/ws/v1/cluster/apps/${id}/state`, {
        method: 'PUT',
        user,
        body: { state: 'KILLED' },
      });
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`apps still live after 30 s: ${(await live()).join(', ')}`);
}
