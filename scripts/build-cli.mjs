// Bundles the command-line entry points (service, recovery tool) to out/cli for plain Node.
// esbuild takes well under a second, so the npm scripts build on every run instead of tracking staleness.
import { build } from 'esbuild'

const entryPoints = {
  service: 'src/service/cli.ts',
  recover: 'src/main/core/recovery/cli.ts',
}

await build({
  entryPoints,
  outdir: 'out/cli',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
})
