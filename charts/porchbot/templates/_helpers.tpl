{{- /* A release whose name holds the chart's ("porchbot", "porchbot-prod")
names its resources alone, not "porchbot-porchbot". */ -}}
{{- define "porchbot.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- /* What the pods read from their Secret, hashed: a change rolls them.
The chart's own Secret as rendered; an existingSecret's data as the
cluster holds it at install or upgrade (Helm's lookup: `helm upgrade`
after rotating it rolls the pods; `helm template` cannot see it). */ -}}
{{- define "porchbot.secretChecksum" -}}
{{- if .Values.github.existingSecret -}}
{{- (lookup "v1" "Secret" .Release.Namespace .Values.github.existingSecret).data | toJson | sha256sum -}}
{{- else -}}
{{- include (print .Template.BasePath "/secret.yaml") . | sha256sum -}}
{{- end -}}
{{- end -}}
{{- define "porchbot.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
{{- define "porchbot.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "porchbot.secretName" -}}
{{- default (include "porchbot.fullname" .) .Values.github.existingSecret -}}
{{- end -}}
