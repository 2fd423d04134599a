import type { ObjectStore } from '../store/object-store.js';
import { isObject, type KObject } from '../util/json.js';
import type { Identity } from './identity.js';

/** What a request wants to do (the authorizer's input, as kube-apiserver's RequestInfo). */
export interface RequestAttributes {
  verb: string;
  resourceRequest: boolean;
  /** Non-resource requests: the URL path. */
  path: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
}

/** Paths (and what lies below them) every authenticated user may GET: the default ClusterRole system:discovery. */
const discoveryPaths = ['/api', '/apis', '/version', '/healthz', '/livez', '/readyz', '/openapi'];
/** Paths anyone may GET, anonymous requests too: the default ClusterRole system:public-info-viewer. */
const publicInfoPaths = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

const rbacGroup = 'rbac.authorization.k8s.io';

/**
 * RBAC authorization over the stored Roles, ClusterRoles and their bindings. The admin identity
 * (system:masters) may do everything; discovery, version and health are open to every
 * authenticated user, version and health to anonymous requests too (the default ClusterRoles
 * system:discovery and system:public-info-viewer). Role aggregation is not implemented.
 */
export class RbacAuthorizer {
  constructor(private readonly store: ObjectStore) {}

  /** True when allowed. */
  authorize(identity: Identity, attrs: RequestAttributes): boolean {
    if (identity.admin || identity.groups.includes('system:masters')) return true;
    if (!attrs.resourceRequest && attrs.verb === 'get' && publicInfoPaths.includes(attrs.path)) return true;
    const authenticated = identity.groups.includes('system:authenticated');
    if (
      authenticated &&
      !attrs.resourceRequest &&
      attrs.verb === 'get' &&
      discoveryPaths.some((p) => attrs.path === p || attrs.path.startsWith(`${p}/`))
    )
      return true;
    // system:basic-user: every authenticated user may review its own access.
    if (
      authenticated &&
      attrs.resourceRequest &&
      attrs.verb === 'create' &&
      attrs.apiGroup === 'authorization.k8s.io' &&
      attrs.resource === 'selfsubjectaccessreviews'
    )
      return true;
    for (const b of this.store.list(`${rbacGroup}/clusterrolebindings`)) {
      if (!subjectMatches(b, identity, '')) continue;
      const role = this.roleFor(b, '');
      if (role !== undefined && rulesAllow(role, attrs)) return true;
    }
    if (attrs.namespace !== '') {
      for (const b of this.store.list(`${rbacGroup}/rolebindings`, attrs.namespace)) {
        if (!subjectMatches(b, identity, attrs.namespace)) continue;
        const role = this.roleFor(b, attrs.namespace);
        if (role !== undefined && rulesAllow(role, attrs)) return true;
      }
    }
    return false;
  }

  /**
   * kube-apiserver's RBAC privilege escalation prevention for a create or update of a Role,
   * ClusterRole, RoleBinding or ClusterRoleBinding (`resource`) by `identity`
   * (pkg/registry/rbac/clusterrole/policybased/storage.go and its siblings): a role's rules must be held already unless the
   * writer may `escalate` that role; a binding's role must be held already unless the writer may
   * `bind` it (in the binding's namespace). system:masters is exempt. Returns kube-apiserver's
   * Forbidden message, or undefined when allowed. A binding to a role that does not exist is
   * refused unless `bind` is allowed (kube-apiserver: NotFound; here a refusal as well).
   */
  escalationRefusal(identity: Identity, resource: string, obj: KObject): string | undefined {
    if (identity.admin || identity.groups.includes('system:masters')) return undefined;
    const name = obj.metadata.name ?? '';
    const namespace = obj.metadata.namespace ?? '';
    const allowed = (verb: string, res: string, resName: string): boolean =>
      this.authorize(identity, { ...noPath, verb, apiGroup: rbacGroup, resource: res, name: resName, namespace });
    let rules: unknown;
    if (resource === 'clusterroles' || resource === 'roles') {
      if (allowed('escalate', resource, name)) return undefined;
      rules = obj['rules'];
    } else if (resource === 'clusterrolebindings' || resource === 'rolebindings') {
      const ref = obj['roleRef'];
      const refKind = isObject(ref) ? ref['kind'] : undefined;
      const refName = isObject(ref) && typeof ref['name'] === 'string' ? ref['name'] : '';
      if (allowed('bind', refKind === 'Role' ? 'roles' : 'clusterroles', refName)) return undefined;
      rules = this.roleFor(obj, namespace)?.['rules'];
      if (rules === undefined)
        return `${resource}.${rbacGroup} "${name}" is forbidden: ${refKind === 'Role' ? 'role' : 'clusterrole'} "${refName}" not found`;
    } else {
      return undefined;
    }
    const missing = (Array.isArray(rules) ? rules : [])
      .flatMap((r) => (isObject(r) ? atomicRules(r) : []))
      .filter((attrs) => !this.authorize(identity, { ...attrs, namespace }));
    if (missing.length === 0) return undefined;
    return `${resource}.${rbacGroup} "${name}" is forbidden: user "${identity.user}" (groups=${JSON.stringify(identity.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.map(describeAtomic).join('\n')}`;
  }

