// Where each recovered file goes below the output folder on this computer. The naming rules (Windows'
// mapping, collisions, `name (2)`) are shared/portable-names.ts's, which the heir's recovery page uses too.
import { resolve, sep } from 'node:path'
import { confinedSegments, windowsSafeSegment } from '../shared/portable-names'

export {
  NAME_MAX_BYTES,
  numberedName,
  OutputNames,
  type PlacedName,
  portableKey,
  renameNote,
  windowsSafeSegment,
} from '../shared/portable-names'

/**
 * outDir joined with a '/'-separated relative path, or null if the path could leave outDir. On
 * Windows, each segment is first made a name Windows can hold.
 */
export function confinedPath(
  outDir: string,
  relativePath: string,
  platform: NodeJS.Platform = process.platform,
): string | null {
  const segments = confinedSegments(relativePath)
  if (!segments) return null
  const root = resolve(outDir)
  const target = resolve(root, ...(platform === 'win32' ? segments.map(windowsSafeSegment) : segments))
  return target.startsWith(root + sep) ? target : null
}
