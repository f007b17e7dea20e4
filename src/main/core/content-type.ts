// MIME type of a file to upload, detected from the plaintext (magic bytes through file-type) and
// falling back to the extension: the service only ever sees ciphertext, so it cannot detect it.
import { extname } from 'node:path'
import { fileTypeFromFile } from 'file-type'

const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf',
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  epub: 'application/epub+zip',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  svg: 'image/svg+xml',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  bmp: 'image/bmp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
  webm: 'video/webm',
  avi: 'video/x-msvideo',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  opus: 'audio/opus',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  kdbx: 'application/x-keepass2',
}

export const FALLBACK_CONTENT_TYPE = 'application/octet-stream'

export function contentTypeFromName(filename: string): string | undefined {
  return BY_EXTENSION[extname(filename).slice(1).toLowerCase()]
}

/** Magic bytes first (they do not lie about the format), then the extension, then octet-stream. */
export async function detectContentType(path: string): Promise<string> {
  try {
    const detected = await fileTypeFromFile(path)
    if (detected?.mime) return detected.mime
  } catch {
    // Unreadable header: the extension still tells something; read errors surface at upload.
  }
  return contentTypeFromName(path) ?? FALLBACK_CONTENT_TYPE
}
