import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import { bankrecApiDocument } from '../../src/sidecar/openapi/index.js'

// ajv-formats is CommonJS: its default import is the module object under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
type Document = ReturnType<typeof bankrecApiDocument>

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')

/** Every (method, path template) the document describes, as `GET /api/invoices/{id}`. */
export function documentedOperations(document: Document): Set<string> {
  const operations = new Set<string>()
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) if (item?.[method]) operations.add(`${method.toUpperCase()} ${path}`)
  }
  return operations
}

/**
 * Checks a real answer of the API against bankrec's OpenAPI document with ajv (JSON Schema 2020-12, as OpenAPI
 * 3.1 uses): the path and method must be described, the status listed, and a JSON body must match its schema.
 */
export function createOpenApiValidator(document: Document = bankrecApiDocument()) {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addSchema(document, 'bankrec-api')
  const compiled = new Map<string, ValidateFunction>()
  const templates = Object.keys(document.paths ?? {})
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    // A literal segment wins over a parameter (/api/invoices/import before /api/invoices/{id}).
    .sort((a, b) => a.params - b.params)

  /** Problems with one answer; empty when it fits the document. */
  function check(answer: {
    method: string
    path: string
    status: number
    contentType: string | null
    body: unknown
  }) {
    const path = answer.path.split('?')[0]!
    const method = answer.method.toLowerCase()
    const found = templates.find(
      (t) => t.pattern.test(path) && document.paths?.[t.template]?.[method as (typeof METHODS)[number]],
    )
    if (!found) return [`${answer.method} ${path} is not in the document`]
    const operation = document.paths![found.template]![method as (typeof METHODS)[number]]!
    const response = operation.responses?.[String(answer.status)]
    if (!response) return [`${answer.method} ${found.template} does not list status ${answer.status}`]
    if (!answer.contentType?.includes('json')) return []
    const key = `${method} ${found.template} ${answer.status}`
    let validate = compiled.get(key)
    if (!validate) {
      if (!('content' in response) || !response.content?.['application/json']) {
        return [`${key} lists no JSON body`]
      }
      const ref = `bankrec-api#/${pointer('paths', found.template, method, 'responses', String(answer.status), 'content', 'application/json', 'schema')}`
      validate = ajv.compile({ $ref: ref })
      compiled.set(key, validate)
    }
    if (validate(answer.body)) return []
    return (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '/'} ${e.message ?? ''}`)
  }
  return { check }
}
