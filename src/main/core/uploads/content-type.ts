// MIME type of a file to upload, detected from the plaintext (magic bytes through file-type) and
// falling back to the extension: the service only ever sees ciphertext, so it cannot detect it.
import { contentTypeFromName, FALLBACK_CONTENT_TYPE } from '../../../shared/content-types'

/** Magic bytes first (they do not lie about the format), then the extension, then octet-stream. */
export async function detectContentType(path: string): Promise<string> {
  // Loaded with the first upload: file-type and its format tables are ~3.5 MB an app that sends
  // nothing need not hold.
  const { fileTypeFromFile } = await import('file-type')
  try {
    const detected = await fileTypeFromFile(path)
    if (detected?.mime) return detected.mime
  } catch {
    // Unreadable header: the extension still tells something; read errors surface at upload.
  }
  return contentTypeFromName(path) ?? FALLBACK_CONTENT_TYPE
}
