import type { ExecutionState } from '../domain/execution.ts';

/** An execution a claim could take, with what fair ordering needs to know of it. */
export interface ClaimCandidate {
  readonly id: string;
  readonly state: ExecutionState;
  readonly tokenId: string;
  /** ISO time, so candidates compare as the stores order them. */
  readonly createdAt: string;
  readonly leaseOwner: string | null;
}

/** What the store knows of each token with work waiting. */
export interface TokenStanding {
  /** Its PENDING and RUNNING executions, claimable or not. */
  readonly active: ReadonlyMap<string, number>;
  /** When its latest execution started (ISO time); absent for a token none of whose executions has started. */
  readonly lastStarted: ReadonlyMap<string, string>;
}

/**
 * Orders what a claim may take the way the PostgreSQL claim does in SQL: RUNNING executions taken over first
 * (turn 0), then each waiting execution at turn `busy + n` (its token's executions running or leased and not
 * claimable, plus its place in its token's queue), so tokens take turns. Within a turn the token served least
 * recently goes first (one never served before all others), then the oldest execution. With `runningPerToken`,
 * waiting executions whose turn is past it are left out.
 */
export function fairTurns(
  candidates: readonly ClaimCandidate[],
  standing: TokenStanding,
  runningPerToken?: number,
): ClaimCandidate[] {
  const { active, lastStarted } = standing;
  const waitingByToken = new Map<string, ClaimCandidate[]>();
  for (const candidate of candidates) {
    if (candidate.state !== 'PENDING') continue;
    const queue = waitingByToken.get(candidate.tokenId) ?? [];
    queue.push(candidate);
    waitingByToken.set(candidate.tokenId, queue);
  }
  const turns: { candidate: ClaimCandidate; turn: number }[] = [];
  for (const candidate of candidates) {
    if (candidate.state !== 'PENDING') turns.push({ candidate, turn: 0 });
  }
  for (const [tokenId, queue] of waitingByToken) {
    const busy = (active.get(tokenId) ?? 0) - queue.length;
    queue.sort(byAge);
    queue.forEach((candidate, index) => {
      const turn = busy + index + 1;
      if (runningPerToken === undefined || turn <= runningPerToken) turns.push({ candidate, turn });
    });
  }
  const served = (candidate: ClaimCandidate): string => lastStarted.get(candidate.tokenId) ?? '';
  return turns
    .sort(
      (a, b) =>
        a.turn - b.turn ||
        compare(served(a.candidate), served(b.candidate)) ||
        byAge(a.candidate, b.candidate),
    )
    .map((entry) => entry.candidate);
}

function byAge(a: ClaimCandidate, b: ClaimCandidate): number {
  return compare(a.createdAt, b.createdAt) || compare(a.id, b.id);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
