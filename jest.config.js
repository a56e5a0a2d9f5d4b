/** Three projects: unit specs beside the code, e2e specs against real processes, the program. */
const { availableParallelism } = require('node:os');

const tsJest = ['ts-jest', { tsconfig: 'tsconfig.json' }];
module.exports = {
  // At least two files at once, also on 2 cores where Jest's default (cores - 1) runs them one
  // by one: one e2e file keeps about one core busy (README, Development).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  testSequencer: '<rootDir>/jest.sequencer.js',
  // Unit specs share the 2 cores with e2e files and the processes they start: a spec that takes
  // 1 s alone can take several under that load. Specs that need longer say so themselves.
  testTimeout: 20_000,
  projects: [
    {
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/tools/**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest/jest-worker-setup.ts'],
    },
    {
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
      setupFilesAfterEnv: [
        '<rootDir>/test/support/jest/jest-worker-setup.ts',
        '<rootDir>/test/support/jest/jest-e2e-setup.ts',
      ],
    },
    {
      displayName: 'program',
      rootDir: '.',
      testMatch: ['<rootDir>/program/test/**/*.spec.ts'],
      transform: { '^.+\\.ts$': tsJest },
      testEnvironment: 'node',
      setupFilesAfterEnv: ['<rootDir>/test/support/jest/jest-worker-setup.ts'],
    },
  ],
};
