import { findExactSets } from './src/reconcile/matcher/find-exact-sets.js'
const vals = Array.from({ length: 20 }, (_, i) => (100 + (i * 7 % 37)) * 100 + 45)
function run(name: string, f: () => unknown) {
  for (let i = 0; i < 20000; i++) f()
  const s = process.hrtime.bigint(); for (let i = 0; i < 100000; i++) f()
  console.log(name, (Number(process.hrtime.bigint() - s) / 1e5 / 1000).toFixed(2), 'µs', JSON.stringify(f()))
}
run('none small', () => findExactSets(vals, 1234, 5))
run('none big', () => findExactSets(vals, 51234, 5))
run('pair', () => findExactSets(vals, vals[3]! + vals[7]!, 5))
run('five', () => findExactSets(vals, vals[3]! + vals[7]! + vals[9]! + vals[11]! + vals[19]!, 5))
