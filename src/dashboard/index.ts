import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express from 'express';
import { DashboardAssetsMissingError } from '../errors/dashboard-assets';
import { JOB_STATES } from '../store/types';

/**
 * The operator's dashboard: static HTML, CSS and browser JavaScript (native ES modules) that
 * read the public read API (/api/v1/jobs, /api/v1/jobs/:id, /api/v1/cluster, /api/v1/stats)
 * exactly as any outside client would. The server side only serves files and the page's settings;
 * no job data is rendered here, so nothing user-supplied passes through this module.
 *
 * Mounted through createApiApp's `extraRoutes`, replacing the plain page at `/`.
 */

export interface DashboardOptions {
  /** How often the page polls the API for fresh data. */
  pollIntervalMs?: number;
  /** Where the static files are; by default located with {@link locateDashboardAssets}. */
  assetsDir?: string;
}

export const DEFAULT_POLL_INTERVAL_MS = 5000;

/** GET /dashboard/config.json: the page's settings, as its modules read them (state.js). */
export interface DashboardSettings {
  /** How often the page polls the API, ms. */
  pollIntervalMs: number;
  /** Where the read API is: '/api/v1'. */
  apiBase: string;
  /** The job states the filter offers: the API's own (GET /api/v1/jobs?state=). */
  jobStates: readonly string[];
}

/**
 * The page's ES modules: dashboard.js, the entry the page loads, and those it imports (each
 * `// @ts-check`, type-checked by tsconfig.dashboard.json).
 */
export const DASHBOARD_MODULES = [
  'dashboard.js',
  'api.js',
  'state.js',
  'router.js',
  'poll.js',
  'status.js',
  'jobs.js',
  'job-detail.js',
  'stats.js',
  'cluster.js',
  'tickets.js',
  'costs.js',
  'profiles.js',
  'replays.js',
  'charts.js',
  'format.js',
  'dom.js',
] as const;

/** The files the page needs; a folder missing one of them is not a dashboard. */
export const DASHBOARD_FILES = [
  'index.html',
  'dashboard.css',
  ...DASHBOARD_MODULES,
  'favicon.svg',
  'favicon.ico',
] as const;

const PACKAGE_NAME = 'yarn-sched-sidecar';

/** The nearest folder at or above `fromDir` holding this package's package.json. */
export function findPackageRoot(fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
        if (name === PACKAGE_NAME) return dir;
      } catch {
        // An unreadable or foreign manifest: keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * The folder of the static files. tsc copies no assets, so the code looks beside itself
 * first (src/dashboard/public when run from sources, or dist/dashboard/public if a packager
 * copied them) and then under the package root (src/dashboard/public when run from dist/).
 */
export function locateDashboardAssets(fromDir: string = __dirname): string {
  const candidates = [join(fromDir, 'public')];
  const root = findPackageRoot(fromDir);
  if (root !== undefined) candidates.push(join(root, 'src', 'dashboard', 'public'));
  for (const dir of candidates) {
    if (DASHBOARD_FILES.every((f) => existsSync(join(dir, f)))) return dir;
  }
  throw new DashboardAssetsMissingError(
    `the dashboard's files (${DASHBOARD_FILES.join(', ')}) were not found in ${candidates.join(' or ')}`,
    { context: { candidates } },
  );
}

/**
 * Headers for every dashboard response. The content security policy lets the page load
 * only its own scripts and styles and talk only to its own origin: even a rendering bug
 * that put user text into markup could not run an inline handler or load a remote script.
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Mount the dashboard: `/` (the page), `/favicon.ico`, `/dashboard/*` (its files and settings). */
export function mountDashboard(app: express.Express, options: DashboardOptions = {}): void {
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (!Number.isInteger(pollIntervalMs) || pollIntervalMs < 100 || pollIntervalMs > 3_600_000) {
    throw new RangeError(
      `dashboard pollIntervalMs must be a whole number from 100 to 3600000, got ${pollIntervalMs}`,
    );
  }
  const assetsDir = options.assetsDir ?? locateDashboardAssets();
  if (!DASHBOARD_FILES.every((f) => existsSync(join(assetsDir, f)))) {
    throw new DashboardAssetsMissingError(`the dashboard's files were not all found in ${assetsDir}`, {
      context: { assetsDir },
    });
  }
  const indexHtml = join(assetsDir, 'index.html');

  const secure: express.RequestHandler = (_req, res, next) => {
    res.set(SECURITY_HEADERS);
    next();
  };

  // The page itself holds no data (it reads the API, with the token when reads are
  // protected), so it is served without one: an operator can open it and type the token.
  app.get('/', secure, (_req, res) => {
    res.set('Cache-Control', 'no-cache');
    res.sendFile(indexHtml);
  });

  // Browsers ask for /favicon.ico whatever the page declares (the page itself links the SVG).
  app.get('/favicon.ico', secure, (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400');
    res.type('image/x-icon').sendFile(join(assetsDir, 'favicon.ico'));
  });

  app.get('/dashboard/config.json', secure, (_req, res) => {
    res.set('Cache-Control', 'no-store');
    const settings: DashboardSettings = { pollIntervalMs, apiBase: '/api/v1', jobStates: JOB_STATES };
    res.json(settings);
  });

  // Only the listed files are served: nothing else in the folder (type declarations for
  // the tests) nor outside it can be reached through this route.
  const served = new Set<string>(DASHBOARD_FILES.filter((f) => f !== 'index.html'));
  app.get('/dashboard/:file', secure, (req, res, next) => {
    const file = String(req.params.file);
    if (!served.has(file)) {
      next();
      return;
    }
    // Revalidate on each load: an upgraded sidecar must not run an old script.
    res.set('Cache-Control', 'no-cache');
    res.sendFile(join(assetsDir, file));
  });
}
