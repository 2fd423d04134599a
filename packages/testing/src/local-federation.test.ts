import { describe, expect, it } from 'vitest';
import { hostAsMemberFromEnvironment, startLocalFederation } from './local-federation.js';
import { TestingError } from './testing-error.js';

describe('hostAsMemberFromEnvironment', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['1', true],
    ['true', true],
  ] as const)('reads %j as %s', (value, hostAsMember) => {
    expect(hostAsMemberFromEnvironment(value)).toBe(hostAsMember);
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => hostAsMemberFromEnvironment('yes')).toThrow(TestingError);
    expect(() => hostAsMemberFromEnvironment('yes')).toThrow('KUBEFED_E2E_HOST_AS_MEMBER must be 1 or 0, got "yes"');
  });
});

describe('startLocalFederation', () => {
  it('refuses hostAsMember without joins, before starting any process', async () => {
    await expect(startLocalFederation({ hostAsMember: true, join: false })).rejects.toThrow(
      'local federation: hostAsMember joins the host with the members: it needs join other than false',
    );
  });

  it('refuses a member named host, before starting any process', async () => {
    await expect(startLocalFederation({ members: ['host', 'member1'] })).rejects.toThrow(
      'local federation: "host" is the host, not a member name: join it as one with hostAsMember',
    );
  });
});
