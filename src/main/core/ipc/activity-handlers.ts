// The activity history's channels (list, export) and the unlock check-in's channels (status, turn on
// with an agent key, turn off: adapters over vaults/unlock-check-in-operations.ts). The history's lines are written by the operations that did the thing
// (vaults/*-operations.ts), whichever door called them; no handler records.

import { AppError } from '../../../shared/app-error'
import type { Settings, SettingsPatch } from '../../../shared/ipc/settings'
import type { VaultSession } from '../vault-session'
import { exportActivityText } from '../vaults/activity-log'
import { unlockCheckInOperations } from '../vaults/unlock-check-in-operations'
import type { HandlerTable } from './handler-table'

type ActivityHandlers = Pick<
  HandlerTable,
  'listActivity' | 'exportActivity' | 'getUnlockCheckIn' | 'enableUnlockCheckIn' | 'disableUnlockCheckIn'
>

export interface ActivityHandlerDeps {
  session: () => Promise<VaultSession>
  settings: () => Promise<Settings>
  /** Saves a settings change and tells the window and the session (as the settings channel does). */
  updateSettings: (patch: SettingsPatch) => Promise<Settings>
}

/** "2026-05-04" for file names. */
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
/** A file name without characters file systems refuse. */
const safeName = (name: string) => name.replace(/[\\/:*?"<>|\p{Cc}]/gu, '-').trim() || 'Vault'

export function createActivityHandlers(deps: ActivityHandlerDeps): ActivityHandlers {
  const { session } = deps
  const unlock = unlockCheckInOperations(deps)
  return {
    listActivity: async ({ vaultId, kinds, limit, offset }) => {
      const s = await session()
      const page = s.activity.list(vaultId, { ...(kinds ? { kinds } : {}), limit, offset })
      return { ...page, problem: s.activity.problem ?? null }
    },

    exportActivity: async ({ vaultId, format }) => {
      const s = await session()
      const entries = s.activity.all(vaultId)
      if (entries.length === 0 && s.activity.problem) {
        throw new AppError({ code: 'ACTIVITY_UNREADABLE', userMessage: s.activity.problem })
      }
      return {
        fileName: `${safeName(s.labelOf(vaultId))} - activity ${day(Date.now())}.${format}`,
        mimeType: format === 'csv' ? 'text/csv;charset=utf-8' : 'application/json',
        text: exportActivityText(vaultId, entries, format),
      }
    },

    getUnlockCheckIn: async () => unlock.status(await session()),
    enableUnlockCheckIn: async ({ agentKey }) => unlock.enable(await session(), agentKey),
    disableUnlockCheckIn: async () => unlock.disable(await session()),
  }
}
