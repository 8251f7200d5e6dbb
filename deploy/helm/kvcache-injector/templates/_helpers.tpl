{{/* Chart name, truncated to 63 characters. */}}
{{- define "kvcache-injector.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's objects. */}}
{{- define "kvcache-injector.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "kvcache-injector.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kvcache-injector.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "kvcache-injector.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kvcache-injector.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "kvcache-injector.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kvcache-injector.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "kvcache-injector.tlsSecretName" -}}
{{- printf "%s-tls" (include "kvcache-injector.fullname" .) }}
{{- end }}

{{- define "kvcache-injector.certificateName" -}}
{{- printf "%s-serving-cert" (include "kvcache-injector.fullname" .) }}
{{- end }}

{{/* Namespaces no webhook sees: the release's own (a failing webhook must not block its own Pods) and kube-system. */}}
{{- define "kvcache-injector.excludedNamespaces" -}}
{{- $ns := list .Release.Namespace "kube-system" }}
{{- range .Values.webhook.excludedNamespaces }}{{- $ns = append $ns . }}{{- end }}
{{- toJson (uniq $ns) }}
{{- end }}

{{/* Whether the CacheBlend contract is served; failClosed without it would leave CacheBlend Pods unseen, not refused. */}}
{{- define "kvcache-injector.cacheBlendEnabled" -}}
{{- if and (not .Values.cacheBlend.contract.enabled) .Values.cacheBlend.contract.failClosed }}
{{- fail "cacheBlend.contract.failClosed needs cacheBlend.contract.enabled: with cacheBlend.contract.enabled=false no webhook sees CacheBlend Pods, so none could be refused; drop one of the two" }}
{{- end }}
{{- if .Values.cacheBlend.contract.enabled }}true{{ end }}
{{- end }}

{{- define "kvcache-injector.timeoutSeconds" -}}
{{- $t := int .Values.webhook.timeoutSeconds }}
{{- if or (lt $t 1) (gt $t 30) }}
{{- fail (printf "webhook.timeoutSeconds must be between 1 and 30 (the API server's limits), got %v" .Values.webhook.timeoutSeconds) }}
{{- end }}
{{- $t }}
{{- end }}

{{/*
Where the freeze runs: "policy" (a ValidatingAdmissionPolicy, templates/freeze-policy.yaml) or "webhook" (the
validating webhook on /kvcache/validate). auto picks the policy when the cluster serves its v1 kind: helm install and
upgrade see the cluster's kinds; helm template sees none unless given --api-versions
admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy, and then renders the webhook.
*/}}
{{- define "kvcache-injector.freezeMode" -}}
{{- $mode := .Values.freeze.mode }}
{{- if eq $mode "auto" }}
{{- ternary "policy" "webhook" (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") }}
{{- else }}
{{- $mode }}
{{- end }}
{{- end }}

{{/*
settings.namespace must exist: the chart creates a Role and RoleBinding there. Checked only when the cluster was
reached (lookup answers nothing under `helm template` and client-side dry runs: then kube-system is not found either),
and not for the release namespace, which --create-namespace creates after the templates are rendered.
*/}}
{{- define "kvcache-injector.checkSettingsNamespace" -}}
{{- $ns := .Values.settings.namespace }}
{{- if and (ne $ns .Release.Namespace) (lookup "v1" "Namespace" "" "kube-system") }}
{{- if not (lookup "v1" "Namespace" "" $ns) }}
{{- fail (printf "settings.namespace %q does not exist on this cluster: the chart creates a Role there to read the Secret gpustack-settings. Create the namespace, or set settings.namespace to an existing one (on a cluster without gpustack, the release namespace: --set settings.namespace=%s). On an upgrade, keep the installed values with --reuse-values." $ns .Release.Namespace) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Replicas; 0 only when the webhooks call a server outside the cluster (webhook.url), or no one would answer them. */}}
{{- define "kvcache-injector.replicas" -}}
{{- $n := int .Values.replicaCount }}
{{- if and (eq $n 0) (not .Values.webhook.url) }}
{{- fail "replicaCount=0 needs webhook.url: without a replica in the cluster the webhooks must call a server outside it, or every opted-in Pod is refused (failurePolicy Fail)" }}
{{- end }}
{{- $n }}
{{- end }}

{{/* The CacheBlendEngine this chart creates (cacheBlend.enabled): its name and namespace. */}}
{{- define "kvcache-injector.cacheBlendName" -}}
{{- .Values.cacheBlend.name | default (printf "%s-cacheblend" (include "kvcache-injector.fullname" .)) }}
{{- end }}

{{- define "kvcache-injector.cacheBlendNamespace" -}}
{{- .Values.cacheBlend.namespace | default .Release.Namespace }}
{{- end }}

{{/* Whether the CacheBlendEngine controller runs (serve --reconcile-cacheblend), with its write RBAC. */}}
{{- define "kvcache-injector.cacheBlendController" -}}
{{- if and (include "kvcache-injector.cacheBlendEnabled" .) .Values.cacheBlend.controller.enabled }}true{{ end }}
{{- end }}

{{/* The CacheBlend allow-list: cacheBlend.contract.allowedNamespaces, plus the namespace of the engine the chart creates. */}}
{{- define "kvcache-injector.cacheBlendAllowed" -}}
{{- $ns := list }}
{{- range .Values.cacheBlend.contract.allowedNamespaces }}{{- $ns = append $ns . }}{{- end }}
{{- if .Values.cacheBlend.enabled }}{{- $ns = append $ns (include "kvcache-injector.cacheBlendNamespace" .) }}{{- end }}
{{- join "," (uniq $ns) }}
{{- end }}

{{/* cacheBlend.enabled (create an engine) needs the contract and a payload image; the message says what moved. */}}
{{- define "kvcache-injector.cacheBlendEngineChecks" -}}
{{- if .Values.cacheBlend.enabled }}
{{- if not .Values.cacheBlend.contract.enabled }}
{{- fail "cacheBlend.enabled=true creates a CacheBlendEngine, which needs the CacheBlend contract and its CRD: set cacheBlend.contract.enabled=true, or drop cacheBlend.enabled (it no longer means serving the contract: that is cacheBlend.contract.enabled)" }}
{{- end }}
{{- if not .Values.cacheBlend.spec.injection.payloadImage.repository }}
{{- fail "cacheBlend.enabled=true creates a CacheBlendEngine, which needs cacheBlend.spec.injection.payloadImage.repository (the cacheblend-plugin image, for example tensormesh/cacheblend-plugin); set it, or drop cacheBlend.enabled (it no longer means serving the contract: that is cacheBlend.contract.enabled)" }}
{{- end }}
{{- end }}
{{- end }}
