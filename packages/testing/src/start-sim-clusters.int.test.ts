import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startSimClusters, TestingError } from '@kubefed/testing';

describe('startSimClusters', () => {
  it('starts every named cluster and writes one kubeconfig holding all of them', async () => {
    let path: string;
    let urls: string[];
    {
      await using sims = await startSimClusters(['host', 'member1'], { tls: false });
      path = sims.kubeconfigPath;
      urls = sims.clusters.map((c) => c.url);
      expect(sims.clusters.map((c) => c.name)).toEqual(['host', 'member1']);
      expect(sims.get('member1').url).toBe(urls[1]);
      expect(() => sims.get('nope')).toThrow(TestingError);
      const yaml = await readFile(path, 'utf8');
      expect(yaml).toBe(sims.kubeconfigYaml);
      expect(yaml).toContain('current-context: host');
      for (const c of sims.clusters) {
        expect(yaml).toContain(c.url);
        const res = await fetch(`${c.url}/api`, { headers: { authorization: `Bearer ${c.adminToken}` } });
        expect(res.status).toBe(200);
      }
    }
    await expect(readFile(path, 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(fetch(`${urls[0]!}/version`)).rejects.toThrow();
  });
});
