#!/bin/sh
# Equal-time comparison of training settings (docs/results.md, "Equal-time search settings"): every
# setting trains from zero at the same time, one thread each, each process in its own
# scheduler group (Linux autogroup) so that each gets the same share of the CPU, for the same
# minutes. Then compare the runs' networks (`alphazero eval connect4`, `alphazero arena`).
#
#   scripts/equal-time.sh OUT_DIR "GAME ARGS" MINUTES NAME "OVERRIDES" [NAME "OVERRIDES"]...
#   NICE=19 scripts/equal-time.sh …   every run at autogroup nice 19 (the runs still share
#                                     equally, and give way to builds and tests)
#   CLOCK=cpu scripts/equal-time.sh … MINUTES of each run's own CPU time
#                                     (run.budget_clock = "cpu") instead of the wall clock:
#                                     equal budgets however busy the machine is
#   scripts/equal-time.sh runs/eq "--game connect4" 15 default "" \
#     gumbel16 "--set selfplay.search.gumbel=true --set selfplay.playout_cap.enabled=false --set selfplay.simulations=16"
set -eu
AZ=${ALPHAZERO:-alphazero}
OUT=$1; GAMEARGS=$2; MIN=$3; shift 3
mkdir -p "$OUT"
while [ $# -ge 2 ]; do
  NAME=$1; SETS=$2; shift 2
  # shellcheck disable=SC2086 # GAMEARGS and SETS are word lists
  setsid sh -c "echo ${NICE:-0} > /proc/self/autogroup 2>/dev/null; RAYON_NUM_THREADS=1 exec $AZ train \
    --run '$OUT/$NAME' $GAMEARGS --set selfplay.workers=1 --set run.threads=1 \
    --set run.time_budget_minutes=$MIN --set run.budget_clock=${CLOCK:-wall} --set run.seed=1 $SETS --quiet" > "$OUT/$NAME.log" 2>&1 &
done
wait
