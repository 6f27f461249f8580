export { canonicalJson } from './canonical-json.js'
