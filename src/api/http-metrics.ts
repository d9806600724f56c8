import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SidecarMetrics } from '../metrics';

/**
 * The route label of a request: the template it matched (`/api/v1/jobs/:id`), never the raw
 * path, so ids and probes for unknown paths do not grow the series without bound. A request
 * no route matched (a 404 for an unknown path) is `unmatched`.
 */
export function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}

/**
 * Counts every answered request and times it, labelled by method, route template and status
 * code (http_requests_total, http_request_duration_seconds). The clock is injectable so a test
 * can give the latency it expects; the default is the monotonic high-resolution one.
 */
export function httpMetrics(
  metrics: SidecarMetrics,
  clockSeconds: () => number = () => Number(process.hrtime.bigint()) / 1e9,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const start = clockSeconds();
    let done = false;
    const record = (): void => {
      if (done) return;
      done = true;
      const labels = { method: req.method, route: routeLabel(req), status_code: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpRequestSeconds.observe(labels, Math.max(0, clockSeconds() - start));
    };
    // 'finish' when the answer was sent; 'close' alone when the client went away first.
    res.once('finish', record);
    res.once('close', record);
    next();
  };
}
