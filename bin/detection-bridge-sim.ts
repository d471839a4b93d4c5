#!/usr/bin/env node
/**
 * detection-bridge-sim: the events-bridge simulator's command line. The
 * program is sim/cli.ts; `detection-bridge-sim --help` lists the options.
 */
import { main, PROG } from '../sim/cli';

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${PROG}: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
