import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The tests that run `wharf` as a process share one build of src/.
    globalSetup: ['test/global-build.ts'],
    pool: 'forks',
    // global.gc, for the tests that measure the heap after a full collection.
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file makes its own databases; two at a time suits the two-core machines.
    maxWorkers: 2,
  },
});
