/**
 * A node:test reporter (test/support/run-tests.ts adds it beside `spec`): one line per test file,
 * slowest first, `<seconds> s  <path>`, from node:test's per-file summary event (its duration_ms).
 */
export default async function* durations(source: AsyncIterable<{ type: string; data: { file?: string; duration_ms?: number } }>): AsyncGenerator<string> {
  const rows: Array<[number, string]> = [];
  for await (const event of source) {
    if (event.type === 'test:summary' && event.data.file) rows.push([event.data.duration_ms ?? 0, event.data.file]);
  }
  rows.sort((a, b) => b[0] - a[0]);
  const cwd = `${process.cwd()}/`;
  for (const [ms, file] of rows) yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.startsWith(cwd) ? file.slice(cwd.length) : file}\n`;
}
