export function electronBinaryPath(): string | undefined
