import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

// Issue 33 point 12: the README and docs are read in a clone, where nothing outside the repository
// exists. Every relative link must name a file of the repository (and a heading of it, for #anchors),
// no text may send the reader to ../shared/…, and the README keeps its two quick-start commands.
const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} +(.+)$/gm)) {
    const s = slug(m[1]!);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

test('README and docs link only to files inside the repository, and to headings that exist', () => {
  const broken: string[] = [];
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
    if (text.includes('../shared')) broken.push(`${doc}: mentions ../shared (outside the repository)`);
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1]!;
      if (/^[a-z]+:/i.test(href)) continue;
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, doc) : resolve(dirname(join(ROOT, doc)), path);
      if (relative(ROOT, target).startsWith('..')) broken.push(`${doc}: ${href} is outside the repository`);
      else if (!existsSync(target)) broken.push(`${doc}: ${href} does not exist`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${doc}: ${href} names no heading`);
    }
  }
  assert.deepEqual(broken, []);
});

test("the README's two ways to run Pharos stay as they are", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.match(readme, /```sh\nnpm ci && npm run serve\n```/);
  assert.match(readme, /`tar -xzf pharos-<version>-linux-x64\.tar\.gz && sudo \.\/pharos-<version>-linux-x64\/pharos install-service`/);
  assert.match(readme, /API reference \(served by Pharos itself, no CDN\): <http:\/\/localhost:8080\/docs>/);
});
