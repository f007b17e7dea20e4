import type { Plugin } from 'esbuild'

export declare const BUNDLED_DEPENDENCIES: string[]
export declare const externalExceptBundled: Plugin
