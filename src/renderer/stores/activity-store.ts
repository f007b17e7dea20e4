// The activity history of each vault as the window shows it: the first page newest first, older pages
// on request, a filter by group of kinds, and entries main adds while the tab is open.
import { create } from 'zustand'
import type { ActivityEntry, ActivityKind } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

type ActivityExport = Awaited<ReturnType<ReturnType<typeof vault>['exportActivity']>>

export const ACTIVITY_FILTERS = {
  'check-in': ['check-in', 'check-in-failed'],
  upload: ['upload', 'files-deleted'],
  people: ['guardian-added', 'guardian-removed', 'heir-added', 'heir-removed'],
  kits: [
    'kit-handed-over',
    'kit-taken-back',
    'owner-kit-confirmed',
    'vault-key-imported',
    'vault-key-replaced',
  ],
  release: [
    'release-configured',
    'release-started',
    'release-cancelled',
    'released',
    'practice-started',
    'practice-passed',
  ],
  vault: ['vault-created', 'vault-renamed', 'credits-added'],
} as const satisfies Record<string, readonly ActivityKind[]>
export type ActivityFilter = keyof typeof ACTIVITY_FILTERS | 'all'

export const ACTIVITY_PAGE = 50

interface VaultActivity {
  filter: ActivityFilter
  items: ActivityEntry[]
  total: number
  problem: string | null
  loading: boolean
  error?: unknown
}

interface ActivityState {
  byVault: Record<string, VaultActivity>
  load(vaultId: string, filter?: ActivityFilter): Promise<void>
  more(vaultId: string): Promise<void>
  /** The whole history as a file to save (CSV or JSON). */
  exportAs(vaultId: string, format: 'csv' | 'json'): Promise<ActivityExport>
}

const kindsOf = (filter: ActivityFilter): ActivityKind[] | undefined =>
  filter === 'all' ? undefined : [...ACTIVITY_FILTERS[filter]]

let subscribed = false

export const useActivityStore = create<ActivityState>((set, get) => {
  const patch = (vaultId: string, entry: Partial<VaultActivity>) =>
    set((s) => ({
      byVault: {
        ...s.byVault,
        [vaultId]: {
          filter: 'all',
          items: [],
          total: 0,
          problem: null,
          loading: false,
          ...s.byVault[vaultId],
          ...entry,
        },
      },
    }))

  const subscribe = () => {
    if (subscribed) return
    subscribed = true
    vault().on.activityAdded((entry) => {
      const current = get().byVault[entry.vaultId]
      if (!current) return
      const kinds = kindsOf(current.filter)
      if (kinds && !kinds.includes(entry.kind)) return
      if (current.items.some((e) => e.id === entry.id)) return
      patch(entry.vaultId, { items: [entry, ...current.items], total: current.total + 1 })
    })
  }

  const fetch = async (vaultId: string, filter: ActivityFilter, offset: number) => {
    const kinds = kindsOf(filter)
    return vault().listActivity({ vaultId, ...(kinds ? { kinds } : {}), limit: ACTIVITY_PAGE, offset })
  }

  return {
    byVault: {},
    load: async (vaultId, filter) => {
      subscribe()
      const chosen = filter ?? get().byVault[vaultId]?.filter ?? 'all'
      patch(vaultId, { filter: chosen, loading: true })
      try {
        const page = await fetch(vaultId, chosen, 0)
        // A newer choice of filter wins over an answer that arrives late.
        if (get().byVault[vaultId]?.filter !== chosen) return
        patch(vaultId, {
          items: page.items,
          total: page.total,
          problem: page.problem,
          loading: false,
          error: undefined,
        })
      } catch (error) {
        patch(vaultId, { loading: false, error })
      }
    },
    exportAs: (vaultId, format) => vault().exportActivity({ vaultId, format }),
    more: async (vaultId) => {
      const current = get().byVault[vaultId]
      if (!current || current.loading) return
      patch(vaultId, { loading: true })
      try {
        const page = await fetch(vaultId, current.filter, current.items.length)
        const known = new Set(current.items.map((e) => e.id))
        patch(vaultId, {
          items: [...current.items, ...page.items.filter((e) => !known.has(e.id))],
          total: page.total,
          problem: page.problem,
          loading: false,
          error: undefined,
        })
      } catch (error) {
        patch(vaultId, { loading: false, error })
      }
    },
  }
})
