import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildOpenApiDocument } from './openapi-document.js'

/** `npm run openapi`: writes docs/bank-api.openapi.json from the api-client schemas. */
export const OPENAPI_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/bank-api.openapi.json')

export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await mkdir(dirname(OPENAPI_PATH), { recursive: true })
  await writeFile(OPENAPI_PATH, renderOpenApiDocument())
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`)
}
