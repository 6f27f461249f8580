{{- define "bankrec.secretName" -}}
{{- if .Values.secret.existingSecret }}{{ .Values.secret.existingSecret }}{{ else }}{{ .Release.Name }}-bankrec{{ end -}}
{{- end }}

{{- define "bankrec.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end }}

{{- define "bankrec.envFrom" }}
          envFrom:
            - configMapRef:
                name: {{ .Release.Name }}-bankrec
            - secretRef:
                name: {{ template "bankrec.secretName" . }}
{{- end }}

{{- define "bankrec.probes" }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 3
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 30
            periodSeconds: 15
            timeoutSeconds: 5
            failureThreshold: 4
          lifecycle:
            preStop:
              exec:
                command: ['sleep', '{{ .Values.preStopSleepSeconds }}']
{{- end }}

{{- define "bankrec.labels" }}
    app.kubernetes.io/name: bankrec
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/version: {{ printf "%q" .Chart.AppVersion }}
{{- end }}
