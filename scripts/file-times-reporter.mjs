/**
 * A second test reporter: appends `milliseconds<TAB>file` for every top-level test to the file named by
 * SERVICE_TEST_TIMES_FILE, at once (--test-force-exit ends the run before a reporter's last output);
 * scripts/run-tests.ts sums them per file and prints the slowest files, so a CI log shows where time goes.
 */
import fs from 'node:fs';

// biome-ignore lint/correctness/useYield: a reporter must be an async generator; this one writes to a file instead
export default async function* fileTimes(source) {
  const out = process.env.SERVICE_TEST_TIMES_FILE;
  for await (const event of source) {
    if (!out) continue;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      fs.appendFileSync(out, `${Math.round(event.data.details?.duration_ms ?? 0)}\t${event.data.file}\n`);
    }
  }
}
