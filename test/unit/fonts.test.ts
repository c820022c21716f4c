import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FONTS } from '../../src/domain/statuspage.ts';
import { FONT_FILES, fontFaceCss, fontFile, fontStack } from '../../src/http/pages/fonts.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MODULE = fileURLToPath(new URL('../../src/http/pages/fonts.ts', import.meta.url));

test('every shipped font file exists and reads as woff2', () => {
  assert.ok(FONT_FILES.length > 0);
  assert.equal(new Set(FONT_FILES.map((f) => f.file)).size, FONT_FILES.length, 'file names are unique');
  for (const f of FONT_FILES) {
    assert.ok(existsSync(`${ROOT}node_modules/${f.pkgFile}`), f.pkgFile);
    assert.ok(f.pkgFile.endsWith(`/files/${f.file}`), f.pkgFile);
    assert.match(f.file, new RegExp(`-${f.subset}-${f.weight}-normal\\.woff2$`));
    const bytes = fontFile(f.file);
    assert.ok(bytes, f.file);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'wOF2', f.file);
    assert.equal(fontFile(f.file), bytes, 'cached after the first read');
  }
});

test('every font but system-ui has a latin 400 file and a bold weight', () => {
  for (const font of FONTS) {
    const files = FONT_FILES.filter((f) => f.font === font);
    if (font === 'system-ui') {
      assert.deepEqual(files, []);
      continue;
    }
    assert.ok(files.some((f) => f.subset === 'latin' && f.weight === 400), `${font} latin 400`);
    assert.ok(files.some((f) => f.subset === 'latin' && f.weight >= 600), `${font} latin 600/700`);
  }
});

test('every shipped subset is complete for both weights of its font', () => {
  for (const font of FONTS) {
    const files = FONT_FILES.filter((f) => f.font === font);
    const weights = new Set(files.map((f) => f.weight));
    const subsets = new Set(files.map((f) => f.subset));
    assert.equal(files.length, weights.size * subsets.size, font);
  }
});

test('fontFile refuses names that are not shipped', () => {
  for (const name of ['../../package.json', '../inter-latin-400-normal.woff2', 'inter-latin-400-normal.woff', 'inter-greek-400-normal.woff2', '', 'x']) {
    assert.equal(fontFile(name), undefined, name);
  }
});

test('fontFaceCss: one rule per file with url and unicode-range', () => {
  const css = fontFaceCss('Inter', '/x/');
  assert.ok(css.includes('url(/x/inter-latin-400-normal.woff2)'));
  assert.ok(css.includes("format('woff2')"));
  assert.ok(css.includes("font-family:'Inter'"));
  assert.ok(css.includes('font-display:swap'));
  assert.match(css, /unicode-range:U\+0000-00FF,/);
  assert.equal(css.match(/@font-face/g)?.length, FONT_FILES.filter((f) => f.font === 'Inter').length);
  assert.equal(fontFaceCss('system-ui', '/x/'), '');
  assert.throws(() => fontFaceCss('Inter', '/x)/'), RangeError);
});

test('unicode ranges match each package', () => {
  for (const font of FONTS) {
    for (const f of FONT_FILES.filter((x) => x.font === font)) {
      const pkg = f.pkgFile.split('/files/')[0]!;
      const ranges = JSON.parse(readFileSync(`${ROOT}node_modules/${pkg}/unicode.json`, 'utf8')) as Record<string, string>;
      assert.ok(fontFaceCss(font, '/').includes(`url(/${f.file}) format('woff2');unicode-range:${ranges[f.subset]}}`), f.file);
    }
  }
});

test('fontStack', () => {
  assert.equal(fontStack('Inter'), `'Inter', system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`);
  assert.match(fontStack('Merriweather'), /^'Merriweather', .*serif$/);
  assert.doesNotMatch(fontStack('Merriweather'), /sans-serif/);
  assert.equal(fontStack('system-ui'), 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif');
});

test('--sea-assets lists every file with an existing path', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', MODULE, '--sea-assets'], { cwd: ROOT, encoding: 'utf8' });
  const assets = JSON.parse(out) as Record<string, string>;
  assert.deepEqual(Object.keys(assets).sort(), FONT_FILES.map((f) => `font/${f.file}`).sort());
  for (const path of Object.values(assets)) assert.ok(existsSync(`${ROOT}${path}`), path);
});

test('importing the module prints nothing', () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', `await import(${JSON.stringify(MODULE)})`, '--', '--sea-assets'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(out, '');
});
