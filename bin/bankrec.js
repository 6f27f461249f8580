#!/usr/bin/env node
// Runs the compiled CLI when built, else the TypeScript sources through tsx (a fresh clone needs no build step).
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/cli/main.ts')
}
