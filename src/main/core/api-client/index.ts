// The Vault Service client; importers use './api-client'.
export * from './transport'
