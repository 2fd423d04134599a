import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SimCluster, startCluster } from '../../index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
type Json = any;

interface Reply {
  status: number;
  body: Json;
}

function call(c: SimCluster, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  const u = new URL(path, c.url);
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method,
        agent: false,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers: {
          Authorization: `Bearer ${c.adminToken}`,
          'Content-Type': contentType,
          Accept: 'application/json',
          ...(data !== undefined ? { 'Content-Length': String(data.length) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
      },
    );
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

/** A watch whose events accumulate in `events` until `close()`. */
function watch(c: SimCluster, path: string): Promise<{ events: Json[]; close: () => void }> {
  const u = new URL(path, c.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method: 'GET',
        agent: false,
        hostname: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        headers: { Authorization: `Bearer ${c.adminToken}` },
      },
      (res) => {
        const events: Json[] = [];
        let buf = '';
        res.on('data', (d: Buffer) => {
          buf += d.toString('utf8');
          let i;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim() !== '') events.push(JSON.parse(line));
          }
        });
        res.on('error', () => undefined);
        resolve({ events, close: () => req.destroy() });
      },
    );
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

const clusters: SimCluster[] = [];
const closers: (() => void)[] = [];
async function start(podCapacity?: number): Promise<SimCluster> {
  const c = await startCluster({ name: `w${clusters.length}`, tls: false, ...(podCapacity !== undefined ? { podCapacity } : {}) });
  clusters.push(c);
  return c;
}
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await Promise.all(clusters.splice(0).map((c) => c.stop()));
});

const ns = 'default';
const deploys = `/apis/apps/v1/namespaces/${ns}/deployments`;
const replicaSets = `/apis/apps/v1/namespaces/${ns}/replicasets`;
const pods = `/api/v1/namespaces/${ns}/pods`;

function deployment(name: string, replicas: number, image = 'registry.k8s.io/pause:3.9'): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image }] } },
    },
  };
}

async function podsOf(c: SimCluster, app: string): Promise<Json[]> {
  const r = await call(c, 'GET', `${pods}?labelSelector=app%3D${app}`);
  return r.body.items;
}
const phases = (items: Json[]): string[] => items.map((p) => p.status.phase as string).sort();
const condition = (obj: Json, type: string): Json => (obj.status?.conditions ?? []).find((x: Json) => x.type === type);
const wait = { timeout: 5000, interval: 20 };

