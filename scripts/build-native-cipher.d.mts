export declare const NATIVE_CIPHER_MODULE: string
export declare function buildNativeCipher(options?: { force?: boolean }): { ok: boolean; message: string }
