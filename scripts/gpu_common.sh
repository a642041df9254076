# Shared by the scripts/gpu_*.sh scripts: the set-up on a borrowed
# GPU machine without network, and a command run within what is left of the call's time.
# Sourced after `started` (the call's start, date +%s) and `python` are set.

# gpu_setup [EXTRA_PYTHONPATH]: the carried wheels (.whl) into /tmp/site and this checkout in
# development mode; sets `ready` to 1, or 0 when either failed. SKIP_INSTALL=1: none of it (a
# dry run on a machine that has everything).
gpu_setup() {
  ready=1
  if [ "${SKIP_INSTALL:-0}" != 1 ]; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --target /tmp/site .whl/*.whl || ready=0
    export PYTHONPATH="/tmp/site${1:+:$1}"
    [ "$ready" = 1 ] && { "$python" -m pip install -q --no-index --no-deps \
      --no-build-isolation -e . || ready=0; }
  fi
}

# gpu_run_within LIMIT COMMAND...: COMMAND, interrupted (INT) when LIMIT seconds since
# `started` are near: 25 of them are kept, 10 to stop it and 15 to copy its results back.
# `trained` is its exit status, or 1 where it did not run: each script exits with it (they
# ended with `tail`, exit 0 whatever happened: the device tool's rc said nothing; review).
trained=1
gpu_run_within() {
  local limit=$1
  shift
  echo "set-up: $(($(date +%s) - started)) s"
  local left=$((limit - ($(date +%s) - started) - 25))
  if [ "$ready" != 1 ]; then
    echo "set-up failed: no training"
  elif [ "$left" -lt 60 ]; then  # timeout 0 would mean no limit at all; a negative one, an error
    echo "set-up took the time: ${left} s left of ${limit}, no training"
  else
    timeout --signal=INT --kill-after=10 "$left" "$@"
    trained=$?
    echo "exit $trained after $(($(date +%s) - started)) s"
  fi
}

# gpu_bring_back FILE NAME: FILE into $out as NAME.part-00, NAME.part-01, ... of at most 15 MiB
# each (the device tool brings back files of up to 16 MiB, eight in all: a checkpoint cut off
# mid-stage holds its optimizer, 27 MB for the detector). Back home: cat NAME.part-* > NAME.
gpu_bring_back() {
  [ -f "$1" ] || return 0  # (a stage cut off before its first epoch has none)
  split -b 15M -d -a 2 "$1" "$out/$2.part-"
}
