// Readiness facts (guardians' answers, the practice run, kits) while the app idles: polling reads them
// again only every few minutes, and a read that finds nothing new tells nobody.
import { describe, expect, it } from 'vitest'
import { FACTS_MAX_AGE_MS, ReadinessFacts } from '../../src/main/core/vaults/readiness-facts'
import type { VaultApiClient } from '../../src/service-client'

function facts() {
  let now = 0
  let reads = 0
  let changes = 0
  let accepted = 0
  const client = {
    getServiceInfo: async () => ({ mail: { configured: true }, extensions: ['rehearsal'] }),
    listGuardians: async () => {
      reads++
      return Array.from({ length: 3 }, (_, i) => ({
        name: `G${i}`,
        status: i < accepted ? 'accepted' : 'pending',
      }))
    },
    getRehearsal: async () => null,
  } as unknown as VaultApiClient
  const readiness = new ReadinessFacts({
    now: () => now,
    active: () => ({ id: 'c1', serviceUrl: 'https://vault.example' }) as never,
    isLocal: () => false,
    client: async () => client,
    kits: { list: async () => [] } as never,
    factsChanged: () => changes++,
    serviceRead: () => {},
  })
  return {
    readiness,
    at: (ms: number) => (now = ms),
    accept: () => accepted++,
    counts: () => ({ reads, changes }),
  }
}

describe('readiness facts while the app idles', () => {
  it('a vault poll a minute later does not read them again; one after the maximum age does', async () => {
    const f = facts()
    await f.readiness.refresh('v1', false)
    expect(f.counts().reads).toBe(1)
    for (const minute of [1, 2, 3, 4]) {
      f.at(minute * 60_000)
      await f.readiness.refresh('v1', false)
    }
    expect(f.counts().reads).toBe(1)
    f.at(FACTS_MAX_AGE_MS)
    await f.readiness.refresh('v1', false)
    expect(f.counts().reads).toBe(2)
    // An action reads at once.
    await f.readiness.refresh('v1')
    expect(f.counts().reads).toBe(3)
  })

  it('polling leaves them for an hour: half an hour later it reads nothing', async () => {
    const f = facts()
    await f.readiness.refresh('v1', false)
    f.at(30 * 60_000)
    await f.readiness.refresh('v1', false)
    expect(f.counts().reads).toBe(1)
    f.at(60 * 60_000)
    await f.readiness.refresh('v1', false)
    expect(f.counts().reads).toBe(2)
  })

  it('tells the window only when a read found something new', async () => {
    const f = facts()
    await f.readiness.refresh('v1')
    expect(f.counts().changes).toBe(1)
    await f.readiness.refresh('v1')
    expect(f.counts().changes).toBe(1)
    f.accept()
    await f.readiness.refresh('v1')
    expect(f.counts().changes).toBe(2)
    expect(f.readiness.of('v1')?.guardians).toMatchObject({ accepted: 1, pending: 2 })
  })

  it('a guardian list the window read updates them without a request, and tells only of news', async () => {
    const f = facts()
    const list = (accepted: number) =>
      Array.from({ length: 3 }, (_, i) => ({ name: `G${i}`, status: i < accepted ? 'accepted' : 'pending' }))
    f.readiness.noteGuardians('v1', list(1) as never)
    expect(f.readiness.of('v1')).toBeUndefined()
    await f.readiness.refresh('v1')
    f.readiness.noteGuardians('v1', list(0) as never)
    expect(f.counts()).toMatchObject({ reads: 1, changes: 1 })
    f.readiness.noteGuardians('v1', list(2) as never)
    expect(f.counts()).toMatchObject({ reads: 1, changes: 2 })
    expect(f.readiness.of('v1')?.guardians).toEqual({ accepted: 2, pending: 1, declined: 0 })
  })
})
