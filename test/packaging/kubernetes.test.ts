import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { parse as renderGoTemplate } from '@evertdespiegeleer/go-template'
import * as apps from 'kubernetes-models/apps/v1'
import * as batch from 'kubernetes-models/batch/v1'
import * as core from 'kubernetes-models/v1'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../../src/cli/index.js'
import { BankrecEnv, ConfigError, loadConfig } from '../../src/config/index.js'
import { testIo } from '../cli/test-io.js'

/**
 * deploy/kubernetes/ and the Helm chart, validated against the Kubernetes API schemas with kubernetes-models (its
 * models carry the OpenAPI schemas of the Kubernetes API and validate with ajv; no network, no cluster). helm itself
 * cannot be installed here (no registry has it; Debian's Go is too old to build it), so the chart is rendered with
 * Go's own text/template compiled to WebAssembly (@evertdespiegeleer/go-template): the chart uses no Sprig function,
 * only what text/template has, so helm renders it the same way.
 */
const ROOT = path.resolve(import.meta.dirname, '../..')
const MANIFESTS = path.join(ROOT, 'deploy/kubernetes')
const CHART = path.join(ROOT, 'deploy/helm/bankrec')
// js-yaml ships with the lint toolchain (eslint); it has no type definitions.
const yaml = createRequire(import.meta.url)('js-yaml') as {
  load(text: string): unknown
  loadAll(text: string): unknown[]
}

type Probe = { httpGet?: { path: string; port: string | number } }
type Container = {
  name: string
  image: string
  args?: string[]
  readinessProbe?: Probe
  livenessProbe?: Probe
  lifecycle?: { preStop?: { exec?: { command: string[] } } }
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[]
}
type PodSpec = {
  containers: Container[]
  initContainers?: Container[]
  terminationGracePeriodSeconds?: number
}
type Manifest = {
  apiVersion: string
  kind: string
  metadata: { name: string; annotations?: Record<string, string> }
  data?: Record<string, string>
  stringData?: Record<string, string>
  spec?: { replicas?: number; template?: { spec: PodSpec } }
}

const MODELS: Record<string, Record<string, unknown>> = { v1: core, 'apps/v1': apps, 'batch/v1': batch }

