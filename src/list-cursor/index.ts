export { createListCursorCodec, listCursorMessage, listFingerprint } from './list-cursor.js'
export type { ListCursorCodec, ListCursorProblem } from './list-cursor.js'
