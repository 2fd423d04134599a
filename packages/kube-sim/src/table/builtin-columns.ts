import { isObject, type KObject } from '../util/json.js';
import { evalJsonPath, humanAge } from './cell-values.js';

/** A column of a built-in printer (kube-apiserver's internal printers, the common columns). */
export interface BuiltinColumn {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
  cell(obj: KObject, now: number): unknown;
}

const str = (o: KObject, p: string, dflt = '<none>'): string => {
  const v = evalJsonPath(o, p);
  return v === undefined || v === null || v === '' ? dflt : typeof v === 'string' ? v : JSON.stringify(v);
};
const num = (o: KObject, p: string): number => {
  const v = evalJsonPath(o, p);
  return typeof v === 'number' ? v : 0;
};
const count = (o: KObject, p: string): number => {
  const v = evalJsonPath(o, p);
  if (Array.isArray(v)) return v.length;
  if (isObject(v)) return Object.keys(v).length;
  return 0;
};

const name: BuiltinColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata.name ?? '',
};
const age: BuiltinColumn = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o, now) => humanAge(o.metadata.creationTimestamp, now),
};
const createdAt: BuiltinColumn = {
  name: 'Created At',
  type: 'date',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (o) => o.metadata.creationTimestamp ?? '',
};
const col = (n: string, type: string, cell: BuiltinColumn['cell'], priority = 0): BuiltinColumn => ({
  name: n,
  type,
  description: n,
  priority,
  cell,
});

function servicePorts(o: KObject): string {
  const ports = evalJsonPath(o, '.spec.ports');
  if (!Array.isArray(ports) || ports.length === 0) return '<none>';
  return ports
    .filter(isObject)
    .map(
      (p) =>
        `${JSON.stringify(p['port'])}${typeof p['nodePort'] === 'number' ? `:${p['nodePort']}` : ''}/${typeof p['protocol'] === 'string' ? p['protocol'] : 'TCP'}`,
    )
    .join(',');
}

function selectorString(v: unknown): string {
  if (!isObject(v)) return '<none>';
  const parts = Object.entries(v).map(([k, x]) => `${k}=${typeof x === 'string' ? x : JSON.stringify(x)}`);
  return parts.length === 0 ? '<none>' : parts.join(',');
}

function nodeStatus(o: KObject): string {
  const conds = evalJsonPath(o, '.status.conditions');
  const ready: unknown = Array.isArray(conds) ? (conds as unknown[]).find((c) => isObject(c) && c['type'] === 'Ready') : undefined;
  let s = isObject(ready) && ready['status'] === 'True' ? 'Ready' : isObject(ready) ? 'NotReady' : 'Unknown';
  if (evalJsonPath(o, '.spec.unschedulable') === true) s += ',SchedulingDisabled';
  return s;
}

