#!/usr/bin/env node
// The `tape` command: runs the compiled CLI. In a clone, `npm run build` makes dist/; the npm
// package ships it (prepack builds it).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write(
    `error: the tape CLI is not built (${cli} is missing): run npm run build in ${join(__dirname, '..')}\n`,
  );
  process.exit(1);
}
require(cli);
