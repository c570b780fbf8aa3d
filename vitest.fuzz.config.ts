import { defineConfig } from 'vitest/config';

/** `npm run fuzz`: the long schema-driven fuzzing of every route (test/fuzz/every-route.fuzz.ts). */
export default defineConfig({
  test: {
    include: ['test/fuzz/**/*.fuzz.ts'],
    globalSetup: ['test/global-build.ts'],
    pool: 'forks',
    execArgv: ['--expose-gc'],
    testTimeout: 3_600_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
  },
});
