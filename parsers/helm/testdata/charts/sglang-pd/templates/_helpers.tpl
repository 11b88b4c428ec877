{{/* The release's name prefix for every object. */}}
{{- define "sglang-pd.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sglang-pd.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Arguments every SGLang server of the release gets. */}}
{{- define "sglang-pd.common-args" -}}
- --model-path
- {{ .Values.model.path | quote }}
- --context-length
- {{ .Values.model.contextLength | quote }}
- --host
- 0.0.0.0
- --port
- "30000"
{{- end -}}
