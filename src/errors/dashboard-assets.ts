import { SidecarError } from './base';

/**
 * The dashboard's static files (HTML, CSS, browser JavaScript) were not found next to the
 * code nor under the package root: the installation is incomplete. Raised at start, so the
 * sidecar never serves a page that cannot load.
 */
export class DashboardAssetsMissingError extends SidecarError {
  static override readonly code = 'DASHBOARD_ASSETS_MISSING';
  static override readonly httpStatus = 500;
}
