/**
 * Colour contrast as WCAG 2.x defines it (relative luminance, ratio (L1 + 0.05) / (L2 + 0.05);
 * https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), for colours a person chooses (a status page's
 * accent): text in that colour is made readable by mixing it toward black or white just enough.
 */

type Rgb = [number, number, number];

/** `#rgb` or `#rrggbb` as 0–255 channels; throws Error on anything else. */
export function parseHex(hex: string): Rgb {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new Error(`not a hex colour: ${hex}`);
  const h = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

const hexOf = (c: Rgb): string => `#${c.map((x) => Math.round(x).toString(16).padStart(2, '0')).join('')}`;

/** WCAG relative luminance (0 black … 1 white) of a hex colour. */
export function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((v) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two hex colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/**
 * `fg` mixed toward black (light backgrounds) or white (dark ones) in 5 % steps until it reaches
 * `min` (default 4.6, a little over AA's 4.5 for normal text) against every colour of `backgrounds`;
 * `fg` itself when it already does. Returns `#rrggbb`.
 */
export function readableOn(fg: string, backgrounds: string[], min = 4.6): string {
  const toward: Rgb = luminance(backgrounds[0]!) > 0.4 ? [0, 0, 0] : [255, 255, 255];
  const base = parseHex(fg);
  for (let step = 0; step <= 20; step++) {
    const t = step / 20;
    const hex = hexOf(base.map((v, i) => v + (toward[i]! - v) * t) as Rgb);
    if (backgrounds.every((bg) => contrastRatio(hex, bg) >= min)) return hex;
  }
  return hexOf(toward);
}

/** The text colour (white or near-black `#111418`) that reads better on a `bg` fill. */
export const textOn = (bg: string): string => (contrastRatio('#ffffff', bg) >= contrastRatio('#111418', bg) ? '#ffffff' : '#111418');
