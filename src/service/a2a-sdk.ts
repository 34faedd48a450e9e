import { createRequire } from 'node:module';
import type * as A2aSdk from '@a2a-js/sdk';
import type * as A2aLegacyServerSdk from '@a2a-js/sdk/compat/v0_3/server';
import type * as A2aServerSdk from '@a2a-js/sdk/server';

/*
 * The A2A SDK for the code that runs inside a change's transaction (an execution's A2A task and its push
 * notifications), loaded synchronously from its CommonJS build on first use: only executions an A2A client follows
 * need it, and a server starts without it. The A2A routes load the same SDK's ES modules when first asked; the two
 * share no state, only plain values (enum numbers, JSON).
 */

type Sdk = typeof A2aSdk;
type ServerSdk = typeof A2aServerSdk;
type LegacyServerSdk = typeof A2aLegacyServerSdk;

const require = createRequire(import.meta.url);
let sdk: Sdk | undefined;
let server: ServerSdk | undefined;
let legacyServer: LegacyServerSdk | undefined;

export function a2aSdk(): Sdk {
  return (sdk ??= require('@a2a-js/sdk') as Sdk);
}

export function a2aServerSdk(): ServerSdk {
  return (server ??= require('@a2a-js/sdk/server') as ServerSdk);
}

export function a2aLegacyServerSdk(): LegacyServerSdk {
  return (legacyServer ??= require('@a2a-js/sdk/compat/v0_3/server') as LegacyServerSdk);
}
