import { findExactSets } from './src/reconcile/matcher/find-exact-sets.js'
import { toUnits, formatUnits } from './src/reconcile/matcher/money.js'
const vals = Array.from({ length: 20 }, (_, i) => toUnits((100 + (i * 7 % 37)) + '.45'))
function run(name: string, f: () => unknown) {
  for (let i = 0; i < 20000; i++) f()
  const s = process.hrtime.bigint(); for (let i = 0; i < 100000; i++) f()
  console.log(name, (Number(process.hrtime.bigint() - s) / 1e5 / 1000).toFixed(2), 'µs')
}
run('none small', () => findExactSets(vals, toUnits('12.34'), 5))
run('none big', () => findExactSets(vals, toUnits('512.34'), 5))
run('pair', () => findExactSets(vals, vals[3]! + vals[7]!, 5))
run('toUnits', () => toUnits('123.45'))
run('format', () => formatUnits(123450000000000000000n))
