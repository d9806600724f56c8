#!/usr/bin/env node
'use strict';
// The compiled CLI lives in dist/ (built by `npm install` through the prepare script). main()
// sets the exit code itself (docs/cli.md); this catch is for a failure to load it at all.
require('../dist/cli/main.js')
  .main(process.argv)
  .catch((err) => {
    process.stderr.write(`yarn-sched-sidecar: ${err && err.message ? err.message : String(err)}\n`);
    process.exit(1);
  });
