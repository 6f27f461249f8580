export {
  MAX_JSON_DEPTH,
  UNSTORABLE_TEXT,
  isUnstorableText,
  unstorableIndex,
  unstorableJsonAt,
  jsonTextNestsDeeperThan,
} from './storable-json.js'
export type { JsonProblem } from './storable-json.js'
