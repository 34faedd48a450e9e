import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web console (console/) is built into dist/console, which the server serves under /console.
export default defineConfig({
  root: fileURLToPath(new URL('console', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('dist/console', import.meta.url)),
    emptyOutDir: true,
    // The polyfill is an inline script, which the console's Content-Security-Policy refuses; one chunk needs none.
    modulePreload: { polyfill: false },
    target: 'es2022',
    assetsInlineLimit: 0,
  },
});
