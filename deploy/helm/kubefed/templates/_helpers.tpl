{{/* The scope of the control plane: Cluster (default) or Namespaced; anything else fails the render. */}}
{{- define "kubefed.scope" -}}
{{- $scope := .Values.global.scope | default "Cluster" -}}
{{- if not (has $scope (list "Cluster" "Namespaced")) -}}
{{- fail (printf "global.scope: must be Cluster or Namespaced, not %q" $scope) -}}
{{- end -}}
{{- $scope -}}
{{- end -}}

{{/* Name of a cluster-scoped RBAC object: shared in Cluster scope, per namespace in Namespaced scope (several Namespaced planes can share a host). */}}
{{- define "kubefed.clusterRbacName" -}}
{{- if eq (include "kubefed.scope" .root) "Namespaced" -}}
{{ .name }}:{{ .root.Release.Namespace }}
{{- else -}}
{{ .name }}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "kubefed.labels" -}}
app.kubernetes.io/part-of: kubefed
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/*
Whether component values name KubeFed's own image (`quay.io/kubernetes-multicluster/kubefed`, the
default of KubeFed's chart): a Go binary that cannot run this chart's arguments, so the chart runs
its own image instead (and says so in NOTES.txt).
*/}}
{{- define "kubefed.isKubeFedImage" -}}
{{- if and (eq (.repository | default "" | toString | trimSuffix "/") "quay.io/kubernetes-multicluster") (eq (.image | default "" | toString) "kubefed") -}}true{{- end -}}
{{- end -}}

{{/*
Image of a component: `<repository>/<image>:<tag>`, falling back to the controller's and the
chart's appVersion. Values naming KubeFed's image count as unset.
*/}}
{{- define "kubefed.image" -}}
{{- $cm := .root.Values.controllermanager -}}
{{- $controller := $cm.controller -}}
{{- if include "kubefed.isKubeFedImage" $controller -}}{{- $controller = dict -}}{{- end -}}
{{- $c := .component -}}
{{- if include "kubefed.isKubeFedImage" $c -}}{{- $c = dict -}}{{- end -}}
{{- $repository := $c.repository | default $controller.repository -}}
{{- $image := $c.image | default $controller.image | default "kubefed-controller-manager" -}}
{{- $tag := $c.tag | default $controller.tag | default .root.Chart.AppVersion -}}
{{- if $repository -}}{{ $repository }}/{{- end -}}{{ $image }}:{{ $tag }}
{{- end -}}

{{/*
The logging flag of a component's `logLevel`: a level name (trace, debug, info, warn, error,
fatal, silent) is `--log-level`; a number, as KubeFed's chart gives it (klog's `--v`), is `--v`.
Anything else fails the render.
*/}}
{{- define "kubefed.logFlag" -}}
{{- $level := .level -}}
{{- if or (kindIs "invalid" $level) (eq (toString $level) "") -}}
--log-level=info
{{- else if or (kindIs "float64" $level) (kindIs "int" $level) (kindIs "int64" $level) -}}
{{- if or (lt (float64 $level) 0.0) (ne (float64 $level) (float64 (int64 $level))) -}}
{{- fail (printf "controllermanager.%s.logLevel: a klog verbosity must be a whole number 0 or more, not %v" .component $level) -}}
{{- end -}}
--v={{ int64 $level }}
{{- else if regexMatch "^[0-9]+$" (toString $level) -}}
--v={{ $level }}
{{- else if has (toString $level) (list "trace" "debug" "info" "warn" "error" "fatal" "silent") -}}
--log-level={{ $level }}
{{- else -}}
{{- fail (printf "controllermanager.%s.logLevel: must be trace, debug, info, warn, error, fatal, silent or a klog verbosity number (KubeFed's 0-10), not %q" .component (toString $level)) -}}
{{- end -}}
{{- end -}}

{{/*
KubeFed chart values that have no meaning here, one line each for those given (KubeFed's own
values file gives them all); NOTES.txt prints them.
*/}}
{{- define "kubefed.ignoredKubeFedValues" -}}
{{- $cm := .Values.controllermanager -}}
{{- if $cm.webhook }}
- controllermanager.webhook.*: there is no admission webhook; the CRDs' schemas and CEL rules validate at admission. Ignored.
{{- end }}
{{- if $cm.certManager }}
- controllermanager.certManager.*: no webhook, so no certificate to issue. Ignored.
{{- end }}
{{- if $cm.postInstallJob }}
- controllermanager.postInstallJob.*: no post-install job; the KubeFedConfig carries the feature gates. Ignored.
{{- end }}
{{- range $name, $c := dict "controller" $cm.controller "syncWorker" $cm.syncWorker }}
{{- if include "kubefed.isKubeFedImage" $c }}
- controllermanager.{{ $name }}.repository/image/tag name KubeFed's image ({{ $c.repository }}/{{ $c.image }}:{{ $c.tag }}), which cannot run this controller manager; running {{ include "kubefed.image" (dict "root" $ "component" $c) }} instead.
{{- end }}
{{- end }}
{{- end -}}

