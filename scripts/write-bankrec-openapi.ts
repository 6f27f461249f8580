import { writeFile } from 'node:fs/promises'
import { resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bankrecApiDocument } from '../src/sidecar/openapi/index.js'

/** `npm run openapi:bankrec`: writes docs/bankrec-api.openapi.json, bankrec's own API (not the bank's). */
const path = resolve(dirname(fileURLToPath(import.meta.url)), '../docs/bankrec-api.openapi.json')
await writeFile(path, `${JSON.stringify(bankrecApiDocument(), null, 2)}\n`)
process.stdout.write(`wrote ${path}\n`)
