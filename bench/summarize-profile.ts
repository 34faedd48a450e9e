// Summarizes a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --profile`): where the time went, by
// function (self time), by package or source folder, and the heaviest call paths through crewd's own code. With
// --folded it prints the profile as folded stacks instead (one line per call path: frames joined by `;`, then its
// self time in microseconds), the input of flame graph tools such as flamegraph.pl, inferno or speedscope.
// Usage: npx tsx bench/summarize-profile.ts <file.cpuprofile> [top] | <file.cpuprofile> --folded
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { repoRoot } from './lib/crew-dirs.ts';
import { partOfFrame, profileParts, type ProfilePart } from './lib/profile-parts.ts';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  readonly hitCount?: number;
  readonly children?: number[];
}

interface CpuProfile {
  readonly nodes: ProfileNode[];
  readonly samples: number[];
  readonly timeDeltas: number[];
}

const [file, topArgument = '25'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: tsx bench/summarize-profile.ts <file.cpuprofile> [top | --folded]');
  process.exit(2);
}
const folded = topArgument === '--folded';
const top = folded ? 0 : Number(topArgument);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

// Self time per node, from the sample timestamps (more exact than hit counts times the interval).
const selfMs = new Map<number, number>();
profile.samples.forEach((nodeId, index) => {
  selfMs.set(nodeId, (selfMs.get(nodeId) ?? 0) + (profile.timeDeltas[index + 1] ?? 0) / 1000);
});
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const totalMs = [...selfMs.values()].reduce((sum, value) => sum + value, 0);

function where(node: ProfileNode): string {
  const { url, lineNumber, columnNumber } = node.callFrame;
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? relative(repoRoot, new URL(url).pathname) : url;
  // Positions are in the code as loaded: for TypeScript that is the transpiled output, so the column matters.
  return `${path}:${lineNumber + 1}:${columnNumber + 1}`;
}

/** crewd's own code, run from its sources or from the build in dist/, also of another checkout than this one. */
function isOwnCode(path: string): boolean {
  return /(?:^|\/)(?:src|dist)\//.test(path) && !path.includes('node_modules/');
}

function area(node: ProfileNode): string {
  const { url } = node.callFrame;
  if (url === '')
    return node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native)';
  const path = url.startsWith('file://') ? relative(repoRoot, new URL(url).pathname) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg !== null) return pkg[1]!;
  if (isOwnCode(path)) return /(?:src|dist)\/[^/]+/.exec(path)![0];
  if (path.startsWith('node:')) return path;
  return path.split('/')[0] ?? path;
}

function table(title: string, totals: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [name, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${ms.toFixed(0).padStart(8)} ms ${((ms / totalMs) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}

const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
// Time attributed to the innermost frame of crewd's own code on the stack: what each of crewd's functions costs,
// including the libraries it calls.
const byOwnFrame = new Map<string, number>();
// Busy time (idle left out) by the part of crewd the innermost frame that names one belongs to.
const byPart = new Map<ProfilePart, number>();
let busyMs = 0;
for (const [nodeId, ms] of selfMs) {
  const node = byId.get(nodeId)!;
  if (node.callFrame.functionName !== '(idle)') {
    busyMs += ms;
    const part = partOf(nodeId);
    byPart.set(part, (byPart.get(part) ?? 0) + ms);
  }
  const name = `${node.callFrame.functionName || '(anonymous)'} ${where(node)}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  byArea.set(area(node), (byArea.get(area(node)) ?? 0) + ms);
  for (let current: number | undefined = nodeId; current !== undefined; current = parent.get(current)) {
    const frame = byId.get(current)!;
    if (isOwnCode(where(frame))) {
      const own = `${frame.callFrame.functionName || '(anonymous)'} ${where(frame)}`;
      byOwnFrame.set(own, (byOwnFrame.get(own) ?? 0) + ms);
      break;
    }
  }
}

function partOf(nodeId: number): ProfilePart {
  for (let current: number | undefined = nodeId; current !== undefined; current = parent.get(current)) {
    const frame = byId.get(current)!;
    const path = frame.callFrame.url === '' ? '' : where(frame);
    const part = partOfFrame(frame.callFrame.functionName, path);
    if (part !== undefined) return part;
  }
  return 'other';
}

/** Every call path with self time, root first, as flame graph tools read it. */
function printFolded(): void {
  for (const [nodeId, ms] of selfMs) {
    const frames: string[] = [];
    for (let current: number | undefined = nodeId; current !== undefined; current = parent.get(current)) {
      const node = byId.get(current)!;
      if (node.callFrame.functionName === '(root)') break;
      // `;` separates frames (the count follows the last space), so it may not appear inside a frame's name.
      frames.push(`${node.callFrame.functionName || '(anonymous)'} ${where(node)}`.replaceAll(';', ','));
    }
    const microseconds = Math.round(ms * 1000);
    if (microseconds > 0) console.log(`${frames.reverse().join(';')} ${microseconds}`);
  }
}

if (folded) {
  printFolded();
  process.exit(0);
}
console.log(`${file}: ${totalMs.toFixed(0)} ms sampled`);
console.log(
  `\nBusy time (${busyMs.toFixed(0)} ms, idle left out) by part, each library counted with its caller`,
);
for (const part of profileParts) {
  const ms = byPart.get(part) ?? 0;
  console.log(`${ms.toFixed(0).padStart(8)} ms ${((ms / busyMs) * 100).toFixed(1).padStart(5)}%  ${part}`);
}
table('Self time by package or source folder', byArea);
table('Self time by function', byFunction);
table("Time under crewd's innermost own frame (self plus the libraries it calls)", byOwnFrame);
