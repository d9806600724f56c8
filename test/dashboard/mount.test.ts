import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiApp } from '../../src/api/app';
import { SidecarMetrics } from '../../src/metrics';
import {
  DASHBOARD_FILES,
  DASHBOARD_MODULES,
  findPackageRoot,
  locateDashboardAssets,
  mountDashboard,
} from '../../src/dashboard';
import { DashboardAssetsMissingError } from '../../src/errors/dashboard-assets';
import { silentLogger } from '../../src/log';
import { SqliteLedger } from '../../src/store/ledger';
import { LedgerService } from './ledger-service';
import { NOW } from './seed';

const ROOT = resolve(__dirname, '..', '..');
const PUBLIC = join(ROOT, 'src', 'dashboard', 'public');

describe('locating the dashboard files', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'yss-dashboard-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('finds them beside the code when run from the sources', () => {
    expect(locateDashboardAssets()).toBe(PUBLIC);
  });

  it('finds them under the package root when run from dist/ (tsc copies no assets)', () => {
    expect(locateDashboardAssets(join(ROOT, 'dist', 'dashboard'))).toBe(PUBLIC);
  });

  it("walks past another package's manifest to this package's root", () => {
    const pkg = join(tmp, 'app');
    const inner = join(pkg, 'node_modules', 'other', 'lib');
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'yarn-sched-sidecar' }));
    writeFileSync(join(pkg, 'node_modules', 'other', 'package.json'), JSON.stringify({ name: 'other' }));
    expect(findPackageRoot(inner)).toBe(pkg);
    mkdirSync(join(pkg, 'src', 'dashboard', 'public'), { recursive: true });
    for (const f of DASHBOARD_FILES) writeFileSync(join(pkg, 'src', 'dashboard', 'public', f), '');
    expect(locateDashboardAssets(inner)).toBe(join(pkg, 'src', 'dashboard', 'public'));
  });

  it('fails with a typed error naming where it looked when the files are missing', () => {
    const dir = join(tmp, 'dist', 'dashboard');
    mkdirSync(dir, { recursive: true });
    let caught: unknown;
    try {
      locateDashboardAssets(dir);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DashboardAssetsMissingError);
    const err = caught as DashboardAssetsMissingError;
    expect(err.code).toBe('DASHBOARD_ASSETS_MISSING');
    expect(err.message).toContain(join(dir, 'public'));
    expect(err.context).toEqual({ candidates: [join(dir, 'public')] });
  });

  it('refuses a folder that lacks one of the files, and a nonsense poll interval', () => {
    const app = createApiApp(appOptions(false, () => undefined));
    const partial = join(tmp, 'public');
    mkdirSync(partial);
    writeFileSync(join(partial, 'index.html'), '');
    expect(() => mountDashboard(app, { assetsDir: partial })).toThrow(DashboardAssetsMissingError);
    expect(() => mountDashboard(app, { pollIntervalMs: 0 })).toThrow(RangeError);
    expect(() => mountDashboard(app, { pollIntervalMs: 2.5 })).toThrow(
      'dashboard pollIntervalMs must be a whole number from 100 to 3600000, got 2.5',
    );
  });
});

