#!/usr/bin/env bash
# The test command: sets up what the tests need when it is missing or stale,
# then runs every test (the Go packages, the VS Code extension's unit tests,
# its render check and its end-to-end suite in code-server). Run it from
# anywhere in a clone; a second run skips the set-up in well under a second.
#
#   ./test.sh          set up, then test
#   ./test.sh --setup  set up only (CI does this before it adds a CPU load)
#
# Set-up: `npm ci` in each folder of the repository with a package.json
# (found with git, so a new test client is picked up) whose node_modules is
# missing or was installed from another package-lock.json, and code-server
# for the end-to-end suite (editors/vscode/test/e2e/install-code-server.sh,
# which keeps a finished install). `go test ./...` needs none of it.
set -euo pipefail
cd "$(dirname "$0")"

setup_only=false
case "${1:-}" in
"") ;;
--setup) setup_only=true ;;
*)
	echo "usage: ./test.sh [--setup]" >&2
	exit 2
	;;
esac

# The lock file a folder's node_modules was installed from, by its hash:
# written after a successful npm ci, so an interrupted one installs again.
stamp=.aiq-installed-lock
manifests=$(git ls-files -- 'package.json' '*/package.json' 2>/dev/null) ||
	manifests=$(find . -name package.json -not -path '*/node_modules/*' -not -path '*/.code-server/*' | sed 's|^\./||')
for manifest in $manifests; do
	dir=$(dirname "$manifest")
	lock=$dir/package-lock.json
	if [ ! -f "$lock" ]; then
		echo "test.sh: $dir has a package.json without a package-lock.json: npm ci needs one" >&2
		exit 1
	fi
	want=$(sha256sum "$lock" | cut -d' ' -f1)
	if [ "$(cat "$dir/node_modules/$stamp" 2>/dev/null)" != "$want" ]; then
		echo "== npm ci ($dir)"
		npm --prefix "$dir" ci --no-audit --no-fund
		echo "$want" >"$dir/node_modules/$stamp"
	fi
done

editors/vscode/test/e2e/install-code-server.sh

if $setup_only; then
	exit 0
fi

# The README's test command, exactly.
go test -race -timeout 30m ./... && npm --prefix editors/vscode test && npm --prefix editors/vscode run render-check && npm --prefix editors/vscode run e2e
