#!/bin/sh
# Equal-time comparison of training settings (docs/learning-efficiency.md): every
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
[ $# -ge 5 ] || { echo "usage: $0 OUT_DIR \"GAME ARGS\" MINUTES NAME \"OVERRIDES\" [NAME \"OVERRIDES\"]..." >&2; exit 2; }
OUT=$1; GAMEARGS=$2; MIN=$3; shift 3
[ $(($# % 2)) -eq 0 ] || { echo "$0: every NAME needs its OVERRIDES (\"\" for none); the last, $(eval echo \$$#), has none" >&2; exit 2; }
case ${CLOCK:-wall} in wall|cpu) ;; *) echo "$0: CLOCK must be wall or cpu, got ${CLOCK}" >&2; exit 2 ;; esac
# One command line per run; each is checked with --dry-run (which validates every option and
# writes nothing) before any starts, so that a typo stops the comparison instead of one member.
cmd() { echo "RAYON_NUM_THREADS=1 exec $AZ train --run '$OUT/$1' $GAMEARGS --set selfplay.workers=1 \
  --set run.threads=1 --set run.time_budget_minutes=$MIN --set run.budget_clock=${CLOCK:-wall} \
  --set run.seed=1 $2 --quiet"; }
i=0
for a in "$@"; do
  i=$((i + 1))
  if [ $((i % 2)) -eq 1 ]; then NAME=$a; continue; fi
  if ! err=$(sh -c "$(cmd "$NAME" "$a") --dry-run" 2>&1 >/dev/null); then
    echo "$0: run $NAME: $err" >&2; exit 2
  fi
done
mkdir -p "$OUT"
PIDS=""
while [ $# -ge 2 ]; do
  NAME=$1; SETS=$2; shift 2
  # shellcheck disable=SC2086 # GAMEARGS and SETS are word lists
  setsid sh -c "echo ${NICE:-0} > /proc/self/autogroup 2>/dev/null; $(cmd "$NAME" "$SETS")" > "$OUT/$NAME.log" 2>&1 &
  PIDS="$PIDS $!:$NAME"
done
rc=0
for p in $PIDS; do
  if ! wait "${p%%:*}"; then
    echo "$0: run ${p#*:} failed: $(tail -n 1 "$OUT/${p#*:}.log")" >&2; rc=1
  fi
done
exit $rc
