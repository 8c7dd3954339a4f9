#!/bin/bash
# Capture real `zpool events` output (OpenZFS 2.3.2) for the events parser, inside a zfslab VM:
#
#   ../shared/zfslab/zfslab run --mem 6G tests/captures/events/capture_events.sh [SCENARIO...]
#
# Scenarios (each on its own small pool; `zpool events -c` just before the fault, so each set
# of files holds that fault's events and the few sysevents around it):
#   delay     a 2-way mirror whose one side is a dm-delay disk (100 ms per I/O), zio_slow_io_ms
#             lowered to 50: ereport.fs.zfs.delay
#   checksum  a 2-way mirror of files, zinject corrupts reads of one side (checksum errors),
#             the data read back uncached, then a scrub: ereport.fs.zfs.checksum (and scrub
#             sysevents)
#   checksum-data  a single-disk pool, zinject data checksum errors on one file (unrepairable):
#             ereport.fs.zfs.checksum and ereport.fs.zfs.data
#   io        a 2-way mirror of files, zinject EIO on reads of one side and on writes of the
#             other: ereport.fs.zfs.io
# For each: zpool events / -v / -H / -v -H, and zpool status -P for context. meta.txt has the
# build steps and the exact command behind every file (the same format as ../*/meta.txt).
set -u
OUT=$(cd "$(dirname "$0")" && pwd)
WORK=/tmp/zev
META=$OUT/meta.txt
PARAM=/sys/module/zfs/parameters

step() {                        # step 'shell command'  - run a build step, log it
  echo "\$ $1" >> "$META"
  eval "$1" >> "$WORK/build.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && echo "  -> exit $rc" >> "$META"
  return 0
}
note() { echo "# $*" >> "$META"; }
cap() {                         # cap FILE 'shell command'  - capture stdout+stderr
  local f=$1 rc; shift
  eval "$1" > "$OUT/$f.txt" 2>&1; rc=$?
  printf 'capture %-44s <- %s  (exit %d)\n' "$f.txt" "$1" "$rc" >> "$META"
  return 0
}
events() {                      # events SCENARIO POOL  - the four forms of zpool events, + status
  local s=$1 p=$2
  cap "zpool-events.$s"     "zpool events"
  cap "zpool-events-v.$s"   "zpool events -v"
  cap "zpool-events-H.$s"   "zpool events -H"
  cap "zpool-events-v-H.$s" "zpool events -v -H"
  cap "zpool-status.$s"     "zpool status -P -v $p"
  note "$s: $(zpool events -H | wc -l) events: $(zpool events -H | awk '{print $NF}' | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}' | sed 's/, $//')"
}
fill() { head -c $(($2 * 1048576)) /dev/urandom > "$1"; }
cleanup() {
  zinject -c all >/dev/null 2>&1
  for p in "$@"; do zpool destroy -f "$p" 2>/dev/null; done
  dmsetup remove evslow 2>/dev/null
  rm -rf "/$1"
  for l in $(losetup -n -O NAME,BACK-FILE | awk -v w="$WORK/" 'index($2,w)==1{print $1}'); do losetup -d "$l"; done
  rm -f "$WORK"/d*
}

sc_delay() {
  echo "## delay" >> "$META"
  step "truncate -s 256M $WORK/d1 $WORK/d2"
  L1=$(losetup -f --show "$WORK/d1"); L2=$(losetup -f --show "$WORK/d2")
  note "loop devices: d1=$L1, d2=$L2 -> dm-delay /dev/mapper/evslow (100 ms read and write)"
  step "dmsetup create evslow --table \"0 \$(blockdev --getsz $L2) delay $L2 0 100 $L2 0 100\"; udevadm settle"
  step "zpool create evdelay mirror $L1 /dev/mapper/evslow"
  step "zfs set primarycache=metadata evdelay"
  step "fill /evdelay/old 8; zpool sync evdelay"
  step "echo 50 > $PARAM/zio_slow_io_ms"
  step "zpool events -c"
  step "dd if=/dev/urandom of=/evdelay/new bs=64k count=64 conv=fsync status=none; dd if=/evdelay/old of=/dev/null bs=128k status=none"
  step "zpool sync evdelay"
  events delay evdelay
  step "echo 30000 > $PARAM/zio_slow_io_ms"
  cleanup evdelay
}

