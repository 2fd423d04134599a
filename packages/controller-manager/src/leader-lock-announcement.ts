import { API_VERSIONS, KINDS, KUBEFED_CONFIG_NAME, RESOURCES } from '@kubefed/api';
import type { DynamicClient, KubeObject } from '@kubefed/client';
import {
  describeLock,
  untilAborted,
  type EventSink,
  type Logger,
  type ResourceLock,
  type ResourceLockType,
  type Runnable,
} from '@kubefed/runtime';

/** Reason of the events about leadership: client-go's (resourcelock `RecordEvent`). */
const LEADER_ELECTION_REASON = 'LeaderElection';

/** `source.component` of those events: KubeFed's leader-election event source. */
const COMPONENT = 'kubefed-controller-manager';

/** Options of {@link leaderLockAnnouncement}. */
export interface LeaderLockAnnouncementOptions {
  readonly lock: ResourceLock;
  /** `spec.leaderElect.resourceLock` the lock was made from. */
  readonly resourceLock: ResourceLockType;
  readonly identity: string;
  /** Reads the KubeFedConfig (for its uid). */
  readonly host: DynamicClient;
  readonly namespace: string;
  readonly events: EventSink;
  readonly logger: Logger;
}

/** The objects a lock keeps its record in (both halves of a MultiLock). */
function lockObjects(lock: ResourceLock, resourceLock: ResourceLockType): KubeObject[] {
  const meta = { name: lock.name, namespace: lock.namespace };
  const lease: KubeObject = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta };
  const configMap: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta };
  const endpoints: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: meta };
  switch (resourceLock) {
    case 'leases':
      return [lease];
    case 'configmaps':
      return [configMap];
    case 'endpoints':
      return [endpoints];
    case 'configmapsleases':
      return [configMap, lease];
    case 'endpointsleases':
      return [endpoints, lease];
  }
}

/**
 * A leader-only runnable that says which lock this process holds, once each time it becomes
 * leader: a log line with the lock's kind, namespace and name; a Normal `LeaderElection` event on
 * the KubeFedConfig `kubefed` naming the lock (KubeFedConfig has no status); and client-go's own
 * event on each lock object (`<identity> became leader`, as resourcelock's RecordEvent writes it),
 * which is where a KubeFed operator looks.
 */
export function leaderLockAnnouncement(o: LeaderLockAnnouncementOptions): Runnable {
  return {
    name: 'leader-lock-announcement',
    start: async (signal) => {
      const { lock } = o;
      o.logger.info(
        { kind: lock.kind, namespace: lock.namespace, name: lock.name, resourceLock: o.resourceLock, identity: o.identity },
        'holding the leader-election lock',
      );
      let config: KubeObject = {
        apiVersion: API_VERSIONS.core,
        kind: KINDS.kubeFedConfig,
        metadata: { name: KUBEFED_CONFIG_NAME, namespace: o.namespace },
      };
      try {
        config = await o.host.resource(RESOURCES.kubeFedConfigs, o.namespace).get(KUBEFED_CONFIG_NAME, { signal });
      } catch {
        // Without its uid the event still names the object (e.g. a --kubefed-config file and no object).
      }
      await o.events.record(config, {
        type: 'Normal',
        reason: LEADER_ELECTION_REASON,
        message: `${o.identity} became leader, holding ${describeLock(lock)} (spec.leaderElect.resourceLock ${o.resourceLock})`,
        component: COMPONENT,
      });
      for (const obj of lockObjects(lock, o.resourceLock)) {
        await o.events.record(obj, {
          type: 'Normal',
          reason: LEADER_ELECTION_REASON,
          message: `${o.identity} became leader`,
          component: COMPONENT,
        });
      }
      await untilAborted(signal);
    },
  };
}
