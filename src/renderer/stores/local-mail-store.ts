// "Mail from the local trial": what the service on this computer would have e-mailed. Read again every
// few seconds while the view is showing, so an invitation or a reminder appears as the service queues it
// (the scheduler queues some by itself). Only the service on this computer answers; main refuses others.
import { create } from 'zustand'
import type { LocalMailbox } from '../../shared/ipc/local-mail'
import { vault } from '../bridge/vault-client'

/** How often the open view reads the outbox again (an in-process read: cheap). */
export const LOCAL_MAIL_POLL_MS = 3000

interface LocalMailState {
  mailbox: LocalMailbox | null
  error: unknown
  /** The message being read, by id. */
  openId: number | null
  load(): Promise<void>
  /** Reads now and then every few seconds; call the returned function to stop. */
  watch(): () => void
  open(id: number | null): void
}

let watchers = 0
let timer: ReturnType<typeof setInterval> | undefined

export const useLocalMailStore = create<LocalMailState>((set, get) => ({
  mailbox: null,
  error: undefined,
  openId: null,
  load: async () => {
    try {
      set({ mailbox: await vault().listLocalMail(), error: undefined })
    } catch (error) {
      set({ mailbox: null, error })
    }
  },
  watch: () => {
    void get().load()
    watchers++
    timer ??= setInterval(() => void get().load(), LOCAL_MAIL_POLL_MS)
    return () => {
      watchers--
      if (watchers === 0 && timer !== undefined) {
        clearInterval(timer)
        timer = undefined
      }
    }
  },
  open: (openId) => set({ openId }),
}))
