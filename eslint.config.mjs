import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { roomImports } from './tools/eslint/room-imports.mjs';

/**
 * The rooms of src/ and the rooms each may import from (docs/architecture.md explains the
 * layers). Foundation rooms (config, logging, health, http, observability) import no feature
 * room: rooms register with them (health checks, metrics collectors) instead; feature rooms
 * (site, object, upload, s3, admin) never import each other; only the entry points wire
 * everything.
 */
const ROOMS = {
  '(root)': [
    'admin',
    'chain',
    'cli',
    'config',
    'domains',
    'health',
    'http',
    'localnet',
    'logging',
    'metering',
    'object',
    'observability',
    's3',
    'site',
    'startup',
    'tracks',
    'upload',
    'verify',
    'versions',
  ],
  startup: [],
  config: [],
  logging: [],
  health: [],
  http: ['config'],
  'shared-state': ['config', 'health'],
  observability: ['config', 'health', 'http', 'logging'],
  chain: ['config', 'health', 'observability'],
  localnet: ['chain', 'config', 'http'],
  credentials: ['config', 'shared-state'],
  domains: ['chain', 'config', 'observability'],
  metering: ['config', 'health', 'http', 'observability'],
  tracks: ['chain', 'config', 'health', 'http', 'observability', 'shared-state'],
  versions: ['chain', 'tracks'],
  site: ['chain', 'config', 'domains', 'http', 'metering', 'tracks', 'versions'],
  object: ['chain', 'config', 'http', 'metering', 'tracks', 'versions'],
  upload: ['chain', 'config', 'health', 'http', 'metering', 'observability', 'tracks', 'versions'],
  s3: [
    'chain',
    'config',
    'credentials',
    'domains',
    'http',
    'metering',
    'observability',
    'shared-state',
    'tracks',
    'versions',
  ],
  admin: ['chain', 'config', 'domains', 'http', 'observability'],
  // Proofs resolve a site path with the site room's own pure rules (site-path, site-routing,
  // site-settings): one copy of each rule, no Nest module of the site room imported.
  verify: ['chain', 'config', 'domains', 'http', 'metering', 'site', 'tracks', 'versions'],
  cli: [
    'chain',
    'config',
    'credentials',
    'domains',
    'localnet',
    'tracks',
    'upload',
    'verify',
    'versions',
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-bench/**',
      'dist-tools/**',
      'node_modules/**',
      'bin/**',
      '*.js',
      '*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      // Byte codecs compare raw numbers with enum tags on purpose.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { tape: { rules: { 'room-imports': roomImports } } },
    rules: { 'tape/room-imports': ['error', ROOMS] },
  },
  {
    // Services return answers; only controllers, edges and listeners see Fastify.
    files: ['src/**/*.service.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['fastify', 'fastify/*', '@fastify/*'],
              message:
                'a service returns an answer; the controller writes it (docs/architecture.md)',
            },
          ],
        },
      ],
    },
  },
);
