import type { IncomingMessage, ServerResponse } from 'node:http';
import { anonymous, type Identity } from '../auth/identity.js';
import { forbiddenMessage, type RbacAuthorizer, type RequestAttributes } from '../auth/rbac-authorizer.js';
import type { TokenAuthenticator } from '../auth/token-authenticator.js';
import { aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions } from '../discovery/discovery.js';
import { openApiV2Document, openApiV2Protobuf, openApiV2ProtobufAccept, openApiV2ProtobufType } from '../openapi/openapi.js';
import { applyPatch } from '../patch/apply-patch.js';
import { trackApply } from '../patch/managed-fields.js';
import { groupVersion } from '../resources/resource-def.js';
import type { ResourceRegistry } from '../resources/resource-registry.js';
import type { DeleteOptions, RestOps, Scope, WriteOptions } from '../resources/rest-ops.js';
import type { ScaleHandler } from '../resources/scale.js';
import { buildTable, type IncludeObject } from '../table/table.js';
import { isObject, type JsonObject, type KObject } from '../util/json.js';
import { type MediaRange, mediaType, parseAccept, parseBody, readBody, sendJson, sendStatus } from './http-util.js';
import { typedJson } from './object-json.js';
import { StatusError, badRequest, invalid, methodNotAllowed, notFound, pathNotFound } from '../util/status-error.js';
import { serveWatch } from './watch-stream.js';

/** Extra endpoints plugged into the handler by the cluster. */
export interface HandlerExtensions {
  /** `/openapi/...` documents; undefined → 404. */
  openapi(path: string, query: URLSearchParams): JsonObject | undefined;
  /** `POST /kube-sim/faults`. */
  /** Applies a fault request; a returned function runs once the response has been sent (a fault that cuts connections must not cut its own reply). */
  faults(body: unknown): (() => void) | undefined;
  /** `POST serviceaccounts/<name>/token`. */
  tokenRequest(namespace: string, name: string, body: unknown): JsonObject;
  /** Sub-resources served by a handler of their own (scale). */
  scale: ScaleHandler;
}

/** What an {@link ApiHandler} serves from: the cluster's storage, authentication and authorization, and extras. */
export interface ApiHandlerParts {
  readonly ops: RestOps;
  readonly registry: ResourceRegistry;
  readonly authn: TokenAuthenticator;
  readonly authz: RbacAuthorizer;
  readonly ext: HandlerExtensions;
  readonly info: {
    version: VersionInfo;
    serverAddress: () => string;
    bookmarkIntervalMs: number;
    watchClosers: Set<() => void>;
    /** Plain-HTTP clusters: no Authorization header = admin (see route()). */
    anonymousIsAdmin: boolean;
  };
}

/** Version information served at /version. */
interface VersionInfo {
  gitVersion: string;
}

interface ResourceRoute {
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
  legacyWatch: boolean;
}

/** One HTTP request on its way through the handler: who sent it, where to, and what it accepts. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly identity: Identity;
  /** The path, without a trailing slash. */
  readonly path: string;
  /** The HTTP method, upper case. */
  readonly method: string;
  readonly query: URLSearchParams;
  readonly accept: MediaRange[];
}

/** A resource request once resolved and authorized: what the handler of each verb works with. */
interface ResourceCall {
  readonly x: Exchange;
  readonly route: ResourceRoute;
  readonly scope: Scope;
  readonly sub: string | undefined;
  /** `group/version` (or `version` for the core group) of the served version. */
  readonly gv: string;
  /** The Table the client asked for, if any. */
  readonly table: TableRequest | undefined;
  readonly writeOpts: WriteOptions;
}

/** A PATCH of one object, as {@link ApiHandler.patch} takes it. */
interface PatchRequest {
  readonly name: string;
  /** The patch media type, e.g. `application/merge-patch+json`. */
  readonly contentType: string;
  readonly patch: unknown;
  readonly sub: string | undefined;
  readonly opts: WriteOptions;
  /** Server-side apply's force; default false. */
  readonly force?: boolean;
}

type TableRequest = { version: string; include: IncludeObject };

const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * The HTTP front of one simulated cluster: authentication, authorization, routing of
 * non-resource paths (version, health, discovery, OpenAPI) and of the REST resource paths.
 */
export class ApiHandler {
  private readonly ops: RestOps;
  private readonly registry: ResourceRegistry;
  private readonly authn: TokenAuthenticator;
  private readonly authz: RbacAuthorizer;
  private readonly ext: HandlerExtensions;
  private readonly info: ApiHandlerParts['info'];

  constructor(parts: ApiHandlerParts) {
    ({ ops: this.ops, registry: this.registry, authn: this.authn, authz: this.authz, ext: this.ext, info: this.info } = parts);
  }