  private roleFor(binding: KObject, namespace: string): KObject | undefined {
    const ref = binding['roleRef'];
    if (!isObject(ref) || typeof ref['name'] !== 'string') return undefined;
    if (ref['kind'] === 'ClusterRole') return this.store.get(`${rbacGroup}/clusterroles`, '', ref['name']);
    if (ref['kind'] === 'Role' && namespace !== '') return this.store.get(`${rbacGroup}/roles`, namespace, ref['name']);
    return undefined;
  }
}

function subjectMatches(binding: KObject, identity: Identity, bindingNamespace: string): boolean {
  const subjects = binding['subjects'];
  if (!Array.isArray(subjects)) return false;
  for (const s of subjects) {
    if (!isObject(s)) continue;
    const name = s['name'];
    switch (s['kind']) {
      case 'ServiceAccount': {
        const ns = typeof s['namespace'] === 'string' && s['namespace'] !== '' ? s['namespace'] : bindingNamespace;
        if (identity.serviceAccount !== undefined && identity.serviceAccount.name === name && identity.serviceAccount.namespace === ns)
          return true;
        break;
      }
      case 'User':
        if (identity.user === name) return true;
        break;
      case 'Group':
        if (typeof name === 'string' && identity.groups.includes(name)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

function rulesAllow(role: KObject, attrs: RequestAttributes): boolean {
  const rules = role['rules'];
  if (!Array.isArray(rules)) return false;
  return rules.some((r) => isObject(r) && ruleAllows(r, attrs));
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** One PolicyRule against request attributes (exported for unit tests). */
export function ruleAllows(rule: Record<string, unknown>, attrs: RequestAttributes): boolean {
  const verbs = strings(rule['verbs']);
  if (!verbs.includes('*') && !verbs.includes(attrs.verb)) return false;
  if (!attrs.resourceRequest) {
    return strings(rule['nonResourceURLs']).some(
      (u) => u === '*' || u === attrs.path || (u.endsWith('*') && attrs.path.startsWith(u.slice(0, -1))),
    );
  }
  const groups = strings(rule['apiGroups']);
  if (!groups.includes('*') && !groups.includes(attrs.apiGroup)) return false;
  const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const resources = strings(rule['resources']);
  const resourceOk = resources.some(
    (r) =>
      r === '*' ||
      r === combined ||
      (attrs.subresource !== '' && r === `*/${attrs.subresource}`) ||
      (r === `${attrs.resource}/*` && attrs.subresource !== ''),
  );
  if (!resourceOk) return false;
  const names = strings(rule['resourceNames']);
  if (names.length > 0 && !names.includes(attrs.name)) return false;
  return true;
}

const noPath = { resourceRequest: true, path: '', subresource: '' } as const;

/**
 * A rule broken into one request per verb, group, resource and name (kube-apiserver's
 * validation.BreakdownRule): each must be allowed for the rule to be held. A wildcard in the
 * rule stays literal, so only a wildcard grant holds it.
 */
function atomicRules(rule: Record<string, unknown>): Omit<RequestAttributes, 'namespace'>[] {
  const out: Omit<RequestAttributes, 'namespace'>[] = [];
  const verbs = strings(rule['verbs']);
  for (const verb of verbs) {
    for (const path of strings(rule['nonResourceURLs']))
      out.push({ verb, resourceRequest: false, path, apiGroup: '', resource: '', subresource: '', name: '' });
    for (const apiGroup of strings(rule['apiGroups']))
      for (const combined of strings(rule['resources'])) {
        const [resource = '', subresource = ''] = combined.split('/', 2);
        const names = strings(rule['resourceNames']);
        for (const name of names.length === 0 ? [''] : names)
          out.push({ verb, resourceRequest: true, path: '', apiGroup, resource, subresource, name });
      }
  }
  return out;
}

function describeAtomic(a: Omit<RequestAttributes, 'namespace'>): string {
  if (!a.resourceRequest) return `{NonResourceURLs:[${JSON.stringify(a.path)}], Verbs:[${JSON.stringify(a.verb)}]}`;
  const res = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const names = a.name === '' ? '' : `, ResourceNames:[${JSON.stringify(a.name)}]`;
  return `{APIGroups:[${JSON.stringify(a.apiGroup)}], Resources:[${JSON.stringify(res)}]${names}, Verbs:[${JSON.stringify(a.verb)}]}`;
}

/** The Forbidden message of kube-apiserver for a denied request. */
export function forbiddenMessage(identity: Identity, attrs: RequestAttributes): string {
  if (!attrs.resourceRequest) return `forbidden: User "${identity.user}" cannot ${attrs.verb} path "${attrs.path}"`;
  const res = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const qualified = attrs.apiGroup === '' ? attrs.resource : `${attrs.resource}.${attrs.apiGroup}`;
  const subject = attrs.name === '' ? qualified : `${qualified} "${attrs.name}"`;
  const where = attrs.namespace === '' ? 'at the cluster scope' : `in the namespace "${attrs.namespace}"`;
  return `${subject} is forbidden: User "${identity.user}" cannot ${attrs.verb} resource "${res}" in API group "${attrs.apiGroup}" ${where}`;
}