/** Validates one object against its kind's schema; throws with the schema's complaint. */
function validate(manifest: Manifest): void {
  const Model = MODELS[manifest.apiVersion]?.[manifest.kind] as
    (new (data: unknown) => { validate(): void }) | undefined
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`)
  new Model(manifest).validate()
}

function loadManifests(): Manifest[] {
  return readdirSync(MANIFESTS)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => yaml.loadAll(readFileSync(path.join(MANIFESTS, file), 'utf8')) as Manifest[])
    .filter(Boolean)
}

/** `helm template` of the chart: every template with _helpers.tpl, in Helm's context (.Values, .Release, .Chart). */
async function renderChart(overrides: (values: Record<string, unknown>) => void = () => undefined) {
  const values = yaml.load(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Record<string, unknown>
  overrides(values)
  const chart = yaml.load(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>
  const context = {
    Values: values,
    Release: { Name: 'acme', Namespace: 'default', Service: 'Helm' },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  }
  const helpers = readFileSync(path.join(CHART, 'templates/_helpers.tpl'), 'utf8')
  const rendered: Manifest[] = []
  for (const file of readdirSync(path.join(CHART, 'templates')).filter((f) => f.endsWith('.yaml'))) {
    const text = await renderGoTemplate(
      helpers + readFileSync(path.join(CHART, 'templates', file), 'utf8'),
      context,
    )
    rendered.push(...(yaml.loadAll(text) as Manifest[]).filter(Boolean))
  }
  return rendered
}

const byKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind)
const podOf = (manifest: Manifest) => manifest.spec!.template!.spec
const sidecarDeployment = (manifests: Manifest[]) =>
  byKind(manifests, 'Deployment').find((d) => podOf(d).containers.length > 1)!
const workerDeployment = (manifests: Manifest[]) =>
  byKind(manifests, 'Deployment').find((d) => podOf(d).containers[0]!.args?.[0] === 'worker')!

/** The parts of the objects both ways must agree on (names and labels differ: the chart prefixes the release). */
function shape(manifests: Manifest[]) {
  const container = (c: Container) => ({
    name: c.name,
    args: c.args,
    readinessProbe: c.readinessProbe,
    livenessProbe: c.livenessProbe,
    lifecycle: c.lifecycle,
  })
  const pod = (m: Manifest) => ({
    replicas: m.spec?.replicas,
    grace: podOf(m).terminationGracePeriodSeconds,
    containers: podOf(m).containers.map(container),
    initContainers: podOf(m).initContainers?.map(container),
  })
  return {
    kinds: manifests.map((m) => m.kind).sort(),
    config: byKind(manifests, 'ConfigMap')[0]!.data,
    secretKeys: Object.keys(byKind(manifests, 'Secret')[0]?.stringData ?? {}).sort(),
    sidecar: pod(sidecarDeployment(manifests)),
    worker: pod(workerDeployment(manifests)),
    job: pod(byKind(manifests, 'Job')[0]!),
  }
}

/** Checks what a sidecar deployment needs, whichever way it was made. */
function checkSidecarDeployment(manifests: Manifest[]): void {
  const config = byKind(manifests, 'ConfigMap')[0]!.data!
  const secret = byKind(manifests, 'Secret')[0]?.stringData
  const known = Object.keys(BankrecEnv.shape)
  for (const key of [...Object.keys(config), ...Object.keys(secret ?? {})]) expect(known, key).toContain(key)
  expect(config.HOST).toBe('0.0.0.0')
  expect(new URL(config.REDIS_URL!).hostname).not.toMatch(/^(localhost|127\.)/)
  if (secret) {
    expect(Object.keys(secret)).toEqual(
      expect.arrayContaining([
        'BANKREC_SECRET_KEY',
        'KIT_API_TOKEN',
        'WEBHOOK_SECRETS',
        'APP_WEBHOOK_SECRET',
      ]),
    )
    expect(new URL(secret.DATABASE_URL!).hostname).not.toMatch(/^(localhost|127\.)/)
  }

  const pod = podOf(sidecarDeployment(manifests))
  const bankrec = pod.containers.find((c) => c.image.includes('bankrec'))!
  expect(pod.containers.map((c) => c.name)).toEqual(['app', 'bankrec'])
  expect(bankrec.args).toEqual(['start', '--roles', 'receiver,api'])
  const drainSeconds = Number(config.SHUTDOWN_TIMEOUT_SECONDS)
  for (const deployment of [sidecarDeployment(manifests), workerDeployment(manifests)]) {
    const spec = podOf(deployment)
    const container = spec.containers.find((c) => c.image.includes('bankrec'))!
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz')
    expect(container.livenessProbe?.httpGet?.path).toBe('/healthz')
    const preStop = container.lifecycle?.preStop?.exec?.command
    expect(preStop?.[0]).toBe('sleep')
    // The preStop sleep comes before SIGTERM; then the drain (SHUTDOWN_TIMEOUT_SECONDS, src/sidecar/drain.ts).
    expect(spec.terminationGracePeriodSeconds!).toBeGreaterThan(Number(preStop![1]) + drainSeconds)
    expect(container.envFrom?.map((e) => e.configMapRef?.name ?? e.secretRef?.name)).toHaveLength(2)
  }
  expect(workerDeployment(manifests).spec!.replicas!).toBeGreaterThanOrEqual(2)

  const job = podOf(byKind(manifests, 'Job')[0]!)
  expect(job.initContainers?.map((c) => c.args)).toEqual([['migrate']])
  expect(job.containers.map((c) => c.args)).toEqual([['webhooks', 'register']])
  const program = buildProgram(testIo({}).io)
  expect(program.commands.map((c) => c.name())).toEqual(
    expect.arrayContaining(['migrate', 'webhooks', 'worker']),
  )
  expect(program.commands.find((c) => c.name() === 'webhooks')!.commands.map((c) => c.name())).toContain(
    'register',
  )
}

describe('deploy/kubernetes', () => {
  const manifests = loadManifests()

  it('validates every object against the Kubernetes schemas', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Deployment',
      'Job',
      'Secret',
      'Service',
    ])
    for (const manifest of manifests) expect(() => validate(manifest), manifest.metadata.name).not.toThrow()
  })

  it('is checked for real: an object that breaks the schema is refused', () => {
    const broken = structuredClone(sidecarDeployment(manifests)) as unknown as {
      spec: { template: { spec: { containers: { ports: { containerPort: unknown }[] }[] } } }
    }
    broken.spec.template.spec.containers[1]!.ports[0]!.containerPort = 'eighty'
    expect(() => validate(broken as unknown as Manifest)).toThrow(/containerPort must be integer/)
  })

  it('runs the app with the bankrec sidecar, probes, a preStop hook, a grace above the drain, Secrets and the migration Job', () => {
    checkSidecarDeployment(manifests)
  })

  it('ships Secret placeholders that bankrec refuses, naming each', () => {
    const config = byKind(manifests, 'ConfigMap')[0]!.data!
    const secret = byKind(manifests, 'Secret')[0]!.stringData!
    expect(() => loadConfig({ ...config, ...secret })).toThrow(ConfigError)
    expect(() => loadConfig({ ...config, ...secret })).toThrow(/BANKREC_SECRET_KEY must be 32 bytes/)
    const filled = {
      ...secret,
      BANKREC_SECRET_KEY: 'a'.repeat(64),
      KIT_API_TOKEN: 'a-token-of-sixteen-chars',
    }
    expect(loadConfig({ ...config, ...filled }).DATABASE_URL).toBe(secret.DATABASE_URL)
  })
})

describe('the Helm chart deploy/helm/bankrec', () => {
  it('renders objects that validate against the Kubernetes schemas', async () => {
    const rendered = await renderChart()
    for (const manifest of rendered) expect(() => validate(manifest), manifest.metadata.name).not.toThrow()
    checkSidecarDeployment(rendered)
    expect(byKind(rendered, 'Job')[0]!.metadata.annotations?.['helm.sh/hook']).toBe(
      'post-install,post-upgrade',
    )
  })

  it('renders the same as deploy/kubernetes', async () => {
    expect(shape(await renderChart())).toEqual(shape(loadManifests()))
  })

  it('uses an existing Secret instead of its own when told', async () => {
    const rendered = await renderChart((values) => {
      ;(values.secret as { existingSecret: string }).existingSecret = 'bankrec-from-vault'
    })
    expect(byKind(rendered, 'Secret')).toEqual([])
    for (const manifest of rendered) validate(manifest)
    const bankrec = podOf(sidecarDeployment(rendered)).containers[1]!
    expect(bankrec.envFrom?.[1]?.secretRef?.name).toBe('bankrec-from-vault')
  })
})
