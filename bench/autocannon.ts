// autocannon, the HTTP load generator of the benchmarks. It ships no types: the part of its options and
// result the benchmarks use.
import { createRequire } from 'node:module'

export interface LoadResult {
  requests: { average: number; total: number }
  latency: { p99: number }
  non2xx: number
  errors: number
}

export const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string
  headers: Record<string, string>
  connections: number
  duration: number
}) => Promise<LoadResult>