describe('the files themselves', () => {
  const html = readFileSync(join(PUBLIC, 'index.html'), 'utf8');

  it('load only from this server: every script and stylesheet is a /dashboard/ file that exists', () => {
    const all = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    // The views' links stay on the page (#, #replays): they load nothing.
    expect(all.filter((r) => r.startsWith('#')).sort()).toEqual(['#', '#replays']);
    const refs = all.filter((r) => !r.startsWith('#'));
    expect(refs.sort()).toEqual([
      '/dashboard/dashboard.css',
      '/dashboard/dashboard.js',
      '/dashboard/favicon.svg',
    ]);
    for (const r of refs) expect(DASHBOARD_FILES).toContain(r.replace('/dashboard/', ''));
    expect(html).not.toMatch(/https?:\/\//);
    // One script, the entry module; it imports the others.
    expect([...html.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="module" src="/dashboard/dashboard.js">',
    ]);
  });

  it('are modules that import only each other, all served, all reached from the entry, all type-checked', () => {
    const importsOf = (file: string) =>
      [...readFileSync(join(PUBLIC, file), 'utf8').matchAll(/^import [^;]+ from '([^']+)';$/gm)].map(
        (m) => m[1]!,
      );
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const spec of importsOf(file)) {
        // Relative, with its extension, as a browser resolves it: /dashboard/<file>.
        expect(spec).toMatch(/^\.\/[a-z-]+\.js$/);
        visit(spec.slice(2));
      }
    };
    visit('dashboard.js');
    expect([...reached].sort()).toEqual([...DASHBOARD_MODULES].sort());
    expect(
      readdirSync(PUBLIC)
        .filter((f) => f.endsWith('.js'))
        .sort(),
    ).toEqual([...DASHBOARD_MODULES].sort());
    for (const file of DASHBOARD_MODULES)
      expect(readFileSync(join(PUBLIC, file), 'utf8').startsWith('// @ts-check\n')).toBe(true);
  });

  it.each([...DASHBOARD_MODULES])('%s never turns data into markup', (file) => {
    const js = readFileSync(join(PUBLIC, file), 'utf8');
    for (const sink of [
      'innerHTML',
      'outerHTML',
      'insertAdjacentHTML',
      'document.write',
      'eval(',
      'new Function',
    ]) {
      expect(js).not.toContain(sink);
    }
  });
});

function appOptions(protectReads: boolean, extra: (app: import('express').Express) => void) {
  const ledger = SqliteLedger.open(':memory:', { clock: () => NOW });
  return {
    service: new LedgerService(ledger, () => NOW),
    metrics: new SidecarMetrics(),
    logger: silentLogger(),
    tokens: [{ name: 'operator', token: 'mount-test-token-0123456789' }],
    protectReads,
    maxBodyBytes: 65_536,
    now: () => NOW,
    extraRoutes: extra,
  };
}

describe('the routes', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const app = createApiApp(appOptions(true, (a) => mountDashboard(a, { pollIntervalMs: 1500 })));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  /** A raw request, so the path is sent exactly as written (fetch would normalise `..`). */
  function get(path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    return new Promise((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on('error', fail);
      req.end();
    });
  }

  it('serves the page at / with a strict content security policy, even when reads need a token', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toBe(readFileSync(join(PUBLIC, 'index.html'), 'utf8'));
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // The data behind it does need the token.
    expect((await get('/api/v1/jobs')).status).toBe(401);
  });

  it('serves the scripts and stylesheet with their types, and the page settings', async () => {
    // A module script needs a JavaScript type (the page is served with nosniff).
    for (const file of DASHBOARD_MODULES) {
      const js = await get(`/dashboard/${file}`);
      expect(js.status).toBe(200);
      expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    }
    expect((await get('/dashboard/dashboard.css')).headers['content-type']).toMatch(/^text\/css/);
    const config = await get('/dashboard/config.json');
    expect(JSON.parse(config.body)).toEqual({
      pollIntervalMs: 1500,
      apiBase: '/api/v1',
      jobStates: [
        'rejected',
        'accepted',
        'submitted',
        'running',
        'finished',
        'failed',
        'killed',
        'lost',
        'expired',
        'cancelled',
      ],
    });
    expect(config.headers['cache-control']).toBe('no-store');
  });

  it('serves a favicon at /favicon.ico (an ICO holding a 32 px PNG) and the SVG the page links', async () => {
    const ico = await get('/favicon.ico');
    expect(ico.status).toBe(200);
    expect(ico.headers['content-type']).toBe('image/x-icon');
    const bytes = readFileSync(join(PUBLIC, 'favicon.ico'));
    // ICONDIR: reserved 0, type 1 (icon), one image of 32 x 32 whose data is a PNG.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([bytes[6], bytes[7]]).toEqual([32, 32]);
    expect(bytes.subarray(bytes.readUInt32LE(18), bytes.readUInt32LE(18) + 4).toString('latin1')).toBe(
      '\x89PNG',
    );
    const svg = await get('/dashboard/favicon.svg');
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toBe(readFileSync(join(PUBLIC, 'favicon.svg'), 'utf8'));
  });

  it.each([
    '/dashboard/missing.js',
    '/dashboard/%2e%2e/%2e%2e/package.json',
    '/dashboard/charts.d.ts',
    '/dashboard/index.html',
  ])('answers %s with the API 404 and serves nothing outside the folder', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(res.body).not.toContain('yarn-sched-sidecar"');
  });
});