{{/* Checks KubeFed's values that this chart refuses; renders nothing. */}}
{{- define "kubefed.validateKubeFedValues" -}}
{{- $cm := .Values.controllermanager -}}
{{- if and (hasKey $cm "enabled") (not $cm.enabled) -}}
{{- fail "controllermanager.enabled: false would install no controller manager; this chart is the control plane (install the CRDs alone with kubectl apply -f deploy/crds/)" -}}
{{- end -}}
{{- if and $cm.certManager $cm.certManager.enabled -}}
{{- fail "controllermanager.certManager.enabled: this chart runs no admission webhook (the CRDs' schemas and CEL rules validate at admission), so cert-manager has no certificate to issue; remove it" -}}
{{- end -}}
{{- end -}}

{{/* The bundled Redis's image: `image`, pinned as `image@digest` when `imageDigest` is set (a malformed one fails the render). */}}
{{- define "kubefed.redisImage" -}}
{{- if .imageDigest -}}
{{- if not (regexMatch "^sha256:[0-9a-f]{64}$" .imageDigest) -}}
{{- fail (printf "redis.bundled.imageDigest: must be sha256:<64 lowercase hex digits>, not %q" .imageDigest) -}}
{{- end -}}
{{ .image }}@{{ .imageDigest }}
{{- else -}}
{{ .image }}
{{- end -}}
{{- end -}}

{{/* The Secret and key of the bundled Redis's password. */}}
{{- define "kubefed.bundledRedisSecret" -}}
{{- .Values.redis.bundled.existingSecret | default "kubefed-redis-password" -}}
{{- end -}}

{{/* Checks the Redis values; renders nothing. */}}
{{- define "kubefed.validateRedis" -}}
{{- if not .Values.redis.bundled.enabled -}}
{{- $url := .Values.redis.external.url -}}
{{- if not $url -}}
{{- fail "redis.external.url: required when redis.bundled.enabled is false (e.g. rediss://redis.example.com:6380)" -}}
{{- end -}}
{{- $parsed := urlParse $url -}}
{{- if not (has $parsed.scheme (list "redis" "rediss" "redis+sentinel" "rediss+sentinel" "redis+cluster" "rediss+cluster")) -}}
{{- fail (printf "redis.external.url: scheme must be redis, rediss, redis+sentinel, rediss+sentinel, redis+cluster or rediss+cluster, not %q" $parsed.scheme) -}}
{{- end -}}
{{- if and .Values.redis.external.passwordSecret.name (contains ":" ($parsed.userinfo | default "")) -}}
{{- fail "redis.external.url: carries a password while redis.external.passwordSecret.name is set; leave the password out of the URL" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* REDIS_URL, with $(REDIS_PASSWORD) where the password goes (the kubelet expands it from the env var before it). */}}
{{- define "kubefed.redisUrl" -}}
{{- if .Values.redis.bundled.enabled -}}
redis://:$(REDIS_PASSWORD)@kubefed-redis:6379
{{- else -}}
{{- $u := urlParse .Values.redis.external.url -}}
{{- if .Values.redis.external.passwordSecret.name -}}
{{- $user := $u.userinfo | default "" -}}
{{ $u.scheme }}://{{ $user }}:$(REDIS_PASSWORD)@{{ $u.host }}{{ $u.path }}{{ if $u.query }}?{{ $u.query }}{{ end }}
{{- else -}}
{{ .Values.redis.external.url }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The password Secret reference of REDIS_PASSWORD, or nothing. */}}
{{- define "kubefed.redisPasswordRef" -}}
{{- if .Values.redis.bundled.enabled -}}
name: {{ include "kubefed.bundledRedisSecret" . }}
key: password
{{- else if .Values.redis.external.passwordSecret.name -}}
name: {{ .Values.redis.external.passwordSecret.name }}
key: {{ .Values.redis.external.passwordSecret.key | default "password" }}
{{- end -}}
{{- end -}}

