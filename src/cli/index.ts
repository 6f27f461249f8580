export { runCli, buildProgram } from './program.js'
export { processIo } from './io.js'
export type { CommandIo } from './io.js'
