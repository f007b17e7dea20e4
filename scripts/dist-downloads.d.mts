export const ELECTRON_RELEASES: string
export const BUILDER_BINARIES: string
export const ELECTRON_HEADERS: string
export const OFFLINE_GUIDE: string

export interface Build {
  platform: string
  arch: string
  targets: string[]
}

export interface Download {
  id: string
  kind: 'headers' | 'electron' | 'tool'
  what: string
  file: string
  url: string
  release?: string
  override?: string
  envVars?: string[]
}

export interface NetworkError {
  summary: string
  host?: string
  url?: string
}

export function plannedBuilds(input: {
  args: string[]
  config: Record<string, unknown>
  hostPlatform: string
  hostArch: string
}): Build[]

export function plannedDownloads(input: {
  electronVersion: string
  builds: Build[]
  hostPlatform: string
  hostArch: string
  nativeRebuild: boolean
  electronDist?: boolean
  env?: Record<string, string | undefined>
}): { downloads: Download[]; unknownTargets: string[] }

export function electronHeaders(electronVersion: string): Download

export function findNetworkError(output: string): NetworkError | undefined

export function failedDownloads(output: string, downloads: Download[], error: NetworkError): Download[]

export function describeDownloadFailure(input: {
  error: NetworkError
  failed: Download[]
  downloads: Download[]
  unknownTargets: string[]
  electronVersion: string
  builderCache: string
  builds: Build[]
}): string

export function requiredNode(
  packages: { name: string; version: string; engines?: { node?: string } }[],
): { minimum: string; declaredBy: string[] } | undefined

export function nodeSatisfies(version: string, minimum: string): boolean

export function nodedirForElectron(input: { nodedir?: string; headersAbi?: string; electronAbi?: string }): {
  keep: boolean
  note?: string
}