function nodeRoles(o: KObject): string {
  const labels = o.metadata.labels ?? {};
  const roles = new Set(
    Object.keys(labels)
      .filter((k) => k.startsWith('node-role.kubernetes.io/'))
      .map((k) => k.slice('node-role.kubernetes.io/'.length)),
  );
  // The legacy kubernetes.io/role label counts too (kwok's Nodes carry it).
  const legacy = labels['kubernetes.io/role'];
  if (legacy !== undefined && legacy !== '') roles.add(legacy);
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(o: KObject, type: string): string {
  const addresses = evalJsonPath(o, '.status.addresses');
  const found: unknown = Array.isArray(addresses) ? (addresses as unknown[]).find((a) => isObject(a) && a['type'] === type) : undefined;
  return isObject(found) && typeof found['address'] === 'string' ? found['address'] : '<none>';
}

/** The pod template's containers (workloads) or a pod's own. */
function containers(o: KObject, path: string): Record<string, unknown>[] {
  const list = evalJsonPath(o, path);
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** A LabelSelector as kubectl prints it: `a=b,c in (d,e),!f`. */
function labelSelectorString(v: unknown): string {
  if (!isObject(v)) return '<none>';
  const parts: string[] = [];
  if (isObject(v['matchLabels']))
    for (const [k, x] of Object.entries(v['matchLabels']).sort(([a], [b]) => (a < b ? -1 : 1))) parts.push(`${k}=${String(x)}`);
  if (Array.isArray(v['matchExpressions']))
    for (const e of v['matchExpressions'].filter(isObject)) {
      const key = String(e['key']);
      const values = Array.isArray(e['values']) ? e['values'].map(String).sort().join(',') : '';
      if (e['operator'] === 'In') parts.push(`${key} in (${values})`);
      else if (e['operator'] === 'NotIn') parts.push(`${key} notin (${values})`);
      else if (e['operator'] === 'Exists') parts.push(key);
      else if (e['operator'] === 'DoesNotExist') parts.push(`!${key}`);
    }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

/** The CONTAINERS, IMAGES (and SELECTOR) columns of `-o wide` for a workload. */
function workloadWide(selector: boolean): BuiltinColumn[] {
  const cols = [
    col(
      'Containers',
      'string',
      (o) =>
        containers(o, '.spec.template.spec.containers')
          .map((c) => String(c['name']))
          .join(','),
      1,
    ),
    col(
      'Images',
      'string',
      (o) =>
        containers(o, '.spec.template.spec.containers')
          .map((c) => String(c['image']))
          .join(','),
      1,
    ),
  ];
  if (selector) cols.push(col('Selector', 'string', (o) => labelSelectorString(evalJsonPath(o, '.spec.selector')), 1));
  return cols;
}

/** USERS, GROUPS and SERVICEACCOUNTS of a (Cluster)RoleBinding's `-o wide`. */
function bindingSubjects(kind: string): BuiltinColumn['cell'] {
  return (o) => {
    const subjects = evalJsonPath(o, '.subjects');
    const of = Array.isArray(subjects) ? subjects.filter((x) => isObject(x) && x['kind'] === kind) : [];
    return of
      .filter(isObject)
      .map((x) => {
        const subject = typeof x['name'] === 'string' ? x['name'] : '';
        return kind === 'ServiceAccount' ? `${typeof x['namespace'] === 'string' ? x['namespace'] : ''}/${subject}` : subject;
      })
      .join(', ');
  };
}

function podReady(o: KObject): string {
  const total = count(o, '.spec.containers');
  const statuses = evalJsonPath(o, '.status.containerStatuses');
  const ready = Array.isArray(statuses) ? statuses.filter((s) => isObject(s) && s['ready'] === true).length : 0;
  return `${ready}/${total}`;
}

function jobStatus(o: KObject): string {
  const conds = evalJsonPath(o, '.status.conditions');
  if (Array.isArray(conds)) {
    for (const t of ['Complete', 'Failed', 'Suspended'])
      if (conds.some((c) => isObject(c) && c['type'] === t && c['status'] === 'True')) return t;
  }
  return 'Running';
}

function ingressHosts(o: KObject): string {
  const rules = evalJsonPath(o, '.spec.rules');
  const hosts = Array.isArray(rules) ? rules.filter(isObject).map((r) => (typeof r['host'] === 'string' ? r['host'] : '*')) : [];
  return hosts.length === 0 ? '*' : hosts.join(',');
}

function bindingWide(): BuiltinColumn[] {
  return [
    col('Users', 'string', bindingSubjects('User'), 1),
    col('Groups', 'string', bindingSubjects('Group'), 1),
    col('ServiceAccounts', 'string', bindingSubjects('ServiceAccount'), 1),
  ];
}

const table: Record<string, BuiltinColumn[]> = {
  '/namespaces': [name, col('Status', 'string', (o) => str(o, '.status.phase', 'Active')), age],
  // Column types as kube-apiserver declares them, even where the cells are numbers.
  '/configmaps': [name, col('Data', 'string', (o) => count(o, '.data') + count(o, '.binaryData')), age],
  '/secrets': [name, col('Type', 'string', (o) => str(o, '.type', 'Opaque')), col('Data', 'string', (o) => count(o, '.data')), age],
  '/services': [
    name,
    col('Type', 'string', (o) => str(o, '.spec.type', 'ClusterIP')),
    col('Cluster-IP', 'string', (o) => str(o, '.spec.clusterIP')),
    col('External-IP', 'string', (o) => {
      const ext = evalJsonPath(o, '.spec.externalIPs');
      return Array.isArray(ext) && ext.length > 0 ? ext.join(',') : str(o, '.spec.type') === 'LoadBalancer' ? '<pending>' : '<none>';
    }),
    col('Port(s)', 'string', servicePorts),
    age,
    col('Selector', 'string', (o) => selectorString(evalJsonPath(o, '.spec.selector')), 1),
  ],
  '/serviceaccounts': [name, col('Secrets', 'string', (o) => count(o, '.secrets')), age],
  '/pods': [
    name,
    col('Ready', 'string', podReady),
    col('Status', 'string', (o) => (o.metadata.deletionTimestamp !== undefined ? 'Terminating' : str(o, '.status.phase', 'Pending'))),
    col('Restarts', 'string', () => '0'),
    age,
    col('IP', 'string', (o) => str(o, '.status.podIP'), 1),
    col('Node', 'string', (o) => str(o, '.spec.nodeName'), 1),
    col('Nominated Node', 'string', (o) => str(o, '.status.nominatedNodeName'), 1),
    col(
      'Readiness Gates',
      'string',
      (o) => {
        const gates = evalJsonPath(o, '.spec.readinessGates');
        if (!Array.isArray(gates) || gates.length === 0) return '<none>';
        const conds = evalJsonPath(o, '.status.conditions');
        const ready = gates.filter(
          (g) =>
            isObject(g) &&
            Array.isArray(conds) &&
            conds.some((c) => isObject(c) && c['type'] === g['conditionType'] && c['status'] === 'True'),
        ).length;
        return `${ready}/${gates.length}`;
      },
      1,
    ),
  ],
  '/nodes': [
    name,
    col('Status', 'string', nodeStatus),
    col('Roles', 'string', nodeRoles),
    age,
    col('Version', 'string', (o) => str(o, '.status.nodeInfo.kubeletVersion', '')),
    col('Internal-IP', 'string', (o) => nodeAddress(o, 'InternalIP'), 1),
    col('External-IP', 'string', (o) => nodeAddress(o, 'ExternalIP'), 1),
    col('OS-Image', 'string', (o) => str(o, '.status.nodeInfo.osImage', '<unknown>'), 1),
    col('Kernel-Version', 'string', (o) => str(o, '.status.nodeInfo.kernelVersion', '<unknown>'), 1),
    col('Container-Runtime', 'string', (o) => str(o, '.status.nodeInfo.containerRuntimeVersion', '<unknown>'), 1),
  ],
  '/events': [
    col('Last Seen', 'string', (o, now) =>
      humanAge(str(o, '.lastTimestamp', '') || str(o, '.eventTime', '') || o.metadata.creationTimestamp, now),
    ),
    col('Type', 'string', (o) => str(o, '.type', '')),
    col('Reason', 'string', (o) => str(o, '.reason', '')),
    col('Object', 'string', (o) => `${str(o, '.involvedObject.kind', '').toLowerCase()}/${str(o, '.involvedObject.name', '')}`),
    col('Subobject', 'string', (o) => str(o, '.involvedObject.fieldPath', ''), 1),
    col('Source', 'string', (o) => [str(o, '.source.component', ''), str(o, '.source.host', '')].filter((x) => x !== '').join(', '), 1),
    col('Message', 'string', (o) => str(o, '.message', '')),
    col(
      'First Seen',
      'string',
      (o, now) => humanAge(str(o, '.firstTimestamp', '') || str(o, '.eventTime', '') || o.metadata.creationTimestamp, now),
      1,
    ),
    col('Count', 'string', (o) => (typeof evalJsonPath(o, '.count') === 'number' ? num(o, '.count') : 1), 1),
    { ...name, priority: 1 },
  ],
  'apps/deployments': [
    name,
    col('Ready', 'string', (o) => `${num(o, '.status.readyReplicas')}/${num(o, '.spec.replicas')}`),
    col('Up-to-date', 'string', (o) => num(o, '.status.updatedReplicas')),
    col('Available', 'string', (o) => num(o, '.status.availableReplicas')),
    age,
    ...workloadWide(true),
  ],
  'apps/replicasets': [
    name,
    col('Desired', 'integer', (o) => num(o, '.spec.replicas')),
    col('Current', 'integer', (o) => num(o, '.status.replicas')),
    col('Ready', 'integer', (o) => num(o, '.status.readyReplicas')),
    age,
    ...workloadWide(true),
  ],
  'apps/statefulsets': [
    name,
    col('Ready', 'string', (o) => `${num(o, '.status.readyReplicas')}/${num(o, '.spec.replicas')}`),
    age,
    ...workloadWide(false),
  ],
  'apps/daemonsets': [
    name,
    col('Desired', 'integer', (o) => num(o, '.status.desiredNumberScheduled')),
    col('Current', 'integer', (o) => num(o, '.status.currentNumberScheduled')),
    col('Ready', 'integer', (o) => num(o, '.status.numberReady')),
    col('Up-to-date', 'integer', (o) => num(o, '.status.updatedNumberScheduled')),
    col('Available', 'integer', (o) => num(o, '.status.numberAvailable')),
    col('Node Selector', 'string', (o) => selectorString(evalJsonPath(o, '.spec.template.spec.nodeSelector'))),
    age,
    ...workloadWide(true),
  ],
  'batch/jobs': [
    name,
    col('Status', 'string', jobStatus),
    col(
      'Completions',
      'string',
      (o) => `${num(o, '.status.succeeded')}/${evalJsonPath(o, '.spec.completions') === undefined ? 1 : num(o, '.spec.completions')}`,
    ),
    col('Duration', 'string', (o, now) => humanAge(str(o, '.status.startTime', '') || undefined, now)),
    age,
    ...workloadWide(true),
  ],
  'networking.k8s.io/ingresses': [
    name,
    col('Class', 'string', (o) => str(o, '.spec.ingressClassName')),
    col('Hosts', 'string', ingressHosts),
    col('Address', 'string', (o) => {
      const lb = evalJsonPath(o, '.status.loadBalancer.ingress');
      return Array.isArray(lb) && lb.length > 0
        ? lb
            .filter(isObject)
            .map((x) => (typeof x['ip'] === 'string' ? x['ip'] : typeof x['hostname'] === 'string' ? x['hostname'] : ''))
            .join(',')
        : '';
    }),
    col('Ports', 'string', (o) => (count(o, '.spec.tls') > 0 ? '80, 443' : '80')),
    age,
  ],
  'rbac.authorization.k8s.io/roles': [name, createdAt],
  'rbac.authorization.k8s.io/clusterroles': [name, createdAt],
  'rbac.authorization.k8s.io/rolebindings': [
    name,
    col('Role', 'string', (o) => `${str(o, '.roleRef.kind', '')}/${str(o, '.roleRef.name', '')}`),
    age,
    ...bindingWide(),
  ],
  'rbac.authorization.k8s.io/clusterrolebindings': [
    name,
    col('Role', 'string', (o) => `${str(o, '.roleRef.kind', '')}/${str(o, '.roleRef.name', '')}`),
    age,
    ...bindingWide(),
  ],
  'coordination.k8s.io/leases': [name, col('Holder', 'string', (o) => str(o, '.spec.holderIdentity', '')), age],
  'apiextensions.k8s.io/customresourcedefinitions': [name, createdAt],
};

/** The printer columns of a built-in resource (by group/resource key), or undefined. */
export function builtinColumns(grKey: string): BuiltinColumn[] | undefined {
  return table[grKey];
}
