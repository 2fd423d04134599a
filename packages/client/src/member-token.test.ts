import { describe, expect, it } from 'vitest';
import {
  JOIN_SERVICE_ACCOUNT_ANNOTATION,
  shortLivedTokenOf,
  TOKEN_EXPIRATION_ANNOTATION,
  TOKEN_LIFETIME_ANNOTATION,
  tokenAnnotations,
  tokenRenewalDue,
} from './member-token.js';

const secret = (annotations: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'member1-x', namespace: 'kube-federation-system', annotations },
});
const full = {
  [TOKEN_EXPIRATION_ANNOTATION]: '2026-12-02T12:00:00Z',
  [TOKEN_LIFETIME_ANNOTATION]: '86400',
  [JOIN_SERVICE_ACCOUNT_ANNOTATION]: 'member1-host',
};

describe('shortLivedTokenOf', () => {
  it('reads the service account, lifetime and expiry a join wrote', () => {
    expect(shortLivedTokenOf(secret(full))).toEqual({
      namespace: 'kube-federation-system',
      serviceAccount: 'member1-host',
      lifetimeSeconds: 86400,
      expiresAt: Date.parse('2026-12-02T12:00:00Z'),
    });
  });

  it.each([
    ['a legacy token (no expiry)', { [JOIN_SERVICE_ACCOUNT_ANNOTATION]: 'member1-host' }],
    ['an unreadable expiry', { ...full, [TOKEN_EXPIRATION_ANNOTATION]: 'tomorrow' }],
    ['a lifetime under 10 minutes', { ...full, [TOKEN_LIFETIME_ANNOTATION]: '60' }],
    ['no service account', { [TOKEN_EXPIRATION_ANNOTATION]: full[TOKEN_EXPIRATION_ANNOTATION], [TOKEN_LIFETIME_ANNOTATION]: '86400' }],
  ])('is undefined for %s: nothing is renewed on a guess', (_title, annotations) => {
    expect(shortLivedTokenOf(secret(annotations))).toBeUndefined();
  });
});

describe('tokenRenewalDue', () => {
  const token = { namespace: 'ns', serviceAccount: 'sa', lifetimeSeconds: 3600, expiresAt: Date.parse('2026-12-02T12:00:00Z') };
  it.each([
    ['2026-12-02T11:00:00Z', false],
    ['2026-12-02T11:29:59Z', false],
    ['2026-12-02T11:30:00Z', true],
    ['2026-12-02T13:00:00Z', true],
  ])('at %s: %s', (now, due) => {
    expect(tokenRenewalDue(token, Date.parse(now))).toBe(due);
  });
});

describe('tokenAnnotations', () => {
  it('writes the expiry in RFC 3339 whole seconds and the lifetime asked for', () => {
    expect(tokenAnnotations({ token: 't', expiresAt: Date.parse('2026-12-02T12:00:00.750Z') }, 7200)).toEqual({
      [TOKEN_EXPIRATION_ANNOTATION]: '2026-12-02T12:00:00Z',
      [TOKEN_LIFETIME_ANNOTATION]: '7200',
    });
  });
});
