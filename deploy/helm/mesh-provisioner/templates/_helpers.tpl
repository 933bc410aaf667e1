{{/* The chart's name, or nameOverride. */}}
{{- define "mesh-provisioner.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The objects' base name: fullnameOverride, else the release's name when it
already holds the chart's name, else both (63 characters at most: a DNS label).
*/}}
{{- define "mesh-provisioner.fullname" -}}
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

{{/* A name derived from the base name with a suffix, kept within 63 characters. */}}
{{- define "mesh-provisioner.suffixed" -}}
{{- $base := include "mesh-provisioner.fullname" .root | trunc (int (sub 62 (len .suffix))) | trimSuffix "-" }}
{{- printf "%s-%s" $base .suffix }}
{{- end }}

{{/* The chart label: name-version. */}}
{{- define "mesh-provisioner.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels every object of the release carries. */}}
{{- define "mesh-provisioner.commonLabels" -}}
helm.sh/chart: {{ include "mesh-provisioner.chart" . }}
app.kubernetes.io/name: {{ include "mesh-provisioner.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mesh-provisioner
{{- end }}

{{/*
The service's pods, as the Deployment, the Service, the budget and the spread
select them. The component keeps the test pod out of every one of those selectors.
*/}}
{{- define "mesh-provisioner.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mesh-provisioner.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: provisioner
{{- end }}

{{/* The labels of the service's own objects and pods: the common ones and the component. */}}
{{- define "mesh-provisioner.labels" -}}
{{ include "mesh-provisioner.commonLabels" . }}
app.kubernetes.io/component: provisioner
{{- end }}

{{/* The service account the pods run as. */}}
{{- define "mesh-provisioner.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "mesh-provisioner.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The image: by digest when one is given, else by tag (default: the chart's appVersion). */}}
{{- define "mesh-provisioner.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Where the mounted secrets are read: each a directory, so the kubelet can replace its files when the Secret changes. */}}
{{- define "mesh-provisioner.authDir" -}}/etc/mesh-provisioner/nats{{- end }}
{{- define "mesh-provisioner.tlsDir" -}}/etc/mesh-provisioner/tls{{- end }}
{{- define "mesh-provisioner.httpDir" -}}/etc/mesh-provisioner/http{{- end }}

{{/*
Per auth type: the Secret's key by default, the file it is mounted as, and
the environment variable that names that file to the service.
*/}}
{{- define "mesh-provisioner.authFile" -}}
{{- $files := dict "creds" (list "creds" "user.creds" "NATS_CREDS") "nkey" (list "nkey" "user.nk" "NATS_NKEY") "userPassword" (list "password" "password" "NATS_PASSWORD_FILE") "token" (list "token" "token" "NATS_TOKEN_FILE") }}
{{- get $files .Values.nats.auth.type | toJson }}
{{- end }}

{{- define "mesh-provisioner.authSecretName" -}}
{{- default (include "mesh-provisioner.suffixed" (dict "root" . "suffix" "nats-auth")) .Values.nats.auth.existingSecret }}
{{- end }}

{{- define "mesh-provisioner.tlsSecretName" -}}
{{- default (include "mesh-provisioner.suffixed" (dict "root" . "suffix" "nats-tls")) .Values.nats.tls.existingSecret }}
{{- end }}

{{- define "mesh-provisioner.httpTokenSecretName" -}}
{{- default (include "mesh-provisioner.suffixed" (dict "root" . "suffix" "http-token")) .Values.http.token.existingSecret }}
{{- end }}

{{/* Whether the HTTP token is configured at all ("true" or ""). */}}
{{- define "mesh-provisioner.httpTokenEnabled" -}}
{{- if or .Values.http.token.existingSecret .Values.http.token.value }}true{{ end }}
{{- end }}

{{/*
The values that must agree with each other, checked where the schema cannot
(each failure says what to set).
*/}}
{{- define "mesh-provisioner.validate" -}}
{{- $auth := .Values.nats.auth }}
{{- if and (ne $auth.type "none") (not $auth.existingSecret) (not $auth.content) }}
{{- fail (printf "nats.auth.type is %s: set nats.auth.existingSecret (a Secret holding the file) or nats.auth.content (the chart makes the Secret)" $auth.type) }}
{{- end }}
{{- if and $auth.existingSecret $auth.content }}
{{- fail "nats.auth: set existingSecret or content, not both" }}
{{- end }}
{{- if and (eq $auth.type "none") (or $auth.existingSecret $auth.content $auth.secretKey) }}
{{- fail "nats.auth.type is none, yet nats.auth names a secret: set nats.auth.type (creds, nkey, userPassword or token)" }}
{{- end }}
{{- if and (eq $auth.type "userPassword") (not $auth.user) }}
{{- fail "nats.auth.type is userPassword: set nats.auth.user (the password comes from the Secret)" }}
{{- end }}
{{- if and $auth.user (ne $auth.type "userPassword") }}
{{- fail "nats.auth.user is set but nats.auth.type is not userPassword" }}
{{- end }}
{{- $tls := .Values.nats.tls }}
{{- if $tls.enabled }}
{{- if not (or $tls.useCA $tls.useClientCertificate) }}
{{- fail "nats.tls.enabled: set useCA, useClientCertificate or both" }}
{{- end }}
{{- if and $tls.existingSecret (or $tls.ca $tls.cert $tls.key) }}
{{- fail "nats.tls: set existingSecret or ca/cert/key, not both" }}
{{- end }}
{{- if not $tls.existingSecret }}
{{- if and $tls.useCA (not $tls.ca) }}
{{- fail "nats.tls.useCA: set nats.tls.ca (PEM) or nats.tls.existingSecret" }}
{{- end }}
{{- if and $tls.useClientCertificate (not (and $tls.cert $tls.key)) }}
{{- fail "nats.tls.useClientCertificate: set nats.tls.cert and nats.tls.key (PEM) or nats.tls.existingSecret" }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.http.token.existingSecret .Values.http.token.value }}
{{- fail "http.token: set existingSecret or value, not both" }}
{{- end }}
{{- $pdb := .Values.podDisruptionBudget }}
{{- if and $pdb.enabled (eq (toString $pdb.maxUnavailable) "") (eq (toString $pdb.minAvailable) "") }}
{{- fail "podDisruptionBudget.enabled: set minAvailable or maxUnavailable" }}
{{- end }}
{{- end }}

{{/* The NATS connection's environment, shared by the service and the test pod. */}}
{{- define "mesh-provisioner.natsEnv" -}}
- name: NATS_URL
  value: {{ .Values.nats.url | quote }}
{{- with .Values.nats.inboxPrefix }}
- name: NATS_INBOX_PREFIX
  value: {{ . | quote }}
{{- end }}
{{- with .Values.nats.jsDomain }}
- name: NATS_JS_DOMAIN
  value: {{ . | quote }}
{{- end }}
{{- if ne .Values.nats.auth.type "none" }}
{{- $file := include "mesh-provisioner.authFile" . | fromJsonArray }}
{{- if eq .Values.nats.auth.type "userPassword" }}
- name: NATS_USER
  value: {{ .Values.nats.auth.user | quote }}
{{- end }}
- name: {{ index $file 2 }}
  value: {{ printf "%s/%s" (include "mesh-provisioner.authDir" .) (index $file 1) | quote }}
{{- end }}
{{- if .Values.nats.tls.enabled }}
{{- if .Values.nats.tls.useCA }}
- name: NATS_CA
  value: {{ printf "%s/ca.crt" (include "mesh-provisioner.tlsDir" .) | quote }}
{{- end }}
{{- if .Values.nats.tls.useClientCertificate }}
- name: NATS_CERT
  value: {{ printf "%s/tls.crt" (include "mesh-provisioner.tlsDir" .) | quote }}
- name: NATS_KEY
  value: {{ printf "%s/tls.key" (include "mesh-provisioner.tlsDir" .) | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* The NATS credentials' volumes (Secrets, read by path), shared by the service and the test pod. */}}
{{- define "mesh-provisioner.natsVolumes" -}}
{{- if ne .Values.nats.auth.type "none" }}
{{- $file := include "mesh-provisioner.authFile" . | fromJsonArray }}
- name: nats-auth
  secret:
    secretName: {{ include "mesh-provisioner.authSecretName" . }}
    defaultMode: 0440
    items:
      - key: {{ default (index $file 0) .Values.nats.auth.secretKey | quote }}
        path: {{ index $file 1 }}
{{- end }}
{{- if .Values.nats.tls.enabled }}
- name: nats-tls
  secret:
    secretName: {{ include "mesh-provisioner.tlsSecretName" . }}
    defaultMode: 0440
    items:
      {{- if .Values.nats.tls.useCA }}
      - key: {{ .Values.nats.tls.keys.ca | quote }}
        path: ca.crt
      {{- end }}
      {{- if .Values.nats.tls.useClientCertificate }}
      - key: {{ .Values.nats.tls.keys.cert | quote }}
        path: tls.crt
      - key: {{ .Values.nats.tls.keys.key | quote }}
        path: tls.key
      {{- end }}
{{- end }}
{{- end }}

{{/* Where those volumes are mounted: read-only, whole directories (never subPath, which the kubelet does not refresh). */}}
{{- define "mesh-provisioner.natsVolumeMounts" -}}
{{- if ne .Values.nats.auth.type "none" }}
- name: nats-auth
  mountPath: {{ include "mesh-provisioner.authDir" . }}
  readOnly: true
{{- end }}
{{- if .Values.nats.tls.enabled }}
- name: nats-tls
  mountPath: {{ include "mesh-provisioner.tlsDir" . }}
  readOnly: true
{{- end }}
{{- end }}
