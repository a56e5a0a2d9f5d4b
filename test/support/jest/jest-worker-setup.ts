/**
 * nest-commander reads `process.stdin` when it is imported (its inquirer options), which opens a
 * Jest worker's stdin pipe and keeps the worker alive after its last file ("A worker process has
 * failed to exit gracefully"). The CLI exits explicitly (src/cli.ts); a test worker lets go of
 * the handle after each file instead.
 */
afterAll(() => {
  (process.stdin as { unref?: () => void }).unref?.();
});
