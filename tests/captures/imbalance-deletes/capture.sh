#!/bin/bash
# Jim Salter's third cause of imbalance ("How data gets imbalanced on ZFS", jrs-s.net, 2018),
# reproduced on two equal 2 GiB virtio disks in the zfslab VM (/dev/vda, /dev/vdb, named by id):
#   1. a pool on one disk (disk0) is filled to ~85 % ("old" data);
#   2. a second equal disk (disk1) is added; new data is written while disk0 is nearly full, so
#      the allocator (by free space) puts most of it on disk1;
#   3. the old data is deleted.
# Result: a nearly empty pool of equal vdevs in which the *later* vdev holds almost all the data;
# the fill-% spread is small, the share of the data is not, and the cause is how data was deleted.
# Run from the worktree root:
#   ../shared/zfslab/zfslab run --mem 2G --disks 2 --disk-size 2G tests/captures/imbalance-deletes/capture.sh
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
P=lab
D0=/dev/disk/by-id/virtio-zfslab-disk0
D1=/dev/disk/by-id/virtio-zfslab-disk1
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
  echo "scenario: imbalance-deletes"
  echo "description: equal single-disk vdevs (2 GiB virtio disks, by-id names disk0, disk1); disk0 filled to ~83 %, disk1 added, 1.3 GiB written, the old data deleted"
  echo "zfs: $(zfs version | tr '\n' ' ')"
  echo "kernel: $(uname -r) (Debian, QEMU guest via zfslab, $(nproc) vCPU, $(($(awk '/MemTotal/{print $2}' /proc/meminfo)/1024)) MiB)"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "script: tests/captures/imbalance-deletes/capture.sh (transcript.txt holds every command with its output)"
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
run "zpool list -v $P"
run "zpool status $P"
run "zpool history $P"

cap zpool-iostat-v.txt "zpool iostat -v $P"
cap zpool-list-v.txt "zpool list -v $P"
cap zpool-list-v-H-p.txt "zpool list -v -H -p $P"
cap zpool-status.txt "zpool status $P"
zpool destroy $P