describe('workload simulation', () => {
  it('runs a Deployment of 3 replicas through one ReplicaSet to 3 Running pods and reports it Available', async () => {
    const c = await start();
    expect((await call(c, 'POST', deploys, deployment('web', 3))).status).toBe(201);
    await vi.waitFor(async () => {
      const d = (await call(c, 'GET', `${deploys}/web`)).body;
      expect(d.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
      expect(condition(d, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
      expect(condition(d, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable' });
    }, wait);
    const d = (await call(c, 'GET', `${deploys}/web`)).body;
    const rsList = (await call(c, 'GET', replicaSets)).body.items;
    expect(rsList).toHaveLength(1);
    const rs = rsList[0];
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true }),
    ]);
    expect(rs.spec.replicas).toBe(3);
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.status).toMatchObject({
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const items = await podsOf(c, 'web');
    expect(phases(items)).toEqual(['Running', 'Running', 'Running']);
    for (const p of items) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(p.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(p.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true }),
      ]);
      expect(p.spec.nodeName).toMatch(/-node-\d$/);
      expect(p.spec.containers).toEqual([expect.objectContaining({ name: 'app', image: 'registry.k8s.io/pause:3.9' })]);
      expect(typeof p.status.startTime).toBe('string');
      expect(p.status.containerStatuses).toEqual([expect.objectContaining({ name: 'app', ready: true, started: true })]);
      for (const type of ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'])
        expect(condition(p, type)).toMatchObject({ status: 'True' });
    }
    // Round robin over the two simulated nodes.
    expect(new Set(items.map((p: Json) => p.spec.nodeName)).size).toBe(2);
  });

  it('keeps pods beyond podCapacity Pending and Unschedulable, and schedules them when capacity is raised', async () => {
    const c = await start(2);
    expect(c.podCapacity).toBe(2);
    await call(c, 'POST', deploys, deployment('tight', 3));
    await vi.waitFor(async () => {
      const d = (await call(c, 'GET', `${deploys}/tight`)).body;
      expect(d.status).toMatchObject({ replicas: 3, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1 });
      expect(condition(d, 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
      expect(condition(d, 'Progressing')).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated' });
    }, wait);
    const items = await podsOf(c, 'tight');
    expect(phases(items)).toEqual(['Pending', 'Running', 'Running']);
    const pending = items.find((p: Json) => p.status.phase === 'Pending');
    expect(pending.spec.nodeName).toBeUndefined();
    const cond = condition(pending, 'PodScheduled');
    expect(cond).toMatchObject({ status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Too many pods.' });
    expect(typeof cond.lastTransitionTime).toBe('string');

    c.setPodCapacity(3);
    await vi.waitFor(async () => {
      expect(phases(await podsOf(c, 'tight'))).toEqual(['Running', 'Running', 'Running']);
      const d = (await call(c, 'GET', `${deploys}/tight`)).body;
      expect(d.status).toMatchObject({ readyReplicas: 3, availableReplicas: 3 });
      expect(d.status.unavailableReplicas).toBeUndefined();
      expect(condition(d, 'Available')).toMatchObject({ status: 'True' });
    }, wait);
    expect((await podsOf(c, 'tight')).find((p: Json) => p.metadata.uid === pending.metadata.uid)).toBeDefined();
  });

  it('schedules the oldest Pending pod first when a running pod is deleted', async () => {
    const c = await start(1);
    await call(c, 'POST', deploys, deployment('first', 1));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'first'))).toEqual(['Running']), wait);
    await call(c, 'POST', deploys, deployment('second', 1));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'second'))).toEqual(['Pending']), wait);
    await call(c, 'POST', deploys, deployment('third', 1));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'third'))).toEqual(['Pending']), wait);
    const running = (await podsOf(c, 'first'))[0];
    // Scale the first deployment to 0: its pod goes, the oldest waiting pod (second) takes its place.
    await call(c, 'PATCH', `${deploys}/first`, { spec: { replicas: 0 } }, 'application/merge-patch+json');
    await vi.waitFor(async () => {
      expect(await podsOf(c, 'first')).toEqual([]);
      expect(phases(await podsOf(c, 'second'))).toEqual(['Running']);
      expect(phases(await podsOf(c, 'third'))).toEqual(['Pending']);
    }, wait);
    expect(running.status.phase).toBe('Running');
  });

  it('deletes Pending pods first when a Deployment scales down', async () => {
    const c = await start(2);
    await call(c, 'POST', deploys, deployment('shrink', 4));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'shrink'))).toEqual(['Pending', 'Pending', 'Running', 'Running']), wait);
    const runningBefore = (await podsOf(c, 'shrink')).filter((p: Json) => p.status.phase === 'Running').map((p: Json) => p.metadata.name);
    await call(c, 'PATCH', `${deploys}/shrink`, { spec: { replicas: 2 } }, 'application/merge-patch+json');
    await vi.waitFor(async () => {
      const items = await podsOf(c, 'shrink');
      expect(items.map((p: Json) => p.metadata.name).sort()).toEqual(runningBefore.sort());
      const d = (await call(c, 'GET', `${deploys}/shrink`)).body;
      expect(d.status).toMatchObject({ observedGeneration: 2, replicas: 2, readyReplicas: 2, availableReplicas: 2 });
      expect(condition(d, 'Available')).toMatchObject({ status: 'True' });
    }, wait);
    await call(c, 'PATCH', `${deploys}/shrink`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'shrink'))).toEqual(['Running']), wait);
  });

  it('rolls a changed template out to a new ReplicaSet and scales the old one to 0', async () => {
    const c = await start();
    await call(c, 'POST', deploys, deployment('roll', 2));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'roll'))).toEqual(['Running', 'Running']), wait);
    const [oldRs] = (await call(c, 'GET', replicaSets)).body.items;
    await call(
      c,
      'PATCH',
      `${deploys}/roll`,
      { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } } },
      'application/strategic-merge-patch+json',
    );
    await vi.waitFor(async () => {
      const rsList = (await call(c, 'GET', replicaSets)).body.items;
      expect(rsList).toHaveLength(2);
      const fresh = rsList.find((r: Json) => r.metadata.uid !== oldRs.metadata.uid);
      const old = rsList.find((r: Json) => r.metadata.uid === oldRs.metadata.uid);
      expect(fresh.metadata.name).not.toBe(oldRs.metadata.name);
      expect(fresh.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
      expect(old.spec.replicas).toBe(0);
      const items = await podsOf(c, 'roll');
      expect(phases(items)).toEqual(['Running', 'Running']);
      for (const p of items) {
        expect(p.spec.containers[0].image).toBe('registry.k8s.io/pause:3.10');
        expect(p.metadata.labels['pod-template-hash']).toBe(fresh.metadata.labels['pod-template-hash']);
      }
      const d = (await call(c, 'GET', `${deploys}/roll`)).body;
      expect(d.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
      expect(d.status).toMatchObject({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 });
      expect(condition(d, 'Progressing')).toMatchObject({
        reason: 'NewReplicaSetAvailable',
        message: `ReplicaSet "${fresh.metadata.name}" has successfully progressed.`,
      });
    }, wait);
  });

  it.each(['Background', 'Foreground'])(
    'removes the ReplicaSets and pods of a Deployment deleted with %s propagation',
    async (propagationPolicy) => {
      const c = await start();
      await call(c, 'POST', deploys, deployment('gone', 2));
      await vi.waitFor(async () => expect(phases(await podsOf(c, 'gone'))).toEqual(['Running', 'Running']), wait);
      const del = await call(c, 'DELETE', `${deploys}/gone`, { propagationPolicy });
      expect(del.status).toBeLessThan(300);
      await vi.waitFor(async () => {
        expect((await call(c, 'GET', `${deploys}/gone`)).status).toBe(404);
        expect((await call(c, 'GET', replicaSets)).body.items).toEqual([]);
        expect(await podsOf(c, 'gone')).toEqual([]);
      }, wait);
    },
  );

  it('lets a watch see the Deployment status progress to Available', async () => {
    const c = await start(1);
    const w = await watch(c, `${deploys}?watch=true&fieldSelector=metadata.name%3Dseen`);
    closers.push(w.close);
    await call(c, 'POST', deploys, deployment('seen', 2));
    await vi.waitFor(() => {
      const modified = w.events.filter((e) => e.type === 'MODIFIED');
      expect(modified.some((e) => e.object.status?.readyReplicas === 1 && condition(e.object, 'Available')?.status === 'False')).toBe(true);
    }, wait);
    c.setPodCapacity(Infinity);
    await vi.waitFor(() => {
      const last = w.events.at(-1);
      expect(last.type).toBe('MODIFIED');
      expect(last.object.status).toMatchObject({ readyReplicas: 2, availableReplicas: 2 });
      expect(condition(last.object, 'Available')).toMatchObject({ status: 'True' });
    }, wait);
    const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
    expect(new Set(rvs).size).toBe(rvs.length);
  });

  it('changes the pod capacity through the control endpoint', async () => {
    const c = await start();
    expect((await call(c, 'POST', '/kube-sim/faults', { podCapacity: 0 })).status).toBeLessThan(300);
    expect(c.podCapacity).toBe(0);
    await call(c, 'POST', deploys, deployment('ctl', 1));
    await vi.waitFor(async () => {
      const [p] = await podsOf(c, 'ctl');
      expect(condition(p, 'PodScheduled')).toMatchObject({ status: 'False', message: '0/2 nodes are available: 2 Too many pods.' });
    }, wait);
    expect((await call(c, 'POST', '/kube-sim/faults', { podCapacity: null })).status).toBeLessThan(300);
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'ctl'))).toEqual(['Running']), wait);
    expect((await call(c, 'POST', '/kube-sim/faults', { podCapacity: -2 })).status).toBe(400);
  });

  it('adopts the orphaned ReplicaSet of a Deployment recreated after an Orphan delete', async () => {
    const c = await start();
    await call(c, 'POST', deploys, deployment('again', 2));
    await vi.waitFor(async () => expect(phases(await podsOf(c, 'again'))).toEqual(['Running', 'Running']), wait);
    const before = (await podsOf(c, 'again')).map((p: Json) => p.metadata.uid).sort();
    await call(c, 'DELETE', `${deploys}/again`, { propagationPolicy: 'Orphan' });
    await vi.waitFor(async () => expect((await call(c, 'GET', replicaSets)).body.items[0].metadata.ownerReferences).toBeUndefined(), wait);
    const created = (await call(c, 'POST', deploys, deployment('again', 2))).body;
    await vi.waitFor(async () => {
      const [set] = (await call(c, 'GET', replicaSets)).body.items;
      expect(set.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: created.metadata.uid, controller: true })]);
      const d = (await call(c, 'GET', `${deploys}/again`)).body;
      expect(d.status).toMatchObject({ replicas: 2, availableReplicas: 2 });
    }, wait);
    expect((await podsOf(c, 'again')).map((p: Json) => p.metadata.uid).sort()).toEqual(before);
  });

  it('refuses an invalid pod capacity', async () => {
    await expect(startCluster({ name: 'bad', podCapacity: -1 })).rejects.toThrow(/podCapacity/);
    const c = await start();
    expect(c.podCapacity).toBe(Infinity);
    expect(() => c.setPodCapacity(1.5)).toThrow(/capacity/);
  });
});
