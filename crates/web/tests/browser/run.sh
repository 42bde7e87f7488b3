#!/usr/bin/env bash
# Headless-browser test of the alphazero-rs web page.
#
#   crates/web/tests/browser/run.sh [SERVER COMMAND...]
#
# Starts the server on 127.0.0.1 at a free port by running SERVER COMMAND with the address
# (`127.0.0.1:PORT`) appended as its last argument; without a command it runs
#   cargo run --release -p alphazero-web --example serve_uniform -- 127.0.0.1:PORT
# (from the repository root). Then starts /usr/bin/chromedriver at another free port and runs
# drive.py, which plays Connect Four, Gomoku and Xiangqi moves by clicking the board in headless
# /usr/bin/chromium and checks the engine's answers, heatmap, value and move list in the DOM.
#
# With ALPHAZERO_WEB_EXPECT_MODEL=NAME (the file name of a `serve --model` network for Connect
# Four), drive.py also checks that the page plays and names that file.
# Needs: python3 (standard library only), Debian's chromium and chromium-driver.
# Screenshots go to $ALPHAZERO_WEB_ARTIFACTS (default: a new temporary directory, printed).
# Exit status 0 when every check passed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
chromedriver="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
for tool in python3 "$chromedriver" "$CHROMIUM"; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (apt-get install -y chromium chromium-driver)" >&2; exit 2; }
done

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

art="${ALPHAZERO_WEB_ARTIFACTS:-$(mktemp -d -t alphazero-web-browser-XXXXXX)}"
mkdir -p "$art"
port="$(free_port)"
addr="127.0.0.1:$port"
if [ "$#" -gt 0 ]; then
  server=("$@" "$addr")
else
  server=(cargo run --release -p alphazero-web --example serve_uniform -- "$addr")
fi

server_pid=""
driver_pid=""
cleanup() {
  # Each was started in its own process group by setsid: end that group only.
  [ -n "$driver_pid" ] && kill -- "-$driver_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill -- "-$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "run.sh: starting server: ${server[*]}"
(cd "$root" && exec setsid "${server[@]}") >"$art/server.log" 2>&1 &
server_pid=$!

# Wait for the page (a cargo build may come first).
python3 - "$addr" "$server_pid" <<'PY'
import os, sys, time, urllib.request
addr, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 1200
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("run.sh: the server exited before answering (see server.log)")
    try:
        with urllib.request.urlopen(f"http://{addr}/", timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        time.sleep(0.3)
sys.exit("run.sh: the server did not answer in time")
PY
echo "run.sh: server up at http://$addr/"

dport="$(free_port)"
setsid "$chromedriver" --port="$dport" >"$art/chromedriver.log" 2>&1 &
driver_pid=$!
python3 - "$dport" <<'PY'
import sys, time, urllib.request
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/status", timeout=2):
            sys.exit(0)
    except Exception:
        time.sleep(0.2)
sys.exit("run.sh: chromedriver did not start")
PY

status=0
python3 "$here/drive.py" "http://$addr" "http://127.0.0.1:$dport" "$art" || status=$?
echo "run.sh: screenshots and logs in $art"
exit "$status"
