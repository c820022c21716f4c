import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { FONTS } from '../../domain/statuspage.ts';
import { bundledFile, isSea } from '../../lib/sea.ts';

/**
 * Status page fonts (API.md §2.9 `font`). Installs are air-gapped, so Pharos serves the font files
 * itself: they come from the `@fontsource/<id>` packages (SEA assets `font/<file>` in the binary,
 * see build.sh) and are never fetched from a CDN.
 *
 * Only what a status page needs ships: normal style, a regular and a bold-ish weight, woff2 (every
 * browser that runs the page reads it), and the latin, latin-ext and cyrillic subsets (the page
 * languages). Browsers download a subset only when the page uses a character of its unicode-range.
 */

type FontName = (typeof FONTS)[number];

/** A subset Pharos ships; other Fontsource subsets (greek, vietnamese, …) are left out. */
export type FontSubset = 'latin' | 'latin-ext' | 'cyrillic';

/** One shipped font file. */
export interface FontFile {
  /** The font as named in a status page's settings, e.g. `'Open Sans'`. */
  font: FontName;
  /** File name, unique across fonts, e.g. `'open-sans-latin-400-normal.woff2'`; the URL's last segment. */
  file: string;
  /** `<package>/<path>` of the file in node_modules, e.g. `'@fontsource/open-sans/files/open-sans-latin-400-normal.woff2'`. */
  pkgFile: string;
  /** CSS font-weight (400 or 600; 700 for Lato, which has no 600). */
  weight: number;
  subset: FontSubset;
}

