export type Runtime = 'node' | 'electron'

/** What a runtime reported after trying to load each native module (or why it could not be asked). */
export interface Probe {
  abi?: string
  version?: string
  modules?: Record<string, { loads: boolean; error?: string }>
  error?: string
}

export type Plan =
  | { action: 'none' }
  | { action: 'rebuild'; target: Runtime; commandLine: string; reasons: string[] }
  | { action: 'fail'; message: string }

export const NATIVE_MODULES: string[]
export const REBUILDS: Record<Runtime, { command: string; args: string[]; dropEnv: string[]; needs: string }>
export function rebuildCommandLine(target: Runtime): string
export function expectedAbi(target: Runtime): string | undefined
export function probeNativeModules(target: Runtime, electronBinary?: string): Probe
export function planNativeModules(input: { target: Runtime; expectedAbi?: string; probe: Probe }): Plan
export function makeNativeModulesLoadable(
  target: Runtime,
  electronBinary?: string,
): { ok: true; rebuilt: boolean } | { ok: false; message: string }
/** As makeNativeModulesLoadable, but a failure prints what to do and exits the process. */
export function ensureNativeModules(target: Runtime): void