sc_checksum() {
  echo "## checksum" >> "$META"
  step "truncate -s 256M $WORK/d1 $WORK/d2"
  step "zpool create evcksum mirror $WORK/d1 $WORK/d2"
  step "zfs set primarycache=metadata evcksum"
  step "fill /evcksum/data 16; zpool sync evcksum"
  step "zpool events -c"
  note "zinject has no device-level 'checksum' error (\"device error type must be 'io', 'nxio' or 'corrupt'\"): 'corrupt' flips bits in data read from d2, which ZFS sees as checksum errors and repairs from d1"
  step "zinject -d $WORK/d2 -e corrupt -T read -f 10 evcksum"
  cap zinject-list.checksum "zinject"
  step "cat /evcksum/data > /dev/null"
  step "zpool scrub -w evcksum"
  step "zinject -c all"
  events checksum evcksum
  cleanup evcksum
}

sc_checksum-data() {
  echo "## checksum-data" >> "$META"
  step "truncate -s 256M $WORK/d1"
  step "zpool create evdata $WORK/d1"
  step "zfs set primarycache=metadata evdata"
  step "fill /evdata/victim 4; zpool sync evdata"
  step "zpool events -c"
  note "no redundancy: zinject data checksum errors on one file are unrepairable (permanent errors)"
  step "zinject -t data -e checksum -f 100 /evdata/victim"
  cap zinject-list.checksum-data "zinject"
  note "the read fails with EIO (expected); the scrub then meets the same injected errors"
  step "cat /evdata/victim > /dev/null"
  step "zpool scrub -w evdata"
  step "zinject -c all"
  step "zpool sync evdata"
  events checksum-data evdata
  cleanup evdata
}

sc_io() {
  echo "## io" >> "$META"
  step "truncate -s 256M $WORK/d1 $WORK/d2"
  step "zpool create evio mirror $WORK/d1 $WORK/d2"
  step "zfs set primarycache=metadata evio"
  step "fill /evio/data 16; zpool sync evio"
  step "zpool events -c"
  step "zinject -d $WORK/d1 -e io -T read -f 10 evio"
  step "zinject -d $WORK/d2 -e io -T write -f 10 evio"
  cap zinject-list.io "zinject"
  step "cat /evio/data > /dev/null"
  step "fill /evio/more 4; zpool sync evio"
  step "zinject -c all"
  events io evio
  cleanup evio
}

ALL="delay checksum checksum-data io"
mkdir -p "$WORK"
{
  echo "scenario: events"
  echo "description: zpool events (plain, -v, -H, -v -H) after three faults: a dm-delay disk (ereport.fs.zfs.delay), zinject checksum errors (ereport.fs.zfs.checksum), zinject I/O errors (ereport.fs.zfs.io)"
  echo "zfs: $(zpool version | tr '\n' ' ')"
  echo "kernel: $(uname -r) (Debian, QEMU guest via zfslab, $(nproc) vCPU, $(free -m | awk '/Mem:/{print $2}') MiB)"
  echo "date: $(date -u +%FT%TZ)"
  echo "script: tests/captures/events/capture_events.sh (run from the repository root: ../shared/zfslab/zfslab run --mem 6G tests/captures/events/capture_events.sh)"
  echo "disks: sparse files in $WORK (guest tmpfs); loop/dm devices where noted"
  echo "event queue: zfs_zevent_len_max=$(cat $PARAM/zfs_zevent_len_max), zfs_slow_io_events_per_second=$(cat $PARAM/zfs_slow_io_events_per_second), zfs_checksum_events_per_second=$(cat $PARAM/zfs_checksum_events_per_second)"
  echo
  echo "## build steps (exit status shown when non-zero)"
} > "$META"
for s in ${@:-$ALL}; do
  t=$(date +%s)
  "sc_$s"
  echo "=== scenario $s done in $(( $(date +%s) - t ))s" >&2
done
rm -rf "$WORK"
