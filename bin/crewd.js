#!/usr/bin/env node
// Runs the TypeScript sources directly, so `npx crewd` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
