#!/usr/bin/env bash
# Benchmark, not a test: self-play games per hour of one `alphazero train` process with 2
# self-play workers, then a learner with 1, 2 and 4 `alphazero actor` processes of 1 worker
# each on an S3 server (s3s-fs on loopback), same configuration (the Connect Four defaults,
# 16 games a batch, no gating, no solver measure) and network, MINUTES minutes each: a table
# of the learner's iterations (their size, the champion lag of the batches they took, the
# backlog left waiting, the stale games skipped) shows whether its pace stays bounded.
#   bash deploy/bench-roles.sh   (MINUTES=3, ACTORS="1 2 4" by default; needs s3s-fs, see .ci/run)
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
echo "| actors | iterations | games an iteration (min–max) | champion lag of taken batches (max) | backlog after the take (max games) | stale games skipped | games/hour published | games/hour trained on |"
echo "|---|---|---|---|---|---|---|---|"
for n in ${ACTORS:-1 2 4}; do
  url=s3://bench/run-$n
  start=$(date +%s.%N)
  "$B" learner --storage "$url" --game connect4 --quiet --minutes "$MINUTES" "${SETS[@]}" \
    2>"$tmp/learner-$n.log" & learner=$!
  until [ -f "$tmp/s3/bench/run-$n/config.toml" ]; do sleep 0.2; done
  actors=()
  for i in $(seq "$n"); do
    "$B" actor --storage "$url" --workers 1 --quiet 2>"$tmp/a$n-$i.log" & actors+=($!)
  done
  wait "$learner"
  end=$(date +%s.%N)
  kill -TERM "${actors[@]}"; wait "${actors[@]}" || true
  p=$(cat "$tmp"/a"$n"-*.log | grep -o 'published [^:]*: [0-9]* games' | awk '{s+=$3} END {print s+0}')
  python3 - "$n" "$p" "$start" "$end" "$tmp/s3/bench/run-$n/metrics.jsonl" <<'PY'
import json, sys
n, p, s, e, m = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
rows = [json.loads(l) for l in open(m)]
games = [r["games"] for r in rows]
intake = [r.get("intake") or {} for r in rows]
lag = max((i.get("champion_lag_max", 0) for i in intake), default=0)
backlog = max((i.get("backlog_games", 0) for i in intake), default=0)
stale = sum(i.get("stale_games", 0) for i in intake)
print(f"| {n} | {len(rows)} | {min(games)}–{max(games)} | {lag} | {backlog} | {stale} | "
      f"{p / (e - s) * 3600:.0f} | {sum(games) / (e - s) * 3600:.0f} |")
PY
done
