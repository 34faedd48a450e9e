import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.crewd/',
      'bench/results/',
      '.scratch/',
      'test/fixtures/tool-modules/broken/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.js'] } },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver': { node: { extensions: ['.ts', '.js'] } },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^(\\.\\./)*\\.\\.?/?$', message: "Import from a named file, not from '..'." }],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // The layers of README's "Inside": each folder of src/ imports only the layers below it, so an upward import fails
  // lint. Folders not named here (entry points such as cli/) may import anything.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: layerZones() }] },
  },
  // The client is published on its own: it may take the API's request and response types, never its code.
  {
    files: ['src/client/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/*'],
              allowTypeImports: true,
              message: 'The client takes only types from the API.',
            },
          ],
        },
      ],
    },
  },
  // Plain-JavaScript MCP servers (examples, test fixtures) run with node alone and sit outside the TypeScript project.
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);

/** What each layer of src/ may import besides itself; everything else in src/ is off limits to it. */
function layerZones() {
  // system/ holds small helpers over Node's own APIs (file modes): below every layer, importing none.
  const below = {
    system: [],
    domain: [],
    crew: ['domain'],
    llm: ['domain'],
    store: ['domain'],
    engine: ['domain', 'crew', 'llm'],
    workspace: ['domain', 'engine'],
    webhooks: ['domain', 'store'],
    observability: ['domain', 'store'],
    tools: ['domain', 'engine', 'webhooks'],
    // Flows run crews and agents; the service and the API build on them, never the reverse.
    flow: ['domain', 'crew', 'engine', 'llm', 'tools'],
    service: ['domain', 'crew', 'engine', 'llm', 'flow', 'store', 'webhooks', 'observability'],
    api: ['domain', 'engine', 'flow', 'service', 'store', 'webhooks', 'observability', 'tools'],
    client: ['domain', 'api'],
  };
  return Object.entries(below).map(([layer, allowed]) => ({
    target: `./src/${layer}`,
    from: './src',
    except: [...new Set([`./${layer}`, './system', ...allowed.map((name) => `./${name}`)])],
    message: `src/${layer} may import only ${[layer, ...allowed].join(', ')} (README, "Inside").`,
  }));
}
