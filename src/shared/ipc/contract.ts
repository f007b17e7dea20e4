// The IPC contract: every channel between the UI and the main process, in one table.
import { z } from 'zod'
import { event, invoke } from './contract-kit'
import { type Settings, SettingsPatchSchema } from './settings'

export type SecretStoreKind = 'keychain' | 'encrypted-file' | 'memory'

export interface AppInfo {
  name: string
  version: string
  platform: string
  /** 'electron' in the desktop app; 'browser' when the UI is served over the loopback bridge. */
  mode: 'electron' | 'browser'
  secretStore: SecretStoreKind
}

const none = z.undefined()

export const invokeChannels = {
  getAppInfo: invoke<AppInfo>()('app:get-info', none),
  getSettings: invoke<Settings>()('settings:get', none),
  updateSettings: invoke<Settings>()('settings:update', SettingsPatchSchema),
} as const

export const eventChannels = {
  settingsChanged: event<Settings>('settings:changed'),
} as const

export type InvokeChannels = typeof invokeChannels
export type EventChannels = typeof eventChannels
export type InvokeName = keyof InvokeChannels
export type EventName = keyof EventChannels
