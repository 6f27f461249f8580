export { systemClock, createVirtualClock } from './clock.js'
export type { Clock, VirtualClock, VirtualClockOptions } from './clock.js'
