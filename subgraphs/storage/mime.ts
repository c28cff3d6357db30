// MIME rules of buckets: `allowed_mime_types` patterns (`image/*`, `application/pdf`), the
// fallback type of a filename's extension, and which types a document library edits in a browser.

/** True when `mime` matches one of `patterns` (or there are none). */
export function mimeAllowed(mime: string, patterns: string[]): boolean {
  if (patterns.length === 0) return true;
  const m = mime.toLowerCase();
  return patterns.some((p) => {
    const q = p.toLowerCase();
    if (q === '*/*' || q === '*') return true;
    if (q.endsWith('/*')) return m.startsWith(q.slice(0, -1));
    return m === q;
  });
}

export const MIME_PATTERN = /^([a-z0-9!#$&^_.+-]+|\*)\/([a-z0-9!#$&^_.+-]+|\*)$/i;

const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  md: 'text/markdown',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function extensionOf(filename: string): string {
  const m = /\.([A-Za-z0-9]{1,10})$/.exec(filename);
  return m ? m[1].toLowerCase() : '';
}

export function mimeFromFilename(filename: string): string | undefined {
  return BY_EXTENSION[extensionOf(filename)];
}

/** Word-processing, spreadsheet and presentation files (seed 2 "Edit restriction"). */
const EDITABLE_EXTENSIONS = new Set(['doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx']);

export function isDocEditable(filename: string): boolean {
  return EDITABLE_EXTENSIONS.has(extensionOf(filename));
}
