#!/usr/bin/env bash
# Benchmark, not a test: self-play games per hour of one `alphazero train` process with 2
# self-play workers against a learner and 2 `alphazero actor` processes with 1 worker each
# on an S3 server (s3s-fs on loopback), same configuration (the Connect Four defaults, 16
# games a batch, no gating, no solver measure) and network, MINUTES minutes each.
#   bash deploy/bench-roles.sh            (MINUTES=3 by default; needs s3s-fs, see .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${B:-target/release/alphazero}
MINUTES=${MINUTES:-3}
SETS=(--set selfplay.games_per_iteration=16 --set selfplay.parallel_games=16
      --set eval.solver_every=0 --set gating.enabled=false --set run.time_budget_minutes=0
      --set run.iterations=100000)
tmp=$(mktemp -d)
trap 'kill $s3 2>/dev/null || true; rm -rf "$tmp"' EXIT
games_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total_games"])' "$1"; }

start=$(date +%s.%N)
"$B" train --game connect4 --run "$tmp/train" --quiet --minutes "$MINUTES" "${SETS[@]}" \
  --set selfplay.workers=2 2>"$tmp/train.log"
end=$(date +%s.%N)
g=$(games_of "$tmp/train/state/run.json")
python3 - "$g" "$start" "$end" "$tmp/train/metrics.jsonl" <<'PY'
import json, sys
g, s, e, m = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = [json.loads(l) for l in open(m)]
sp = sum(r["selfplay_s"] for r in rows)
print(f"train, 2 workers: {g} games in {e - s:.0f} s: {g / (e - s) * 3600:.0f} games/hour "
      f"end to end, {g / sp * 3600:.0f} games/hour in its self-play stage")
PY

mkdir -p "$tmp/s3/bench"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
s3s-fs --host 127.0.0.1 --port "$port" --access-key bench --secret-key bench-secret "$tmp/s3" \
  >/dev/null 2>&1 & s3=$!
sleep 1
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_DEFAULT_REGION=us-east-1 \
  AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ALLOW_HTTP=true
url=s3://bench/run
start=$(date +%s.%N)
"$B" learner --storage "$url" --game connect4 --quiet --minutes "$MINUTES" "${SETS[@]}" \
  2>"$tmp/learner.log" & learner=$!
until [ -f "$tmp/s3/bench/run/config.toml" ]; do sleep 0.2; done
"$B" actor --storage "$url" --workers 1 --quiet 2>"$tmp/a1.log" & a1=$!
"$B" actor --storage "$url" --workers 1 --quiet 2>"$tmp/a2.log" & a2=$!
wait "$learner"
end=$(date +%s.%N)
kill -TERM "$a1" "$a2"; wait "$a1" "$a2" || true
g=$(games_of "$tmp/s3/bench/run/state/run.json")
p=$(cat "$tmp/a1.log" "$tmp/a2.log" | grep -o 'published [^:]*: [0-9]* games' | awk '{s+=$3} END {print s+0}')
python3 - "$g" "$p" "$start" "$end" <<'PY'
import sys
g, p, s, e = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f"learner + 2 actors, 1 worker each: {p} games published ({g} taken by committed "
      f"iterations) in {e - s:.0f} s: {p / (e - s) * 3600:.0f} games/hour published, "
      f"{g / (e - s) * 3600:.0f} games/hour trained on")
PY
