process.env.BENCH_ROUNDS = '3'
process.env.BENCH_TRANSACTIONS = '100000'
await import('./bench/match.ts')
