// What the vault manifest (docs/FORMAT.md 3.10) costs per backup: its exact encrypted length for a
// vault of N files laid out as a person's folders are (a few top folders, years, varied names), and
// the credits it adds. A manifest rides in the batch's last bundle (a lone small file goes as a
// bundle of one), so there it adds only its bytes to that bundle's price; a batch with no small file
// (one large file) sends it as a blob of its own, at the 1-credit minimum or more.
// Last line: JSON [{ files, manifestBytes, bytesPerFile, creditsAlone, extraCreditsInBundle }].
import { uploadCostCredits } from '../src/shared/api'
import { encryptedManifestLength } from '../src/vault-format'

const TOP = ['Documents', 'Photos', 'Taxes', 'Letters', 'Medical', 'House']
const WORDS = ['scan', 'invoice', 'letter', 'holiday', 'contract', 'notes', 'receipt', 'statement']
const EXTENSIONS = ['.pdf', '.jpg', '.txt', '.docx', '.png']

/** A plausible relative path, unique by its number. */
function pathOf(i: number): string {
  const top = TOP[i % TOP.length]!
  const year = 2010 + (i % 16)
  const word = WORDS[(i >> 3) % WORDS.length]!
  return `${top}/${year}/${word} ${String(i).padStart(6, '0')}${EXTENSIONS[i % EXTENSIONS.length]}`
}

/** Credits a bundle of `bytes` costs more with `extra` bytes added (averaged over bundle sizes). */
function averageExtraInBundle(extra: number): number {
  let total = 0
  const samples = 1000
  // Bundles of a few kB to 64 MiB, spread evenly: the extra bytes cross a credit boundary in a
  // fraction of them.
  for (let k = 0; k < samples; k++) {
    const bundle = Math.round(4096 + (k / samples) * 64 * 1024 * 1024)
    total += uploadCostCredits(bundle + extra) - uploadCostCredits(bundle)
  }
  return total / samples
}

const rows = [1, 10, 100, 1_000, 10_000, 50_000, 100_000].map((files) => {
  const paths = Array.from({ length: files }, (_, i) => pathOf(i))
  const manifestBytes = encryptedManifestLength(paths)
  return {
    files,
    manifestBytes,
    bytesPerFile: Math.round(manifestBytes / files),
    creditsAlone: uploadCostCredits(manifestBytes),
    extraCreditsInBundle: Number(averageExtraInBundle(manifestBytes).toFixed(3)),
  }
})

console.log('files      manifest bytes   per file   credits alone   extra credits in a bundle (average)')
for (const r of rows) {
  console.log(
    `${String(r.files).padStart(7)}  ${String(r.manifestBytes).padStart(15)}  ${String(r.bytesPerFile).padStart(9)}  ${String(r.creditsAlone).padStart(14)}   ${r.extraCreditsInBundle}`,
  )
}
console.log(JSON.stringify(rows))