{{/*
The pod template of a controller-manager process (the controller manager or the sync workers).
Arguments: root (the chart's context), component (controller or syncWorker values), componentName
(controller or syncWorker, for error messages), role
(controller-manager or sync-worker), mode (controllers or workers), leaderElect (bool), serviceAccount.
*/}}
{{- define "kubefed.processPod" -}}
{{- $root := .root -}}
{{- $cm := $root.Values.controllermanager -}}
{{- $c := .component -}}
metadata:
  labels:
    {{- include "kubefed.labels" $root | nindent 4 }}
    kubefed-control-plane: {{ .role }}
    app.kubernetes.io/name: kubefed-{{ .role }}
    app.kubernetes.io/component: {{ .role }}
  {{- if or $c.forceRedeployment $c.podAnnotations }}
  annotations:
    {{- if $c.forceRedeployment }}
    rollme: {{ randAlphaNum 5 | quote }}
    {{- end }}
    {{- with $c.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
spec:
  serviceAccountName: {{ .serviceAccount }}
  {{- with $cm.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with merge (deepCopy ($c.nodeSelector | default dict)) ($cm.commonNodeSelector | default dict) }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with concat ($cm.commonTolerations | default list) ($c.tolerations | default list) }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  affinity:
    {{- if $c.affinity }}
    {{- toYaml $c.affinity | nindent 4 }}
    {{- else }}
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                kubefed-control-plane: {{ .role }}
    {{- end }}
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    seccompProfile:
      type: RuntimeDefault
  terminationGracePeriodSeconds: 30
  containers:
    - name: {{ .role }}
      image: {{ include "kubefed.image" (dict "root" $root "component" $c) | quote }}
      imagePullPolicy: {{ $c.imagePullPolicy | default "IfNotPresent" }}
      args:
        - --kubefed-namespace=$(POD_NAMESPACE)
        - --mode={{ .mode }}
        - --leader-elect={{ .leaderElect }}
        {{- if .leaderElect }}
        {{- with $cm.leaderElectLeaseDuration }}
        - --leader-elect-lease-duration={{ . }}
        {{- end }}
        {{- with $cm.leaderElectRenewDeadline }}
        - --leader-elect-renew-deadline={{ . }}
        {{- end }}
        {{- with $cm.leaderElectRetryPeriod }}
        - --leader-elect-retry-period={{ . }}
        {{- end }}
        {{- end }}
        - --metrics-addr=:9090
        - --health-addr=:8080
        - {{ include "kubefed.logFlag" (dict "level" $c.logLevel "component" .componentName) }}
        - --log-format=json
        {{- if not $root.Values.redis.bundled.enabled }}
        {{- if $root.Values.redis.external.tls.caSecret.name }}
        - --redis-ca-file=/etc/kubefed/redis-ca/{{ $root.Values.redis.external.tls.caSecret.key | default "ca.crt" }}
        {{- end }}
        {{- if $root.Values.redis.external.tls.clientCertSecret }}
        - --redis-cert-file=/etc/kubefed/redis-client/tls.crt
        - --redis-key-file=/etc/kubefed/redis-client/tls.key
        {{- end }}
        {{- end }}
        {{- range $c.extraArgs }}
        - {{ . | quote }}
        {{- end }}
      env:
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        {{- with include "kubefed.redisPasswordRef" $root }}
        - name: REDIS_PASSWORD
          valueFrom:
            secretKeyRef:
              {{- . | nindent 14 }}
        {{- end }}
        - name: REDIS_URL
          value: {{ include "kubefed.redisUrl" $root | quote }}
        - name: DEFAULT_KUBEFED_SCOPE
          value: {{ include "kubefed.scope" $root }}
        {{- range $name, $value := $c.env }}
        - name: {{ $name | quote }}
          value: {{ $value | toString | quote }}
        {{- end }}
      ports:
        - name: metrics
          containerPort: 9090
          protocol: TCP
        - name: health
          containerPort: 8080
          protocol: TCP
      livenessProbe:
        httpGet:
          path: /healthz
          port: health
        initialDelaySeconds: 10
        periodSeconds: 10
        timeoutSeconds: 3
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /readyz
          port: health
        periodSeconds: 5
        timeoutSeconds: 3
        failureThreshold: 3
      {{- with $c.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities:
          drop: [ALL]
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        {{- if not $root.Values.redis.bundled.enabled }}
        {{- if $root.Values.redis.external.tls.caSecret.name }}
        - name: redis-ca
          mountPath: /etc/kubefed/redis-ca
          readOnly: true
        {{- end }}
        {{- if $root.Values.redis.external.tls.clientCertSecret }}
        - name: redis-client
          mountPath: /etc/kubefed/redis-client
          readOnly: true
        {{- end }}
        {{- end }}
  volumes:
    - name: tmp
      emptyDir: {}
    {{- if not $root.Values.redis.bundled.enabled }}
    {{- with $root.Values.redis.external.tls.caSecret.name }}
    - name: redis-ca
      secret:
        secretName: {{ . }}
    {{- end }}
    {{- with $root.Values.redis.external.tls.clientCertSecret }}
    - name: redis-client
      secret:
        secretName: {{ . }}
    {{- end }}
    {{- end }}
{{- end -}}
