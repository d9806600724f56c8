#!/usr/bin/env node
'use strict';
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script).
require('../dist/cli/main.js')
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`yarn-sched-sidecar: ${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  });
