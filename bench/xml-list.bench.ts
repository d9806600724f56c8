/**
 * `npm run bench -- xml-list`: one apps answer of 50 MB in XML beside the same apps in JSON, each
 * read by the RM client in a process of its own (bench/xml-list-child.ts): peak RSS during the
 * read (VmHWM), RSS before it, time, and the longest stretch the event loop did not turn (what a
 * request to /healthz would wait). The apps are the emulated RM's with every member (7 KB each
 * in XML, as an RM that ignores deSelects answers them), copied with new ids.
 *
 * XML lists are read item by item as they arrive (src/yarn/xml-reader.ts), as JSON lists are
 * (src/yarn/json-list.ts): the target is an XML peak within twice the JSON one.
 * YSS_BENCH_BASE=COMMIT also reads both with the client of that commit (exported beside, with
 * this tree's node_modules), for before and after; YSS_BENCH_RUNS runs of each (default 2).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../src/emulator/server';
import { HttpResourceManagerClient } from '../src/yarn/client';
import { amCommand } from '../src/yarn/submission';
import { recordResult } from './results';
import { exportBaseTree, median, ROOT } from './support';

const TARGET_BYTES = 50 * 1024 * 1024;
const RUNS = Number(process.env.YSS_BENCH_RUNS ?? 2);

interface Bodies {
  xml: Buffer;
  json: Buffer;
  smallXml: Buffer;
  smallJson: Buffer;
  apps: number;
}

/** One app in both formats from an emulated RM, repeated with new ids to 50 MB of XML. */
async function bodies(): Promise<Bodies> {
  const emu = await startEmulator({ speed: 1 });
  try {
    const rm = new HttpResourceManagerClient({ urls: [emu.url], format: 'json', timeoutMs: 5000 });
    const { applicationId } = await rm.newApplication();
    await rm.submitApp({
      applicationId,
      name: 'bench-app',
      queue: 'default',
      tags: ['type:cpu', 'deadline:2030-01-01T00:00:00Z'],
      amResource: { memoryMB: 1024, vcores: 1 },
      am: amCommand('true'),
    });
    const get = async (format: string) =>
      (await fetch(`${emu.url}/ws/v1/cluster/apps`, { headers: { accept: `application/${format}` } })).text();
    const xmlApp = /<app>[\s\S]*<\/app>/.exec(await get('xml'))![0];
    const jsonApp = JSON.stringify(
      (JSON.parse(await get('json')) as { apps: { app: unknown[] } }).apps.app[0],
    );
    const id = applicationId;
    const build = (n: number) => {
      const xml: string[] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?><apps>'];
      const json: string[] = [];
      for (let i = 0; i < n; i++) {
        const other = `application_1700000000000_${String(i).padStart(6, '0')}`;
        xml.push(xmlApp.replaceAll(id, other));
        json.push(jsonApp.replaceAll(id, other));
      }
      xml.push('</apps>');
      return { xml: Buffer.from(xml.join('')), json: Buffer.from(`{"apps":{"app":[${json.join(',')}]}}`) };
    };
    const apps = Math.ceil(TARGET_BYTES / Buffer.byteLength(xmlApp));
    const large = build(apps);
    const small = build(100);
    return { xml: large.xml, json: large.json, smallXml: small.xml, smallJson: small.json, apps };
  } finally {
    await emu.close();
  }
}

/** Serves the bodies chunked, 64 KiB at a time as the socket takes them; the small ones for `queue=warm`. */
function serve(b: Bodies): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    const xml = /xml/.test(req.headers.accept ?? '');
    const warm = /queue=warm/.test(req.url ?? '');
    const body = warm ? (xml ? b.smallXml : b.smallJson) : xml ? b.xml : b.json;
    res.writeHead(200, { 'Content-Type': xml ? 'application/xml' : 'application/json' });
    let at = 0;
    const pump = (): void => {
      while (at < body.length) {
        const chunk = body.subarray(at, at + 64 * 1024);
        at += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

interface Read {
  apps: number;
  ms: number;
  baseMb: number;
  peakMb: number;
  rssMb: number;
  maxBlockMs: number;
}

function readIn(root: string, url: string, format: 'json' | 'xml'): Promise<Read> {
  return new Promise((ok, fail) => {
    const p = spawn(
      process.execPath,
      ['--expose-gc', '--require', 'tsx/cjs', join(ROOT, 'bench', 'xml-list-child.ts'), root, url, format],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
    p.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) ok(JSON.parse(line) as Read);
      else fail(new Error(`xml-list-child (${format}) exited ${code}: ${err}`));
    });
  });
}

export default async function run(): Promise<void> {
  const b = await bodies();
  const { server, url } = await serve(b);
  const work = mkdtempSync(join(tmpdir(), 'yss-bench-xml-'));
  try {
    const trees: Array<{ name: string; root: string }> = [{ name: 'this tree', root: ROOT }];
    if (process.env.YSS_BENCH_BASE) {
      const base = exportBaseTree(work);
      trees.unshift({ name: base.commit, root: base.root });
    }
    const mb = (n: number) => (n / 2 ** 20).toFixed(1);
    console.log(
      `${b.apps} apps: ${mb(b.xml.length)} MB of XML, ${mb(b.json.length)} MB of JSON; ${RUNS} runs each, medians`,
    );
    console.log(
      '| tree | format | answer MB | peak RSS MB | RSS before MB | growth MB | time s | longest block ms |',
    );
    console.log(
      '| ---- | ------ | --------: | ----------: | ------------: | --------: | -----: | ---------------: |',
    );
    for (const tree of trees) {
      const reads: Record<'json' | 'xml', Read[]> = { json: [], xml: [] };
      for (let r = 0; r < RUNS; r++) {
        for (const format of ['json', 'xml'] as const)
          reads[format].push(await readIn(tree.root, url, format));
      }
      const peaks: Record<string, number> = {};
      for (const format of ['json', 'xml'] as const) {
        const rs = reads[format];
        if (rs.some((x) => x.apps !== b.apps)) throw new Error(`${format}: not every app was read`);
        const peak = median(rs.map((x) => x.peakMb));
        const base = median(rs.map((x) => x.baseMb));
        const ms = median(rs.map((x) => x.ms));
        const block = median(rs.map((x) => x.maxBlockMs));
        peaks[format] = peak;
        const size = format === 'xml' ? b.xml.length : b.json.length;
        console.log(
          `| ${tree.name} | ${format} | ${mb(size)} | ${peak.toFixed(0)} | ${base.toFixed(0)} | ${(peak - base).toFixed(0)} | ${(ms / 1000).toFixed(2)} | ${block.toFixed(0)} |`,
        );
        recordResult({
          name: `xml-list ${tree.name === 'this tree' ? '' : `${tree.name} `}${format} apps ${mb(size)} MB: read`,
          unit: 'ms',
          median: ms,
          p99: Math.max(...rs.map((x) => x.ms)),
          rssMB: peak,
        });
      }
      console.log(
        `${tree.name}: XML peak / JSON peak = ${(peaks.xml! / peaks.json!).toFixed(2)} (target: at most 2)`,
      );
    }
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(work, { recursive: true, force: true });
  }
}
