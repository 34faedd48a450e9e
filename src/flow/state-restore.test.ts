import { describe, expect, it } from 'vitest';
import { flowFromText } from './load-flow.ts';
import { kickoffState } from './state-restore.ts';

const methods = 'methods:\n  m: {start: true, do: {call: expression, expr: "1"}}';
const persisted = flowFromText(`name: Kept\npersist: {enabled: true}\n${methods}`, { warn: () => {} });
const plain = flowFromText(`name: Plain\nstate: {type: dict, default: {id: preset}}\n${methods}`, {
  warn: () => {},
});
const newId = () => 'new-id';

describe('kickoffState', () => {
  it('restores the state id a persisted flow is kicked off with, under that id', () => {
    expect(kickoffState(persisted, { id: 'tally' }, undefined, newId)).toEqual({
      stateId: 'tally',
      restoreFrom: 'tally',
    });
    expect(kickoffState(persisted, {}, undefined, newId)).toEqual({ stateId: 'new-id', restoreFrom: null });
    expect(kickoffState(persisted, { id: '' }, undefined, newId)).toEqual({
      stateId: 'new-id',
      restoreFrom: null,
    });
  });

  it('forks under a new id, or inputs.id', () => {
    expect(kickoffState(persisted, {}, 'trunk', newId)).toEqual({ stateId: 'new-id', restoreFrom: 'trunk' });
    expect(kickoffState(persisted, { id: 'branch' }, 'trunk', newId)).toEqual({
      stateId: 'branch',
      restoreFrom: 'trunk',
    });
  });

  it('only names the state id of a flow without persist: inputs.id, else the default id, else a new one', () => {
    expect(kickoffState(plain, { id: 'tally' }, 'trunk', newId)).toEqual({
      stateId: 'tally',
      restoreFrom: null,
    });
    expect(kickoffState(plain, {}, 'trunk', newId)).toEqual({ stateId: 'preset', restoreFrom: null });
  });
});
