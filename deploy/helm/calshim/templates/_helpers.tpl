{{/* The objects' name: the release's, with the chart's name when the release's does not hold it. */}}
{{- define "calshim.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels the Deployment selects its pods by (never changed after the install). */}}
{{- define "calshim.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "calshim.labels" -}}
{{ include "calshim.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The image: [registry/]repository:tag, the tag the chart's appVersion unless set. */}}
{{- define "calshim.image" -}}
{{- $repo := .Values.image.repository -}}
{{- with .Values.image.registry }}{{ $repo = printf "%s/%s" (trimSuffix "/" .) $repo }}{{ end -}}
{{- printf "%s:%s" $repo (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The Secret holding the service credential: the operator's existingSecret, or the chart's own. */}}
{{- define "calshim.secretName" -}}
{{- .Values.existingSecret | default (printf "%s-upstream" (include "calshim.fullname" .)) -}}
{{- end -}}

{{/* The Secret of the service credential: both values required, no placeholder. */}}
{{- define "calshim.upstream" -}}
CALSHIM_UPSTREAM_USER: {{ required "upstream.user: the WordPress user calshim reads with (values.yaml)" .Values.upstream.user | b64enc }}
CALSHIM_UPSTREAM_APP_PASSWORD: {{ required "upstream.appPassword: its application password (values.yaml)" .Values.upstream.appPassword | b64enc }}
{{- end -}}
