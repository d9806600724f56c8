'use strict';
// Preloaded (node --require) by test/sim/plot-install.test.ts: any devDependency that the
// project's own sources (src/) ask for is refused, as in a production install where
// `npm prune --omit=dev` has removed them. The TypeScript loader itself may use its own.
const Module = require('node:module');
const { join } = require('node:path');

const root = process.env.YSS_ROOT;
if (!root) throw new Error('plot-no-dev.cjs: set YSS_ROOT to the repository root');
const dev = new Set(Object.keys(require(join(root, 'package.json')).devDependencies));
const src = join(root, 'src');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const name = request.startsWith('@') ? request.split('/').slice(0, 2).join('/') : request.split('/')[0];
  if (dev.has(name) && parent && parent.filename && parent.filename.startsWith(src))
    throw new Error(`devDependency ${name} required by ${parent.filename}`);
  return resolveFilename.call(this, request, parent, ...rest);
};