// Fontsource package id, weights and subsets of each font. Written out rather than read from the
// disk: the binary has no node_modules, and build.sh's asset list comes from this table.
const TABLE: Record<Exclude<FontName, 'system-ui'>, { id: string; weights: readonly number[]; subsets: readonly FontSubset[] }> = {
  Lato: { id: 'lato', weights: [400, 700], subsets: ['latin', 'latin-ext'] },
  Manrope: { id: 'manrope', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Inter: { id: 'inter', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  'Open Sans': { id: 'open-sans', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Montserrat: { id: 'montserrat', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Poppins: { id: 'poppins', weights: [400, 600], subsets: ['latin', 'latin-ext'] },
  Roboto: { id: 'roboto', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Raleway: { id: 'raleway', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Nunito: { id: 'nunito', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  Merriweather: { id: 'merriweather', weights: [400, 600], subsets: ['latin', 'latin-ext', 'cyrillic'] },
  'DM Sans': { id: 'dm-sans', weights: [400, 600], subsets: ['latin', 'latin-ext'] },
  'Work Sans': { id: 'work-sans', weights: [400, 600], subsets: ['latin', 'latin-ext'] },
};

// Copied from the packages' unicode.json (the same in every @fontsource package, v5.x; a unit test
// compares them), so a browser fetches a subset file only for characters it covers.
const UNICODE_RANGES: Record<FontSubset, string> = {
  latin: 'U+0000-00FF,U+0131,U+0152-0153,U+02BB-02BC,U+02C6,U+02DA,U+02DC,U+0304,U+0308,U+0329,U+2000-206F,U+20AC,U+2122,U+2191,U+2193,U+2212,U+2215,U+FEFF,U+FFFD',
  'latin-ext': 'U+0100-02BA,U+02BD-02C5,U+02C7-02CC,U+02CE-02D7,U+02DD-02FF,U+0304,U+0308,U+0329,U+1D00-1DBF,U+1E00-1E9F,U+1EF2-1EFF,U+2020,U+20A0-20AB,U+20AD-20C0,U+2113,U+2C60-2C7F,U+A720-A7FF',
  cyrillic: 'U+0301,U+0400-045F,U+0490-0491,U+04B0-04B1,U+2116',
};

const SYSTEM_STACK = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const SERIF_STACK = 'Georgia, "Times New Roman", serif';

/**
 * Every font file Pharos ships (each is a SEA asset `font/<file>`): for each font but system-ui,
 * weights × subsets of the table above, normal style, woff2 only; grouped by font, then weight,
 * then subset (latin, latin-ext, cyrillic).
 */
export const FONT_FILES: readonly FontFile[] = Object.freeze(
  (Object.entries(TABLE) as Array<[Exclude<FontName, 'system-ui'>, (typeof TABLE)[keyof typeof TABLE]]>).flatMap(([font, { id, weights, subsets }]) =>
    weights.flatMap((weight) =>
      subsets.map((subset) => {
        const file = `${id}-${subset}-${weight}-normal.woff2`;
        return Object.freeze({ font, file, pkgFile: `@fontsource/${id}/files/${file}`, weight, subset });
      }),
    ),
  ),
);

const BY_FILE = new Map(FONT_FILES.map((f) => [f.file, f]));
const cache = new Map<string, Buffer>();

/**
 * `@font-face` rules (one per shipped file of the font, newline-separated) pointing at
 * `<urlPrefix><file>`; '' for 'system-ui', which needs no file.
 * @param urlPrefix prefix of the font URLs, e.g. `'/status/assets/fonts/'` (ends with '/' unless
 *   the caller wants otherwise); it goes into an unquoted CSS `url()`
 * @throws RangeError when urlPrefix holds whitespace, quotes, parentheses or a backslash, which
 *   would break out of `url()`
 */
export function fontFaceCss(font: FontName, urlPrefix: string): string {
  if (/[\s"'()\\]/.test(urlPrefix)) throw new RangeError(`font URL prefix must not contain whitespace, quotes, parentheses or backslashes: ${JSON.stringify(urlPrefix)}`);
  return FONT_FILES.filter((f) => f.font === font)
    .map(
      (f) =>
        `@font-face{font-family:'${f.font}';font-style:normal;font-display:swap;font-weight:${f.weight};` +
        `src:url(${urlPrefix}${f.file}) format('woff2');unicode-range:${UNICODE_RANGES[f.subset]}}`,
    )
    .join('\n');
}

/**
 * CSS `font-family` value for the font: the quoted font name, then the system sans-serif stack
 * (Georgia/serif for Merriweather), e.g. `'Inter', system-ui, -apple-system, "Segoe UI", Roboto,
 * sans-serif`; for 'system-ui' the system stack alone.
 */
export function fontStack(font: FontName): string {
  if (font === 'system-ui') return SYSTEM_STACK;
  return `'${font}', ${font === 'Merriweather' ? SERIF_STACK : SYSTEM_STACK}`;
}

/**
 * Bytes of a shipped font file, read once (SEA asset `font/<file>` in the binary, the package file
 * in the source tree) and then kept in memory (all files together are a few MB).
 * @param file a `FontFile.file` name, e.g. `'inter-latin-400-normal.woff2'`
 * @returns undefined for any name not in FONT_FILES (so `../x` and the like never reach the disk)
 * @throws Error from the read when a listed file is missing (a broken install or build)
 */
export function fontFile(file: string): Buffer | undefined {
  const entry = BY_FILE.get(file);
  if (!entry) return undefined;
  let bytes = cache.get(file);
  if (!bytes) cache.set(file, (bytes = bundledFile(`font/${file}`, entry.pkgFile)));
  return bytes;
}

// `node --import tsx src/http/pages/fonts.ts --sea-assets` prints the SEA assets build.sh adds:
// { "font/<file>": "node_modules/<pkgFile>", … }. Never inside the binary: there both
// import.meta.url and argv[1] name the executable, so the check alone would match.
function runDirectly(): boolean {
  const entry = process.argv[1];
  if (isSea() || !entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (runDirectly()) {
  if (process.argv.includes('--sea-assets')) {
    process.stdout.write(`${JSON.stringify(Object.fromEntries(FONT_FILES.map((f) => [`font/${f.file}`, `node_modules/${f.pkgFile}`])), null, 2)}\n`);
  } else {
    process.stderr.write('usage: node --import tsx src/http/pages/fonts.ts --sea-assets\n');
    process.exitCode = 2;
  }
}
