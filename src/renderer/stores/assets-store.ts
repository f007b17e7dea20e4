// One page of a vault's assets as the service returned it, with the query that produced it.
import { create } from 'zustand'
import type { AssetCategory } from '../../shared/api'
import type { AssetPage } from '../../shared/ipc/vault-types'
import { vault } from '../bridge/vault-client'

export interface AssetQuery {
  category: AssetCategory | null
  limit: 50 | 100
  offset: number
}

interface AssetsState {
  vaultId: string | null
  query: AssetQuery
  page: AssetPage | undefined
  loading: boolean
  error: unknown
  load(vaultId: string, query?: Partial<AssetQuery>): Promise<void>
}

export const useAssetsStore = create<AssetsState>((set, get) => ({
  vaultId: null,
  query: { category: null, limit: 50, offset: 0 },
  page: undefined,
  loading: false,
  error: undefined,
  load: async (vaultId, change = {}) => {
    const base = get().vaultId === vaultId ? get().query : { category: null, limit: 50 as const, offset: 0 }
    const query = { ...base, ...change }
    set({ vaultId, query, loading: true, error: undefined })
    try {
      const page = await vault().listAssets({
        vaultId,
        limit: query.limit,
        offset: query.offset,
        ...(query.category ? { category: query.category } : {}),
      })
      if (get().vaultId === vaultId) set({ page })
    } catch (error) {
      set({ error })
    } finally {
      set({ loading: false })
    }
  },
}))
