{{- /* The RBAC rules of rbac.yaml. Each rule says which part of the processes needs it. */ -}}

{{/* Controller manager: federated objects, ReplicaSchedulingPreferences, Events (any namespace in Cluster scope). */}}
{{- define "kubefed.rules.controller-manager.wide" -}}
# Federated types. Any type can be enabled, so every resource of the group: the sync
# controllers list/watch them and add/remove their finalizer (patch), the status writer updates
# <type>/status, the replica scheduling controller gets and updates FederatedDeployments and
# FederatedReplicaSets, placement gets FederatedNamespaces. No create or delete.
- apiGroups: [types.kubefed.io]
  resources: ['*']
  verbs: [get, list, watch, update, patch]
# FederatedServiceStatuses: the status controller of the `services` FTC (when it has a statusType
# and statusCollection Enabled) watches them and creates or updates one per FederatedService. No
# delete: the garbage collector removes them with their FederatedService.
- apiGroups: [core.kubefed.io]
  resources: [federatedservicestatuses]
  verbs: [list, watch, create, update]
# ReplicaSchedulingPreferences: watched, read again when a status write conflicts; only their status is written.
- apiGroups: [scheduling.kubefed.io]
  resources: [replicaschedulingpreferences]
  verbs: [get, list, watch]
- apiGroups: [scheduling.kubefed.io]
  resources: [replicaschedulingpreferences/status]
  verbs: [update]
# Events about KubeFedClusters and federated objects (created, then patched when repeated).
- apiGroups: ['']
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{- define "kubefed.rules.controller-manager.namespaces" -}}
# The UID of kube-system identifies the host cluster (default --queue-prefix).
- apiGroups: ['']
  resources: [namespaces]
  resourceNames: [kube-system]
  verbs: [get]
{{- end -}}

{{/* Controller manager, in the release namespace in every scope. */}}
{{- define "kubefed.rules.controller-manager.namespace" -}}
# KubeFedClusters: watched by the health controller (which writes their status) and listed by
# the replica scheduling controller.
- apiGroups: [core.kubefed.io]
  resources: [kubefedclusters]
  verbs: [list, watch]
- apiGroups: [core.kubefed.io]
  resources: [kubefedclusters/status]
  verbs: [patch]
# The KubeFedConfig `kubefed`: read at start (its scope), watched, created when missing, and
# patched to list every feature gate when it names only some.
- apiGroups: [core.kubefed.io]
  resources: [kubefedconfigs]
  verbs: [get, list, watch, create, patch]
# FederatedTypeConfigs: watched; their finalizer (patch) and status (patch) are written.
- apiGroups: [core.kubefed.io]
  resources: [federatedtypeconfigs]
  verbs: [list, watch, patch]
- apiGroups: [core.kubefed.io]
  resources: [federatedtypeconfigs/status]
  verbs: [patch]
# Leader election on kubefed-controller-manager, in the kind(s) of the KubeFedConfig's
# spec.leaderElect.resourceLock: a Lease, or the leader annotation of a ConfigMap (KubeFed's
# default) or an Endpoints, or both for the multilocks (create cannot be limited by name).
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [create]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [kubefed-controller-manager]
  verbs: [get, update]
- apiGroups: ['']
  resources: [configmaps, endpoints]
  verbs: [create]
- apiGroups: ['']
  resources: [configmaps, endpoints]
  resourceNames: [kubefed-controller-manager]
  verbs: [get, update]
# Member credentials (each KubeFedCluster's spec.secretRef, read by name: no list or watch;
# patched when a short-lived member token is renewed) and the Secret kubefed-sync-outcome-key
# (read, or created by whichever process starts first).
- apiGroups: ['']
  resources: [secrets]
  verbs: [get, create, patch]
{{- end -}}

{{/* Sync workers: federated objects, versions, Events (any namespace in Cluster scope). */}}
{{- define "kubefed.rules.sync-worker.wide" -}}
# Each job reads the current federated object and, for namespaced types, its FederatedNamespace
# (by name: workers run no informers on federated types). Any type can be enabled, hence `*`.
- apiGroups: [types.kubefed.io]
  resources: ['*']
  verbs: [get]
# The versions written to each member ((Cluster)PropagatedVersion of each federated object):
# read (from a watch-fed cache, so an unchanged object costs no host request; a GET until it has
# synced), created, then their status updated; the record itself is updated when the uids of
# the copies written (annotation kubefed.io/member-uids) change.
- apiGroups: [core.kubefed.io]
  resources: [propagatedversions, clusterpropagatedversions]
  verbs: [get, list, watch, create, update]
- apiGroups: [core.kubefed.io]
  resources: [propagatedversions/status, clusterpropagatedversions/status]
  verbs: [update]
# Warning events on federated objects whose member operation failed.
- apiGroups: ['']
  resources: [events]
  verbs: [create, patch]
{{- end -}}

{{- define "kubefed.rules.sync-worker.namespaces" -}}
# kube-system's UID (default --queue-prefix), and, when the host is also a member, the host's
# own Namespace of a FederatedNamespace (unlabelled there instead of deleted).
- apiGroups: ['']
  resources: [namespaces]
  verbs: [get]
{{- end -}}

{{/* Sync workers, in the release namespace in every scope. */}}
{{- define "kubefed.rules.sync-worker.namespace" -}}
# The workers' own informers: member clusters, the KubeFedConfig (also read at start), the
# enabled types.
- apiGroups: [core.kubefed.io]
  resources: [kubefedclusters, federatedtypeconfigs]
  verbs: [list, watch]
- apiGroups: [core.kubefed.io]
  resources: [kubefedconfigs]
  verbs: [get, list, watch]
# Member credentials (by name) and the Secret kubefed-sync-outcome-key (read, or created by
# whichever process starts first).
- apiGroups: ['']
  resources: [secrets]
  verbs: [get, create]
{{- end -}}
