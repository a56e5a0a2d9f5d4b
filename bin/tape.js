#!/usr/bin/env node
// The `tape` command: runs the compiled CLI (npm run build first).
require('../dist/cli.js');
