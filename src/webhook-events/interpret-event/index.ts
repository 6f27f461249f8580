export { interpretEvent, connectionStatusOf } from './interpret-event.js'
export type { InterpretedEvent, StatusChangeFields, UninterpretableProblem } from './interpret-event.js'
