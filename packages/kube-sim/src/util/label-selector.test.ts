import { describe, expect, it } from 'vitest';
import { SelectorParseError, matchesLabels, parseFieldSelector, parseLabelSelector } from './label-selector.js';

const labels = { app: 'web', tier: 'frontend', rank: '5' };

describe('label selectors', () => {
  it.each([
    ['', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,api)', true],
    ['app in (api)', false],
    ['app notin (api)', true],
    ['missing notin (api)', true],
    ['tier notin (frontend, backend)', false],
    ['rank>3', true],
    ['rank<3', false],
    ['app=web,tier=frontend', true],
    ['app=web,tier=backend', false],
    ['app=web, !missing , tier in (frontend)', true],
  ])('evaluates %j as %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it.each(['app in', 'app in (a', '=x', 'app=a b', 'Bad Key=x', 'rank>x'])('refuses the malformed selector %j', (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorParseError);
  });

  it('matches an empty value only against an empty label value', () => {
    expect(matchesLabels(parseLabelSelector('app='), { app: '' })).toBe(true);
    expect(matchesLabels(parseLabelSelector('app='), { app: 'web' })).toBe(false);
  });

  it('parses field selectors with =, == and !=', () => {
    expect(parseFieldSelector('metadata.name=a,metadata.namespace!=b,status.phase==Running')).toEqual([
      { field: 'metadata.name', negate: false, value: 'a' },
      { field: 'metadata.namespace', negate: true, value: 'b' },
      { field: 'status.phase', negate: false, value: 'Running' },
    ]);
  });
});
