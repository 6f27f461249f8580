#!/usr/bin/env node
// Runs the compiled CLI when built (an installed package, the Docker image), else the TypeScript sources through
// tsx, a development dependency: a fresh clone after `npm ci` needs no build step.
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
if (existsSync(compiled)) {
  await import(pathToFileURL(compiled).href)
} else {
  let register
  try {
    ;({ register } = await import('tsx/esm/api'))
  } catch {
    process.stderr.write(
      'bankrec: dist/ is missing and tsx (a development dependency) is not installed: run `npm run build`, or `npm ci` in a clone.\n',
    )
    process.exit(2)
  }
  register()
  await import('../src/cli/main.ts')
}
