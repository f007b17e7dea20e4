// What a test's process sends to PostgreSQL, for tests that count round trips (apart from
// postgres-server.ts, which benches and scripts load outside vitest).
import pg from 'pg'
import { vi } from 'vitest'

/** The statements this process sent to PostgreSQL (any pg.Client) while `work` ran. */
export async function statementsDuring(work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = []
  const clientQuery = pg.Client.prototype.query
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
    this: pg.Client,
    ...args: any[]
  ) {
    const [query] = args
    sent.push(typeof query === 'string' ? query : query.text)
    return (clientQuery as (...a: any[]) => any).apply(this, args)
  } as any)
  try {
    await work()
  } finally {
    spy.mockRestore()
  }
  return sent
}
