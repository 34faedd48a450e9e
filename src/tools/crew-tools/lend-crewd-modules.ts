import Module, { createRequire, register } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The module a crew's `import { defineTool } from 'crewd/tools'` gets when the crew has no crewd of its own: the one
 * this process runs (its `.ts` source, or the build's `.js`), so it needs no build and matches the running version.
 */
const toolsApi = new URL(`../define-tool${path.extname(fileURLToPath(import.meta.url))}`, import.meta.url)
  .href;

/**
 * Node's ESM resolution, then crewd's own copy of what it lends. Hooks run on Node's loader thread, so this is
 * their whole source; `data` carries what it needs from here.
 */
const esmHooks = `
let lent;
export function initialize(data) { lent = data; }
const isLent = (specifier) => specifier === 'crewd/tools' || specifier === 'zod' || specifier.startsWith('zod/');
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !isLent(specifier)) throw error;
    if (specifier === 'crewd/tools') return { url: lent.toolsApi, shortCircuit: true };
    return nextResolve(specifier, { ...context, parentURL: lent.parentURL });
  }
}
`;

function isLent(specifier: string): boolean {
  return specifier === 'crewd/tools' || specifier === 'zod' || specifier.startsWith('zod/');
}

type ResolveFilename = (request: string, ...rest: unknown[]) => string;

let lending: Promise<void> | undefined;

/**
 * Lets a crew's modules import `crewd/tools` and `zod` (whose schemas `defineTool` takes) with nothing installed, as
 * a crew kept outside any Node project is. The crew's own installed copies come first; crewd's are the fallback,
 * for ES modules and CommonJS alike (TypeScript tools in such a directory run as CommonJS). Once per process.
 */
export function lendCrewdModules(): Promise<void> {
  lending ??= lend();
  return lending;
}

async function lend(): Promise<void> {
  if (toolsApi.endsWith('.ts')) {
    // Run from its sources (a checkout with no build), crewd's own tools module needs compiling for require() too.
    const { register: compileRequiredTypeScript } = await import('tsx/cjs/api');
    compileRequiredTypeScript();
  }
  register(`data:text/javascript,${encodeURIComponent(esmHooks)}`, {
    data: { toolsApi, parentURL: import.meta.url },
  });
  // Node 20 has no hook for require(); its resolver is the one place every CommonJS lookup passes.
  const crewdRequire = createRequire(import.meta.url);
  const loader = Module as unknown as { _resolveFilename: ResolveFilename };
  const resolveFilename = loader._resolveFilename;
  loader._resolveFilename = function (request, ...rest) {
    try {
      return resolveFilename.call(this, request, ...rest);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !isLent(request)) throw error;
      return request === 'crewd/tools' ? fileURLToPath(toolsApi) : crewdRequire.resolve(request);
    }
  };
}
