import { describe, expect, it } from 'vitest';
import { PodCapacityFlagError, parsePodCapacityFlag } from './pod-capacity-flag.js';

const clusters = ['host', 'member1', 'member2'];

describe('parsePodCapacityFlag', () => {
  it.each([
    ['5', { host: 5, member1: 5, member2: 5 }],
    ['0', { host: 0, member1: 0, member2: 0 }],
    ['member1=2', { host: Infinity, member1: 2, member2: Infinity }],
    ['member1=2, member2=0', { host: Infinity, member1: 2, member2: 0 }],
    ['10,member2=1', { host: 10, member1: 10, member2: 1 }],
    ['unlimited,host=unlimited,member1=3', { host: Infinity, member1: 3, member2: Infinity }],
  ])('reads %j as a capacity per cluster', (value, expected) => {
    expect(Object.fromEntries(parsePodCapacityFlag(value, clusters))).toEqual(expected);
  });

  it.each([
    ['-1', /non-negative integer/],
    ['2.5', /non-negative integer/],
    ['member1=x', /non-negative integer/],
    ['other=1', /no cluster named "other"/],
    ['host=1,host=2', /given twice/],
    ['1,2', /more than one default/],
    ['host=1,', /empty entry/],
  ])('refuses %j', (value, message) => {
    expect(() => parsePodCapacityFlag(value, clusters)).toThrow(PodCapacityFlagError);
    expect(() => parsePodCapacityFlag(value, clusters)).toThrow(message);
  });
});
