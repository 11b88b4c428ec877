{{- define "tp-guard.check" -}}
{{- if gt (int .Values.tpSize) 8 -}}
{{- fail (printf "tpSize %v is more GPUs than one node has" .Values.tpSize) -}}
{{- end -}}
{{- end -}}
