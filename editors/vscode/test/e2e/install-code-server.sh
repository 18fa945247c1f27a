#!/usr/bin/env bash
# Installs code-server (VS Code in the browser) for the end-to-end suite, in
# editors/vscode/.code-server/VERSION, which git ignores; nothing is cached
# anywhere else. A finished install is kept: running this again only prints
# where the binary is. It needs the npm registry and Debian's packages, not
# the rest of the internet.
#
# code-server 4.100.x is the last that runs on Node 20. Its own postinstall
# would download ripgrep from GitHub, so the steps are done here one by one,
# with Debian's rg in its place.
set -euo pipefail

version=${AIQ_CODE_SERVER_VERSION:-4.100.3}
root=$(cd "$(dirname "$0")/../.." && pwd)/.code-server
prefix=$root/$version
pkg=$prefix/lib/node_modules/code-server
vscode=$pkg/lib/vscode

if [ -f "$prefix/.installed" ]; then
	echo "code-server $version is installed: $prefix/bin/code-server"
	exit 0
fi

# Headers for the native modules (kerberos, keymapping, secrets), a compiler
# for node-gyp, and ripgrep for VS Code's search.
need=(libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep build-essential python3 pkg-config)
missing=()
for p in "${need[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing Debian packages: ${missing[*]}"
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

started=$(date +%s)
rm -rf "$prefix" # a half-finished earlier attempt
mkdir -p "$prefix"
# Root runs npm here (CI does); unsafe_perm lets the build scripts run as root.
# npm's cache (npx's node-gyp too) stays in here as well.
export npm_config_unsafe_perm=true npm_config_audit=false npm_config_fund=false
export npm_config_cache=$root/npm-cache
# node-gyp would download Node's headers from nodejs.org; use the installed ones.
if [ -f /usr/include/node/node_api.h ]; then
	export npm_config_nodedir=${npm_config_nodedir:-/usr}
fi

echo "== code-server $version from npm (scripts off)"
npm install --global --prefix "$prefix" --ignore-scripts "code-server@$version"

echo "== argon2 (code-server's password hashing, native)"
(cd "$pkg" && npm rebuild argon2)

echo "== VS Code's own dependencies"
(cd "$vscode" && npm install --omit=dev --ignore-scripts)

# @vscode/ripgrep's postinstall downloads rg from GitHub unless the binary
# is there already.
echo "== Debian's rg in place of @vscode/ripgrep's download"
mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"

# node-pty builds with node-gyp through npx: yes answers its prompt.
echo "== native modules (node-pty, spdlog, kerberos, ...)"
(cd "$vscode" && npm_config_yes=true npm rebuild)

# What code-server's postinstall.sh does after installing.
echo "== code-server's postinstall links"
rm -rf "$vscode/node_modules.asar"
ln -s node_modules "$vscode/node_modules.asar"
ln -sf code-linux.sh "$vscode/bin/remote-cli/code-server"
ln -sf browser-linux.sh "$vscode/bin/helpers/browser.sh"

# code-server writes a default config on any start: keep it in here.
XDG_CONFIG_HOME=$prefix/.config XDG_DATA_HOME=$prefix/.local "$prefix/bin/code-server" --version
touch "$prefix/.installed"
echo "code-server $version installed in $(($(date +%s) - started)) s: $prefix/bin/code-server"