  /** Handles one request; never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (e) {
      const err =
        e instanceof StatusError
          ? e
          : new StatusError(500, 'InternalError', `Internal error occurred: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) sendStatus(res, err);
      else res.end();
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let path = url.pathname;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    const method = (req.method ?? 'GET').toUpperCase();
    // A request without credentials is system:anonymous, as with kube-apiserver's default
    // --anonymous-auth=true: health and /version answer, anything else is a 403. But kubectl
    // (client-go) never sends credentials to an http:// server, so a plain-HTTP cluster treats
    // such a request as the admin, like the legacy insecure port of kube-apiserver did. A wrong
    // or revoked token is a 401 either way.
    let identity: Identity | undefined;
    if (req.headers.authorization === undefined)
      identity = this.info.anonymousIsAdmin ? this.authn.authenticate(`Bearer ${this.authn.adminToken}`) : anonymous;
    else identity = this.authn.authenticate(req.headers.authorization);
    if (identity === undefined) throw new StatusError(401, 'Unauthorized', 'Unauthorized');
    identity = impersonate(identity, req.headers);
    const segs = pathSegments(path);
    const exchange: Exchange = { req, res, identity, path, method, query: url.searchParams, accept: parseAccept(req.headers.accept) };
    return this.routeSegments(exchange, segs);
  }

  private async routeSegments(x: Exchange, segs: string[]): Promise<void> {
    if (segs[0] !== 'api' && segs[0] !== 'apis') return this.nonResource(x);
    if (segs[0] === 'api' && segs.length === 1) return this.discovery(x, () => apiVersions(this.info.serverAddress()), true);
    if (segs[0] === 'apis' && segs.length === 1) return this.discovery(x, () => apiGroupList(this.registry), false);
    if (segs[0] === 'apis' && segs.length === 2) return this.discovery(x, () => apiGroup(this.registry, segs[1]!));
    const isCore = segs[0] === 'api';
    const group = isCore ? '' : segs[1]!;
    const version = isCore ? segs[1]! : segs[2]!;
    const rest = segs.slice(isCore ? 2 : 3);
    if (rest.length === 0) return this.discovery(x, () => apiResourceList(this.registry, group, version));
    const route = parseRest(group, version, rest);
    if (route === undefined) throw pathNotFound();
    return this.resource(x, route);
  }

  private authorizeNonResource(identity: Identity, path: string, method: string): void {
    const verb = method === 'GET' || method === 'HEAD' ? 'get' : method.toLowerCase();
    const attrs = nonResourceAttributes(verb, path);
    if (!this.authz.authorize(identity, attrs)) throw new StatusError(403, 'Forbidden', forbiddenMessage(identity, attrs), {});
  }

  private discovery(x: Exchange, build: () => JsonObject | undefined, aggregatedCore?: boolean): void {
    this.authorizeNonResource(x.identity, x.path, x.method);
    if (x.method !== 'GET') throw methodNotAllowed();
    if (aggregatedCore !== undefined) {
      for (const r of x.accept) {
        if (
          r.params['as'] === 'APIGroupDiscoveryList' &&
          r.params['g'] === 'apidiscovery.k8s.io' &&
          (r.params['v'] === 'v2' || r.params['v'] === 'v2beta1')
        ) {
          const v = r.params['v'];
          const doc = aggregatedDiscovery(this.registry, aggregatedCore, `apidiscovery.k8s.io/${v}`);
          sendJson(x.res, 200, doc, {
            'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`,
            Vary: 'Accept',
          });
          return;
        }
        if (acceptsJson(r)) break;
      }
    }
    const doc = build();
    if (doc === undefined) throw pathNotFound();
    sendJson(x.res, 200, doc, aggregatedCore !== undefined ? { Vary: 'Accept' } : {});
  }

  private async nonResource(x: Exchange): Promise<void> {
    const { res, path, method } = x;
    if (path === '/kube-sim/faults') return this.faults(x);
    this.authorizeNonResource(x.identity, path, method);
    if (path === '/version') {
      if (method !== 'GET') throw methodNotAllowed();
      sendJson(res, 200, versionDoc(this.info.version.gitVersion));
      return;
    }
    if (/^\/(healthz|readyz|livez)(\/.*)?$/.test(path)) {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end(x.query.has('verbose') ? `[+]ping ok\n[+]etcd ok\n${path.slice(1)} check passed\n` : 'ok');
      return;
    }
    if (path === '/openapi/v2') return this.openApiV2(x);
    if (path.startsWith('/openapi/')) {
      if (method !== 'GET') throw methodNotAllowed();
      const doc = this.ext.openapi(path, x.query);
      if (doc === undefined) throw pathNotFound();
      sendJson(res, 200, doc);
      return;
    }
    throw pathNotFound();
  }

  /** `POST /kube-sim/faults`, for the admin only. */
  private async faults(x: Exchange): Promise<void> {
    if (!x.identity.admin)
      throw new StatusError(403, 'Forbidden', forbiddenMessage(x.identity, nonResourceAttributes('create', x.path)), {});
    if (x.method !== 'POST') throw methodNotAllowed();
    const body = parseBody(await readBody(x.req), 'application/json');
    const afterResponse = this.ext.faults(body);
    if (afterResponse !== undefined) x.res.once('finish', afterResponse);
    sendJson(x.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });
  }

  /** `/openapi/v2` as protobuf or JSON, whichever the Accept header names first. */
  private openApiV2(x: Exchange): void {
    if (x.method !== 'GET') throw methodNotAllowed();
    for (const r of x.accept) {
      if (r.type === openApiV2ProtobufAccept || r.type === openApiV2ProtobufType) {
        const body = openApiV2Protobuf(this.info.version.gitVersion);
        x.res.writeHead(200, {
          'Content-Type': openApiV2ProtobufType,
          'Cache-Control': 'no-cache, private',
          'Content-Length': body.length,
        });
        x.res.end(body);
        return;
      }
      if (acceptsJson(r)) {
        sendJson(x.res, 200, openApiV2Document(this.info.version.gitVersion));
        return;
      }
    }
    throw new StatusError(
      406,
      'NotAcceptable',
      'only the following media types are accepted: application/json, ' + openApiV2ProtobufType,
      {},
    );
  }

  /** A REST resource request: resolved and authorized, then served by the handler of its verb. */
  private async resource(x: Exchange, route: ResourceRoute): Promise<void> {
    const { scope, verb } = this.authorizeResource(x, route);
    if (scope.def.virtual === true) {
      if (verb !== 'create' || route.name !== undefined) throw methodNotAllowed();
      sendJson(x.res, 201, this.review(scope.def.kind, x.identity, await this.body(x.req)));
      return;
    }
    const sub = route.subresource;
    const writeOpts = writeOptions(x.query, x.req.headers['user-agent']);
    if (sub === 'status' || sub === 'scale') writeOpts.managerSubresource = sub;
    if (scope.def.builtin && scope.def.group === 'rbac.authorization.k8s.io') writeOpts.admit = this.escalationCheck(x.identity);
    const call: ResourceCall = {
      x,
      route,
      scope,
      sub,
      gv: groupVersion(scope.def.group, scope.version.name),
      table: tableRequest(x.accept, x.query),
      writeOpts,
    };
    switch (verb) {
      case 'get':
        return this.getOne(call);
      case 'list':
        return this.list(call);
      case 'watch':
        return this.watch(call);
      case 'create':
        return this.create(call);
      case 'update':
        return this.update(call);
      case 'patch':
        return this.patchOne(call);
      case 'delete':
        return this.deleteOne(call);
      case 'deletecollection':
        return this.deleteCollection(call);
      default:
        throw methodNotAllowed();
    }
  }

  /** Refuses a write of an RBAC object that grants more than `identity` holds (RbacAuthorizer.escalationRefusal). */
  private escalationCheck(identity: Identity): NonNullable<WriteOptions['admit']> {
    return (scope, obj) => {
      const refusal = this.authz.escalationRefusal(identity, scope.def.resource, obj);
      if (refusal === undefined) return;
      throw new StatusError(403, 'Forbidden', refusal, {
        name: obj.metadata.name ?? '',
        group: scope.def.group,
        kind: scope.def.resource,
      });
    };
  }

  /**
   * Resolves the route to a resource and verb, and refuses what the caller may not do or the
   * resource does not serve (404, 405, 403, 406, in kube-apiserver's order).
   */
  private authorizeResource(x: Exchange, route: ResourceRoute): { scope: Scope; verb: string } {
    const resolved = this.registry.resolve(route.group, route.version, route.resource);
    if (resolved === undefined) throw pathNotFound();
    const { def, version } = resolved;
    if (route.namespace !== undefined && !def.namespaced) throw pathNotFound();
    const sub = route.subresource;
    if (sub !== undefined) {
      const known =
        (sub === 'status' && version.status) || (sub === 'scale' && version.scale !== undefined) || def.extraSubresources.includes(sub);
      if (!known || route.name === undefined) throw pathNotFound();
    }
    const scope: Scope = { def, version, namespace: def.namespaced ? (route.namespace ?? '') : '' };
    const isWatch = route.legacyWatch || x.query.get('watch') === 'true' || x.query.get('watch') === '1';
    const verb = verbFor(x.method, route.name, isWatch, sub);
    if (verb === undefined) throw methodNotAllowed();
    if (route.legacyWatch && verb !== 'watch') throw methodNotAllowed();
    this.authorizeResourceVerb(x.identity, scope, { route, verb });
    if (sub === undefined && !def.verbs.includes(verb)) throw methodNotAllowed();
    // Collections without a namespace segment are only readable (list/watch across namespaces).
    if (def.namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') {
      // `/api/v1/configmaps` serves only list/watch; named paths without a namespace do not exist.
      if (route.name === undefined) throw methodNotAllowed();
      throw pathNotFound();
    }
    if (!acceptable(x.accept))
      throw new StatusError(406, 'NotAcceptable', `only the following media types are accepted: application/json, application/yaml`, {});
    return { scope, verb };
  }

  private authorizeResourceVerb(identity: Identity, scope: Scope, request: { route: ResourceRoute; verb: string }): void {
    const { def } = scope;
    const { route, verb } = request;
    // kube-apiserver's RequestInfo reads /api/v1/namespaces/<name> as a request in namespace
    // <name>: RoleBindings there apply, and denials say "in the namespace".
    const isNamespace = def.builtin && def.group === '' && def.resource === 'namespaces';
    const attrs: RequestAttributes = {
      verb,
      resourceRequest: true,
      path: '',
      apiGroup: def.group,
      resource: def.resource,
      subresource: route.subresource ?? '',
      name: route.name ?? '',
      namespace: isNamespace ? (route.name ?? '') : scope.namespace,
    };
    if (this.authz.authorize(identity, attrs)) return;
    throw new StatusError(403, 'Forbidden', forbiddenMessage(identity, attrs), {
      ...(attrs.name !== '' ? { name: attrs.name } : {}),
      ...(def.group !== '' ? { group: def.group } : {}),
      kind: def.resource,
    });
  }

  /** Sends one object: as a Table when one was asked for, else as JSON with its type meta; warnings as Warning headers. */
  private sendObject(call: ResourceCall, code: number, result: { object: KObject; warnings?: string[] }): void {
    const { object: obj, warnings = [] } = result;
    const { def, version } = call.scope;
    const headers: Record<string, string> = {};
    if (warnings.length > 0) headers['Warning'] = warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ');
    if (call.table === undefined) {
      sendJson(call.x.res, code, undefined, headers, typedJson(def.kind, call.gv, obj));
      return;
    }
    const table = buildTable(def, version, [obj], {
      tableVersion: call.table.version,
      include: call.table.include,
      withColumns: true,
      resourceVersion: obj.metadata.resourceVersion ?? '',
      withTypeMeta: (o) => this.ops.withTypeMeta(call.scope, o),
    });
    sendJson(call.x.res, code, table, headers);
  }

  private getOne(call: ResourceCall): void {
    const { res, accept } = call.x;
    const name = call.route.name!;
    if (call.sub === 'scale') {
      sendJson(res, 200, this.ext.scale.get(call.scope, name));
      return;
    }
    const obj = this.ops.get(call.scope, name);
    if (partialMetadata(accept)) {
      sendJson(res, 200, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata });
      return;
    }
    this.sendObject(call, 200, { object: obj });
  }

  private list(call: ResourceCall): void {
    const { res, query, accept } = call.x;
    const { scope, gv } = call;
    const { def, version } = scope;
    const limitRaw = query.get('limit');
    const limit = limitRaw === null || limitRaw === '' ? undefined : Number(limitRaw);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw badRequest(`invalid limit: ${limitRaw ?? ''}`);
    const result = this.ops.list(scope, {
      ...selectorOptions(query),
      ...(limit !== undefined ? { limit } : {}),
      ...(query.get('continue') !== null ? { continue: query.get('continue')! } : {}),
    });
    const paging = {
      ...(result.continue !== undefined ? { continue: result.continue } : {}),
      ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
    };
    if (call.table !== undefined) {
      const table = buildTable(def, version, result.items, {
        tableVersion: call.table.version,
        include: call.table.include,
        withColumns: true,
        resourceVersion: result.resourceVersion,
        ...paging,
        withTypeMeta: (o) => this.ops.withTypeMeta(scope, o),
      });
      sendJson(res, 200, table);
      return;
    }
    const meta: JsonObject = { resourceVersion: result.resourceVersion, ...paging };
    if (partialMetadata(accept)) {
      sendJson(res, 200, {
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: meta,
        items: result.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata })),
      });
      return;
    }
    // Built-in lists omit kind/apiVersion on items (as the typed server encodes them); custom resources keep them.
    const items = result.items.map((o) => (def.builtin ? JSON.stringify(o) : typedJson(def.kind, gv, o)));
    const raw = `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(gv)},"metadata":${JSON.stringify(meta)},"items":[${items.join(',')}]}`;
    sendJson(res, 200, undefined, {}, raw);
  }

  private watch(call: ResourceCall): void {
    const { res, query } = call.x;
    const { def } = call.scope;
    const name = call.route.name;
    const fs = query.get('fieldSelector') ?? '';
    const fieldSelector = name !== undefined ? [fs, `metadata.name=${name}`].filter((x) => x !== '').join(',') : fs;
    const selectors = this.ops.parseSelectors(def, query.get('labelSelector') ?? undefined, fieldSelector);
    const ts = query.get('timeoutSeconds');
    serveWatch(this.ops, res, {
      scope: call.scope,
      namespace: def.namespaced ? (call.route.namespace ?? '') : '',
      selectors,
      resourceVersion: query.get('resourceVersion') ?? undefined,
      timeoutSeconds: ts === null ? undefined : Number(ts),
      bookmarks: query.get('allowWatchBookmarks') === 'true',
      sendInitialEvents: query.get('sendInitialEvents') === 'true',
      bookmarkIntervalMs: this.info.bookmarkIntervalMs,
      table: call.table,
      onClose: (close) => {
        this.info.watchClosers.add(close);
        res.on('close', () => this.info.watchClosers.delete(close));
      },
    });
  }

  private async create(call: ResourceCall): Promise<void> {
    const body = await this.body(call.x.req);
    if (call.sub === 'token') {
      sendJson(call.x.res, 201, this.ext.tokenRequest(call.scope.namespace, call.route.name!, body));
      return;
    }
    if (call.sub !== undefined) throw methodNotAllowed();
    this.sendObject(call, 201, this.ops.create(call.scope, body, call.writeOpts));
  }

  private async update(call: ResourceCall): Promise<void> {
    const body = await this.body(call.x.req);
    const name = call.route.name!;
    if (call.sub === 'scale') {
      sendJson(call.x.res, 200, this.ext.scale.update(call.scope, name, body, call.writeOpts));
      return;
    }
    if (call.sub === 'finalize') {
      this.sendObject(call, 200, { object: this.finalize(call.scope, name, body) });
      return;
    }
    this.sendObject(call, 200, this.ops.update(call.scope, name, body, call.writeOpts, call.sub === 'status' ? 'status' : undefined));
  }

  private async patchOne(call: ResourceCall): Promise<void> {
    const { req, res, query } = call.x;
    const { scope, sub } = call;
    const name = call.route.name!;
    const ct = mediaType(req.headers['content-type']);
    const raw = await readBody(req);
    if (!patchTypes.includes(ct)) throw unsupportedPatch(scope.def.builtin);
    if (ct === 'application/strategic-merge-patch+json' && !scope.def.builtin) throw unsupportedPatch(false);
    const patch = parseBody(raw, ct);
    if (sub === 'scale') {
      const patched = applyPatch(ct, this.ext.scale.get(scope, name), patch, true);
      sendJson(res, 200, this.ext.scale.update(scope, name, patched, call.writeOpts));
      return;
    }
    if (ct === 'application/apply-patch+yaml') {
      const manager = query.get('fieldManager');
      if (manager === null || manager === '') throw fieldManagerRequired();
    }
    const r = this.patch(scope, { name, contentType: ct, patch, sub, opts: call.writeOpts, force: query.get('force') === 'true' });
    this.sendObject(call, r.created ? 201 : 200, r);
  }

  private async deleteOne(call: ResourceCall): Promise<void> {
    const { def } = call.scope;
    const name = call.route.name!;
    const opts = deleteOptions(call.x.query, await this.body(call.x.req));
    const r = this.ops.delete(call.scope, name, opts);
    if (r.deleted !== true) {
      this.sendObject(call, 200, { object: r.object });
      return;
    }
    const details: JsonObject = { name };
    if (def.group !== '') details['group'] = def.group;
    details['kind'] = def.resource;
    details['uid'] = r.object.metadata.uid ?? '';
    sendJson(call.x.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
  }

  private async deleteCollection(call: ResourceCall): Promise<void> {
    const { scope, gv } = call;
    const opts = deleteOptions(call.x.query, await this.body(call.x.req));
    const list = this.ops.list(scope, selectorOptions(call.x.query));
    const items: string[] = [];
    for (const o of list.items) {
      try {
        const r = this.ops.delete({ ...scope, namespace: o.metadata.namespace ?? '' }, o.metadata.name ?? '', opts);
        items.push(typedJson(scope.def.kind, gv, r.object));
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    const raw = `{"kind":${JSON.stringify(scope.def.listKind)},"apiVersion":${JSON.stringify(gv)},"metadata":{"resourceVersion":"${this.ops.store.currentRv}"},"items":[${items.join(',')}]}`;
    sendJson(call.x.res, 200, undefined, {}, raw);
  }

  /** The answer to a create of a virtual review resource (`kind`). */
  private review(kind: string, identity: Identity, body: unknown): JsonObject {
    const b = isObject(body) ? body : {};
    const spec = isObject(b['spec']) ? b['spec'] : {};
    if (kind === 'TokenReview') return this.tokenReview(spec);
    if (kind !== 'SubjectAccessReview') return this.accessReview(identity, body);
    // SubjectAccessReview: the subject is spec.user and spec.groups, not the caller.
    const user = typeof spec['user'] === 'string' ? spec['user'] : '';
    const groups = Array.isArray(spec['groups']) ? spec['groups'].filter((g): g is string => typeof g === 'string') : [];
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
    const subject: Identity = {
      user,
      groups,
      admin: groups.includes('system:masters'),
      ...(sa === null ? {} : { serviceAccount: { namespace: sa[1]!, name: sa[2]! } }),
    };
    return { ...this.accessReview(subject, body, 'SubjectAccessReview'), kind: 'SubjectAccessReview' };
  }

  /** TokenReview: who is the bearer of `spec.token` (as the authenticator of every request says)? */
  private tokenReview(spec: JsonObject): JsonObject {
    const token = typeof spec['token'] === 'string' ? spec['token'] : '';
    const who = token === '' ? undefined : this.authn.authenticate(`Bearer ${token}`);
    const status: JsonObject =
      who === undefined
        ? { user: {}, error: token === '' ? 'token is required' : 'invalid bearer token' }
        : {
            authenticated: true,
            user: { username: who.user, groups: who.groups },
            audiences: ['https://kubernetes.default.svc.cluster.local'],
          };
    return { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status };
  }

  /** SelfSubjectAccessReview (or, with `kind`, another access review of `identity`): may it do what `spec` describes? */
  private accessReview(identity: Identity, body: unknown, kind = 'SelfSubjectAccessReview'): JsonObject {
    const b = isObject(body) ? body : {};
    const spec = isObject(b['spec']) ? b['spec'] : {};
    const ra = isObject(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
    const nra = isObject(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : undefined;
    const s = (v: unknown): string => (typeof v === 'string' ? v : '');
    let attrs: RequestAttributes;
    if (ra !== undefined)
      attrs = {
        verb: s(ra['verb']),
        resourceRequest: true,
        path: '',
        apiGroup: s(ra['group']),
        resource: s(ra['resource']),
        subresource: s(ra['subresource']),
        name: s(ra['name']),
        namespace: s(ra['namespace']),
      };
    else if (nra !== undefined)
      attrs = {
        verb: s(nra['verb']),
        resourceRequest: false,
        path: s(nra['path']),
        apiGroup: '',
        resource: '',
        subresource: '',
        name: '',
        namespace: '',
      };
    else
      throw new StatusError(
        422,
        'Invalid',
        `${kind}.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`,
        {
          group: 'authorization.k8s.io',
          kind,
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
              field: 'spec.resourceAttributes',
            },
          ],
        },
      );
    const allowed = this.authz.authorize(identity, attrs);
    const status: JsonObject = { allowed };
    if (allowed) status['reason'] = identity.admin ? '' : 'RBAC: allowed by a role binding';
    return { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status };
  }

  private async body(req: IncomingMessage): Promise<unknown> {
    const ct = mediaType(req.headers['content-type']);
    return parseBody(await readBody(req), ct);
  }

  private finalize(scope: Scope, name: string, body: unknown): KObject {
    const existing = this.ops.get(scope, name);
    const spec = isObject(body) && isObject(body['spec']) ? body['spec'] : {};
    const finalizers = Array.isArray(spec['finalizers']) ? spec['finalizers'].filter((f): f is string => typeof f === 'string') : [];
    return this.ops.finalizeNamespace(existing.metadata.name ?? name, finalizers) ?? existing;
  }

  /** PATCH of every type; server-side apply creates when absent and tracks field ownership (managed-fields.ts). */
  patch(scope: Scope, request: PatchRequest): { object: KObject; warnings: string[]; created: boolean } {
    const { name, contentType, patch, sub, opts, force = false } = request;
    const grKey = this.ops.grKey(scope.def);
    const existing = this.ops.store.get(grKey, scope.def.namespaced ? scope.namespace : '', name);
    const isApply = contentType === 'application/apply-patch+yaml';
    // An apply records its own managedFields entry; RestOps records the Update of other patches.
    const applyOpts: WriteOptions = { ...opts };
    delete applyOpts.fieldManager;
    const ctx = { ...this.ops.managerContext(scope, opts), force };
    if (existing === undefined) {
      if (!isApply || sub !== undefined) throw notFound(scope.def, name);
      if (!isObject(patch)) throw badRequest('apply patch must be an object');
      const meta = isObject(patch['metadata']) ? patch['metadata'] : {};
      if (meta['name'] !== undefined && meta['name'] !== name)
        throw badRequest(`the name of the object (${JSON.stringify(meta['name'])}) does not match the name on the URL (${name})`);
      const body = { ...patch, metadata: { ...meta, name } } as KObject;
      const tracked = trackApply(undefined, body, patch, ctx);
      const r = this.ops.create(scope, tracked, applyOpts);
      return { ...r, created: true };
    }
    const current = this.ops.withTypeMeta(scope, structuredClone(existing));
    let patched = applyPatch(contentType, current, patch, scope.def.builtin);
    if (!isObject(patched)) throw badRequest('the patch did not result in an object');
    if (isApply) {
      if (!isObject(patched['metadata'])) patched['metadata'] = {};
      patched = trackApply(existing, patched as KObject, patch, ctx);
    }
    const incoming = this.ops.checkTypeMeta(scope, patched);
    // A patch carries no preconditions: a changed uid fails metadata validation instead (the real
    // server reports the cause twice).
    const uid = incoming.metadata.uid;
    if (uid !== undefined && uid !== existing.metadata.uid) {
      const cause = {
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(uid)}: field is immutable`,
        field: 'metadata.uid',
      };
      throw invalid(scope.def.kind, scope.def.group, name, [cause, cause]);
    }
    const r = this.ops.updateFrom(scope, existing, incoming, isApply ? applyOpts : opts, sub === 'status' ? 'status' : undefined);
    return { ...r, created: false };
  }
}

/**
 * `Impersonate-User` / `Impersonate-Group` headers: honoured for the admin (who may impersonate),
 * refused with 403 for everyone else.
 */
function impersonate(identity: Identity, headers: IncomingMessage['headers']): Identity {
  const user = headers['impersonate-user'];
  if (typeof user !== 'string' || user === '') return identity;
  if (!identity.admin)
    throw new StatusError(
      403,
      'Forbidden',
      `users "${user}" is forbidden: User "${identity.user}" cannot impersonate resource "users" in API group "" at the cluster scope`,
      {
        name: user,
        kind: 'users',
      },
    );
  const raw = headers['impersonate-group'];
  const groups = (Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [])
    .flatMap((g) => g.split(','))
    .map((g) => g.trim())
    .filter((g) => g !== '');
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  const all = new Set(groups);
  if (sa !== null) {
    all.add('system:serviceaccounts');
    all.add(`system:serviceaccounts:${sa[1]!}`);
  }
  all.add('system:authenticated');
  const result: Identity = { user, groups: [...all], admin: all.has('system:masters') };
  if (sa !== null) result.serviceAccount = { namespace: sa[1]!, name: sa[2]! };
  return result;
}

function unsupportedPatch(builtin: boolean): StatusError {
  const accepted = builtin ? patchTypes : patchTypes.filter((p) => p !== 'application/strategic-merge-patch+json');
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    {},
  );
}

function parseRest(group: string, version: string, input: string[]): ResourceRoute | undefined {
  let rest = input;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  const any = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    if (rest.length > 5) return undefined;
    return { group, version, namespace: rest[1]!, resource: rest[2]!, name: any(rest[3]), subresource: any(rest[4]), legacyWatch };
  }
  if (rest.length > 3 || rest.length === 0) return undefined;
  return { group, version, namespace: undefined, resource: rest[0]!, name: any(rest[1]), subresource: any(rest[2]), legacyWatch };
}

function verbFor(method: string, name: string | undefined, watch: boolean, sub: string | undefined): string | undefined {
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch) return 'watch';
      return name === undefined ? 'list' : 'get';
    case 'POST':
      if (sub === 'token') return 'create';
      return name === undefined ? 'create' : undefined;
    case 'PUT':
      return name === undefined ? undefined : 'update';
    case 'PATCH':
      return name === undefined ? undefined : 'patch';
    case 'DELETE':
      if (sub !== undefined) return undefined;
      return name === undefined ? 'deletecollection' : 'delete';
    default:
      return undefined;
  }
}

function acceptsJson(r: MediaRange): boolean {
  return r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*' || r.type === 'application/yaml';
}

function acceptable(accept: MediaRange[]): boolean {
  return accept.some(acceptsJson);
}

function tableRequest(accept: MediaRange[], query: URLSearchParams): TableRequest | undefined {
  for (const r of accept) {
    if (r.params['as'] === 'Table' && r.params['g'] === 'meta.k8s.io' && (r.params['v'] === 'v1' || r.params['v'] === 'v1beta1')) {
      const inc = query.get('includeObject');
      const include: IncludeObject = inc === 'None' || inc === 'Object' ? inc : 'Metadata';
      return { version: r.params['v'], include };
    }
    if (r.params['as'] === undefined && acceptsJson(r)) return undefined;
  }
  return undefined;
}

function partialMetadata(accept: MediaRange[]): boolean {
  const first = accept[0];
  return first !== undefined && (first.params['as'] === 'PartialObjectMetadata' || first.params['as'] === 'PartialObjectMetadataList');
}

/**
 * Options of a write from its query: dryRun, fieldValidation, and the field manager (the
 * fieldManager parameter, else the product name of the User-Agent, as kube-apiserver derives it).
 */
function writeOptions(query: URLSearchParams, userAgent: string | undefined): WriteOptions {
  const opts: WriteOptions = {};
  const dry = query.getAll('dryRun');
  if (dry.length > 0) {
    if (dry.some((d) => d !== 'All')) throw badRequest(`Invalid value: ${JSON.stringify(dry)}: supported values: "All"`);
    opts.dryRun = true;
  }
  const fv = query.get('fieldValidation');
  if (fv !== null && fv !== '') {
    if (fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore')
      throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`);
    opts.fieldValidation = fv;
  }
  const fm = query.get('fieldManager');
  const product = (userAgent ?? '').split('/')[0]!;
  opts.fieldManager = fm !== null && fm !== '' ? fm : product !== '' ? product : 'unknown';
  return opts;
}

function deleteOptions(query: URLSearchParams, body: unknown): DeleteOptions {
  const opts: DeleteOptions = {};
  const b = isObject(body) ? body : {};
  const pp = query.get('propagationPolicy') ?? (typeof b['propagationPolicy'] === 'string' ? b['propagationPolicy'] : undefined);
  if (pp !== undefined && pp !== null) {
    if (pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground')
      throw badRequest(`propagationPolicy: Unsupported value: "${pp}": supported values: "Foreground", "Background", "Orphan", "nil"`);
    opts.propagationPolicy = pp;
  } else {
    const orphan = query.get('orphanDependents') ?? (typeof b['orphanDependents'] === 'boolean' ? String(b['orphanDependents']) : null);
    if (orphan === 'true') opts.propagationPolicy = 'Orphan';
    if (orphan === 'false') opts.propagationPolicy = 'Background';
  }
  const dry = [...query.getAll('dryRun'), ...(Array.isArray(b['dryRun']) ? b['dryRun'].map(String) : [])];
  if (dry.length > 0) {
    if (dry.some((d) => d !== 'All')) throw badRequest(`Invalid value: ${JSON.stringify(dry)}: supported values: "All"`);
    opts.dryRun = true;
  }
  if (isObject(b['preconditions'])) {
    const p = b['preconditions'];
    opts.preconditions = {
      ...(typeof p['uid'] === 'string' ? { uid: p['uid'] } : {}),
      ...(typeof p['resourceVersion'] === 'string' ? { resourceVersion: p['resourceVersion'] } : {}),
    };
  }
  return opts;
}

function versionDoc(gitVersion: string): JsonObject {
  const m = /^v(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: m?.[1] ?? '1',
    minor: m?.[2] ?? '31',
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2024-08-13T07:28:49Z',
    goVersion: 'go1.22.5',
    compiler: 'gc',
    platform: `${process.platform === 'win32' ? 'windows' : process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** The decoded segments of `path` (clients escape `:` in names such as RBAC's `system:foo`). */
function pathSegments(path: string): string[] {
  try {
    return path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  } catch {
    throw new StatusError(400, 'BadRequest', `malformed path: ${path}`);
  }
}

function nonResourceAttributes(verb: string, path: string): RequestAttributes {
  return { verb, resourceRequest: false, path, apiGroup: '', resource: '', subresource: '', name: '', namespace: '' };
}

/** The labelSelector and fieldSelector of a list or deletecollection. */
function selectorOptions(query: URLSearchParams): { labelSelector?: string; fieldSelector?: string } {
  const labelSelector = query.get('labelSelector');
  const fieldSelector = query.get('fieldSelector');
  return { ...(labelSelector !== null ? { labelSelector } : {}), ...(fieldSelector !== null ? { fieldSelector } : {}) };
}

function fieldManagerRequired(): StatusError {
  return new StatusError(
    422,
    'Invalid',
    'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    {
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
    },
  );
}
