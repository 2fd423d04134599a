import { describe, expect, it } from 'vitest';
import { invocationName } from './help-format.js';

describe('invocationName', () => {
  it.each([
    ['/usr/local/bin/kubectl-kubefed', 'kubectl kubefed'],
    ['/home/me/.krew/bin/kubectl-kube_fed', 'kubectl kube-fed'],
    ['/usr/local/bin/kubefedctl', 'kubefedctl'],
    ['/repo/packages/kubefedctl/bin/kubefedctl.js', 'kubefedctl'],
    ['/repo/packages/kubefedctl/src/main.ts', 'kubefedctl'],
    [undefined, 'kubefedctl'],
  ])('names the program run as %j %j', (file, name) => {
    expect(invocationName(file)).toBe(name);
  });
});
