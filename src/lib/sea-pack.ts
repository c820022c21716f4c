import { closeSync, openSync, readSync } from 'node:fs';
/**
 * The single executable's asset pack (issue 38 point 1): every file the binary carries (fonts,
 * the console's scripts, worker bundles, lazily loaded libraries, the SQLite addon) as ONE SEA asset.
 *
 * Why one: Node reads the header of every SEA asset at start, and the headers sit between the assets'
 * bytes. On a kernel that maps file pages in large folios (Linux 6.x: 512 KiB here), each header
 * read made half a megabyte of the binary resident: ~150 assets held ~9 MB of RSS no one read. A
 * pack has one header; an asset's bytes are touched only when it is read.
 *
 * Layout: `PHPK1\n`, the index's byte length (u32 little-endian), the index (JSON:
 * `{"<key>": [offset, length]}`, offsets from the end of the index), then the assets' bytes.
 */
const MAGIC = Buffer.from('PHPK1\n', 'latin1');

/**
 * Packs `files` (key → bytes) into one buffer in the layout above (build.sh, src/build/sea-config.ts).
 * @throws Error when a key is empty
 */
export function packAssets(files: ReadonlyMap<string, Uint8Array>): Buffer {
  const index: Record<string, [number, number]> = {};
  let offset = 0;
  for (const [key, bytes] of files) {
    if (!key) throw new Error('sea pack: an asset needs a key');
    index[key] = [offset, bytes.byteLength];
    offset += bytes.byteLength;
  }
  const json = Buffer.from(JSON.stringify(index), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  return Buffer.concat([MAGIC, length, json, ...files.values()]);
}

/**
 * Reads a pack made by `packAssets`: key → a view of its bytes (no copy: inside the single
 * executable the pack is the binary's mapped pages, read-only — never write into a view).
 * @throws Error when `pack` is not a pack
 */
export function readPack(pack: Buffer): ReadonlyMap<string, Buffer> {
  if (pack.length < MAGIC.length + 4 || !pack.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('sea pack: not an asset pack');
  const jsonLength = pack.readUInt32LE(MAGIC.length);
  const start = MAGIC.length + 4 + jsonLength;
  const index = JSON.parse(pack.toString('utf8', MAGIC.length + 4, start)) as Record<string, [number, number]>;
  const out = new Map<string, Buffer>();
  for (const [key, [offset, length]] of Object.entries(index)) {
    if (start + offset + length > pack.length) throw new Error(`sea pack: asset ${key} runs past the pack's end`);
    out.set(key, pack.subarray(start + offset, start + offset + length));
  }
  return out;
}

/**
 * The pack key of the bundle holding a lazily loaded library (src/build/bundle.ts): one bundle per
 * package, so `@scope/name/sub/path.js` → `lib/@scope/name.cjs`, `name/sub` → `lib/name.cjs`.
 * @param spec a bare import specifier
 */
export function libAssetKey(spec: string): string {
  const parts = spec.split('/');
  return `lib/${(spec.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/')}.cjs`;
}

/**
 * Where the pack whose first bytes are `head` starts in the ELF64 little-endian file `file` (the
 * executable: Node's SEA blob is in a PT_NOTE segment), found by reading the file through fs in 256 KiB
 * steps over its note segments. Reads go through the page cache, not through the process's mapping of
 * the binary, so what they read does not stay resident in the process (issue 38 point 1).
 * @param head the pack's first bytes (its magic, index length and index), long enough to be unique
 * @returns the file offset of the pack's first byte, or undefined (not ELF64 LE, no such note, not found)
 */
export function locatePack(file: string, head: Buffer): number | undefined {
  const fd = openSync(file, 'r');
  try {
    const read = (length: number, position: number): Buffer => {
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, position);
      return buf.subarray(0, n);
    };
    const elf = read(64, 0);
    if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) return undefined;
    const phoff = Number(elf.readBigUInt64LE(0x20));
    const phentsize = elf.readUInt16LE(0x36);
    const phnum = elf.readUInt16LE(0x38);
    const PT_NOTE = 4;
    const STEP = 1 << 18;
    // One buffer for every step: the scan holds 256 KiB at a time, not a chunk per step until a GC.
    const buf = Buffer.alloc(STEP + head.length - 1);
    for (let i = 0; i < phnum; i++) {
      const ph = read(phentsize, phoff + i * phentsize);
      if (ph.length < 48 || ph.readUInt32LE(0) !== PT_NOTE) continue;
      const start = Number(ph.readBigUInt64LE(8));
      const end = start + Number(ph.readBigUInt64LE(32));
      // Chunks overlap by head.length - 1 bytes, so a head across a chunk boundary is found.
      for (let at = start; at + head.length <= end; at += STEP) {
        const chunk = buf.subarray(0, readSync(fd, buf, 0, Math.min(buf.length, end - at), at));
        const hit = chunk.indexOf(head);
        if (hit >= 0) return at + hit;
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}
