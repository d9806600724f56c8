/**
 * Writes the OpenAPI document the sidecar serves at /api/v1/openapi.json (generated from the
 * zod schemas) to a temporary file and runs `redocly lint` over it with redocly.yaml
 * (recommended-strict: any warning fails). Exits with redocly's status.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openApiDocument } from '../src/api/openapi';

const root = path.resolve(__dirname, '..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yss-openapi-'));
const file = path.join(dir, 'openapi.json');
try {
  fs.writeFileSync(file, JSON.stringify(openApiDocument, null, 2));
  const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
  const run = spawnSync(redocly, ['lint', '--config', path.join(root, 'redocly.yaml'), file], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.exitCode = run.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
