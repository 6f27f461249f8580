import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../../scripts/openapi-document.js'
import { OPENAPI_PATH, renderOpenApiDocument } from '../../scripts/write-openapi.js'

const doc = buildOpenApiDocument() as any

/** Written out from the seed (plus the webhook paths and get-transaction the sandbox names), not from the generator. */
const SEED_ENDPOINTS = [
  'GET /v1/institutions',
  'GET /v1/institutions/{institutionId}',
  'POST /v1/connections',
  'GET /v1/connections',
  'GET /v1/connections/{connectionId}',
  'PUT /v1/connections/{connectionId}/credentials',
  'PUT /v1/connections/{connectionId}/setupCompletion',
  'PUT /v1/connections/{connectionId}/sync',
  'DELETE /v1/connections/{connectionId}',
  'GET /v1/accounts',
  'GET /v1/accounts/{accountId}',
  'GET /v1/balances',
  'GET /v1/transactions',
  'GET /v1/transactions/sync',
  'GET /v1/transactions/{transactionId}',
  'POST /v1/transfers',
  'GET /v1/transfers/{id}',
  'POST /v1/transfers/{id}/retry',
  'POST /v1/webhooks',
  'GET /v1/webhooks',
  'GET /v1/webhooks/{webhookId}',
  'PATCH /v1/webhooks/{webhookId}',
  'DELETE /v1/webhooks/{webhookId}',
  'POST /v1/webhooks/{webhookId}/test',
]

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

function operations(): Array<[string, any]> {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, any]),
  )
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => collectRefs(item, out))
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.push(value)
      else collectRefs(value, out)
    }
  }
  return out
}

function resolvePointer(ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true)
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<any>((node, part) => (node === undefined ? undefined : node[part]), doc)
}

describe('the generated OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with bearer authentication', () => {
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.info).toMatchObject({ title: expect.any(String), version: 'v1' })
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('lists every endpoint of the seed and nothing else', () => {
    expect(
      operations()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...SEED_ENDPOINTS].sort())
  })

  it('resolves every $ref', () => {
    const refs = collectRefs(doc)
    expect(refs.length).toBeGreaterThan(50)
    for (const ref of new Set(refs)) expect(resolvePointer(ref), ref).toBeDefined()
  })

  it('gives every operation a unique id, a scope, a success response and the error body for 401', () => {
    const ids = new Set<string>()
    for (const [name, operation] of operations()) {
      expect(ids.has(operation.operationId), name).toBe(false)
      ids.add(operation.operationId)
      expect(operation.security[0].bearerAuth, name).toHaveLength(1)
      expect(
        Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
        name,
      ).toBe(true)
      expect(resolvePointer(operation.responses['401'].$ref), name).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
      })
    }
  })

  it('declares every path parameter of every path template', () => {
    for (const [name, operation] of operations()) {
      const template = [...name.matchAll(/\{(\w+)\}/g)].map((m) => m[1])
      const declared = (operation.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
      expect(declared, name).toEqual(template)
    }
  })

  it('documents the list parameters cursor and limit (1–500, default 100) on the paginated lists', () => {
    for (const path of [
      '/v1/institutions',
      '/v1/connections',
      '/v1/accounts',
      '/v1/webhooks',
      '/v1/transactions',
    ]) {
      const params = doc.paths[path].get.parameters
      expect(
        params.find((p: any) => p.name === 'cursor'),
        path,
      ).toBeDefined()
      expect(params.find((p: any) => p.name === 'limit').schema, path).toMatchObject({
        minimum: 1,
        maximum: 500,
        default: 100,
      })
    }
  })

  it('takes request bodies from the api-client schemas, as the server accepts them', () => {
    const transfer = doc.components.schemas.TransferCreateParams
    expect(transfer.required).toEqual(
      expect.arrayContaining([
        'type',
        'amount',
        'sourceAccountId',
        'destination',
        'transferType',
        'clientReference',
      ]),
    )
    expect(transfer.properties.clientReference).toMatchObject({ minLength: 1, maxLength: 140 })
    expect(doc.components.schemas.WebhookUpdateParams.required ?? []).toEqual([])
    expect(doc.paths['/v1/transfers'].post.parameters.map((p: any) => p.name)).toContain('Idempotency-Key')
  })

  it('describes the signed webhook deliveries of each event type', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'connection.status_changed',
      'test',
      'transactions.sync_available',
    ])
    const header = doc.webhooks.test.post.parameters.find((p: any) => p.name === 'Service-Signature')
    expect(header.required).toBe(true)
  })

  it('is the document committed at docs/bank-api.openapi.json (run npm run openapi after a schema change)', async () => {
    expect(await readFile(OPENAPI_PATH, 'utf8')).toBe(renderOpenApiDocument())
  })
})
