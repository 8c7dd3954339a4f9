#!/bin/bash
# The same history as ../imbalance-deletes (Jim Salter's third cause of imbalance, "How data gets
# imbalanced on ZFS", jrs-s.net, 2018), then both vdevs grown to 64 GiB, so the pool ends up
# nearly empty: equal single-disk vdevs whose fill % differ by about a point while the later
# vdev holds most of the data.
#   1. a pool on one 2 GiB file vdev (d0) is filled to ~83 % ("old" data);
#   2. a second 2 GiB file vdev (d1) is added and 1.3 GiB written while d0 is nearly full, so
#      the allocator (by free space) puts most of it on d1;
#   3. the old data is deleted;
#   4. both files are grown to 64 GiB and `zpool online -e` expands both vdevs (as replacing
#      disks with larger ones does). No block moves: the shares stay as step 3 left them.
# Run from the worktree root (files in the guest's tmpfs /tmp: ~3 GiB of data at the peak):
#   ../shared/zfslab/zfslab run --mem 8G tests/captures/imbalance-share/capture.sh
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
P=lab
W=/tmp/share
mkdir -p $W
D0=$W/d0
D1=$W/d1
truncate -s 2G $D0 $D1
T=$OUT/transcript.txt
: > "$T"
run() {  # echo the command as a root prompt, then its output, into the transcript
  echo "root@zfslab:~# $*" >> "$T"
  bash -c "$*" >> "$T" 2>&1
  local rc=$?; [ $rc -ne 0 ] && echo "(exit $rc)" >> "$T"
  return 0
}
cap() {  # cap FILE CMD: the bare output of CMD in FILE (what a user would paste)
  local f=$1; shift
  bash -c "$*" > "$OUT/$f" 2>&1
  printf 'capture %-28s <- %s  (exit %d)\n' "$f" "$*" $? >> "$OUT/meta.txt"
}
head -c 64M /dev/urandom > /tmp/seed
fill() { local f=$1 mb=$2; { while [ "$mb" -ge 64 ]; do cat /tmp/seed; mb=$((mb-64)); done
         [ "$mb" -gt 0 ] && head -c $((mb*1048576)) /tmp/seed; } > "$f"; }
export -f fill

{
  echo "scenario: imbalance-share"
  echo "description: as imbalance-deletes on 2 GiB file vdevs d0, d1, then both grown to 64 GiB (zpool online -e): a nearly empty pool, d1 holding most of the data"
  echo "zfs: $(zfs version | tr '\n' ' ')"
  echo "kernel: $(uname -r) (Debian, QEMU guest via zfslab, $(nproc) vCPU, $(($(awk '/MemTotal/{print $2}' /proc/meminfo)/1024)) MiB)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "script: tests/captures/imbalance-share/capture.sh (transcript.txt holds every command with its output)"
  echo
  echo "## captures (bare output, after the deletes)"
} > "$OUT/meta.txt"

run "zpool create -o ashift=12 -O compression=off $P $D0"
run "fill /$P/old 1600; zpool sync $P"
run "zpool list -v $P"
run "zpool add $P $D1"
run "fill /$P/new 1300; zpool sync $P"
run "zpool iostat -v $P"
run "rm /$P/old; zpool sync $P; sleep 2; zpool sync $P"
for i in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(zpool get -H -p -o value freeing $P)" = 0 ] && break; sleep 1; zpool sync $P
done
run "zpool iostat -v $P"
run "truncate -s 64G $D0 $D1"
run "zpool online -e $P $D0 $D1"
run "zpool iostat -v $P"
run "zpool list -v $P"
run "zpool status $P"
run "zpool history $P"

cap zpool-iostat-v.txt "zpool iostat -v $P"
cap zpool-list-v.txt "zpool list -v $P"
cap zpool-list-v-H-p.txt "zpool list -v -H -p $P"
cap zpool-status.txt "zpool status $P"
zpool destroy $P
rm -rf $W
