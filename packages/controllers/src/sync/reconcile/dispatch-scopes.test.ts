import { describe, expect, it } from 'vitest';
import { DispatchScopes, readinessChanges } from './dispatch-scopes.js';

describe('DispatchScopes', () => {
  it('reconciles a key without an entry (a retry, a requeue) in full', () => {
    expect(new DispatchScopes().take('a')).toBeUndefined();
  });

  it('gathers the clusters of readiness changes until the key is taken, then forgets them', () => {
    const scopes = new DispatchScopes();
    scopes.only('a', new Set(['c1']));
    scopes.only('a', new Set(['c2']));
    expect(scopes.take('a')).toEqual(new Set(['c1', 'c2']));
    expect(scopes.take('a')).toBeUndefined();
  });

  it('keeps every cluster for a key queued for a change of its own, before or after a readiness change', () => {
    const scopes = new DispatchScopes();
    scopes.all('a');
    scopes.only('a', new Set(['c1']));
    scopes.only('b', new Set(['c1']));
    scopes.all('b');
    expect(scopes.take('a')).toBeUndefined();
    expect(scopes.take('b')).toBeUndefined();
  });
});

describe('readinessChanges', () => {
  it('names clusters that became Ready, stopped being Ready or got another client', () => {
    const before = new Map([
      ['stays', 1],
      ['gone', 2],
      ['replaced', 3],
    ]);
    const after = new Map([
      ['stays', 1],
      ['replaced', 4],
      ['new', 5],
    ]);
    expect(readinessChanges(before, after)).toEqual(new Set(['gone', 'replaced', 'new']));
  });
});
