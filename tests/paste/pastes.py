"""Real pasted outputs of OpenZFS 0.6 to 2.2, transcribed from public issue reports.

Each constant cites where it was posted. Text is as the report shows it: TABs where the report
kept TABs, spaces where the paste turned them into spaces, the prompts, fences, prose and
truncations of the original. Where the quoted copy ends in the middle of a row, the
transcription stops at the last complete row (said so in the comment). Nothing is invented.
"""

# --- 0.6.x ------------------------------------------------------------------------------

# ZFS on Linux 0.6.5 (its release day), https://github.com/quantum/esos/issues/151
# (2015-09-12): a prompt, a status, then the next comment's prose and a `zfs get` table.
ESOS_065 = """\
[root@esos ~]# zpool status
  pool: tank
 state: ONLINE
  scan: scrub repaired 0 in 0h17m with 0 errors on Sat Sep 12 19:14:32 2015
config:

        NAME                        STATE     READ WRITE CKSUM
        tank                        ONLINE       0     0     0
          mirror-0                  ONLINE       0     0     0
            wwn-0x5000c500412ee41f  ONLINE       0     0     0
            wwn-0x5000c500412ef8b3  ONLINE       0     0     0
          mirror-1                  ONLINE       0     0     0
            wwn-0x5000c50041ab0c47  ONLINE       0     0     0
            wwn-0x5000c50041bd3e87  ONLINE       0     0     0
          mirror-2                  ONLINE       0     0     0
            wwn-0x5000c50041bd703f  ONLINE       0     0     0
            wwn-0x5000c5005621857b  ONLINE       0     0     0
          mirror-3                  ONLINE       0     0     0
            wwn-0x5000c500575759fb  ONLINE       0     0     0
            wwn-0x5000c500575e15b7  ONLINE       0     0     0

errors: No known data errors

And:

NAME          PROPERTY       VALUE  SOURCE
tank/vsphere  compressratio  1.97x  -
"""

# ZFS on Linux 0.6.5.7 on CentOS 7 / Xen, https://github.com/openzfs/zfs/issues/5186
# (2016-09-28): a decimal comma from the locale ("5,18G", "6,22T"), a resilver time that
# overflowed, the config inside a Markdown fence, and 0.6.5's `zpool list` (no CKPOINT).
ZOL_06507 = """\
# zpool status -v

  pool: zfspool
 state: ONLINE
  scan: resilvered 5,18G in 307445734561825858h42m with 0 errors on Fri Sep 23 18:31:37 2016
config:

```
    NAME        STATE     READ WRITE CKSUM
    zfspool     ONLINE       0     0     0
      raidz1-0  ONLINE       0     0     0
        xvdb1   ONLINE       0     0     0
        xvdc1   ONLINE       0     0     0
        xvdd1   ONLINE       0     0     0
        xvde1   ONLINE       0     0     0
```

errors: No known data errors
# zpool list

NAME      SIZE  ALLOC   FREE  EXPANDSZ   FRAG    CAP  DEDUP  HEALTH  ALTROOT
zfspool  6,22T  1,83T  4,39T         -    18%    29%  1.00x  ONLINE  -
"""

# ZFS on Linux 0.6.5, https://github.com/openzfs/zfs/issues/4512 (comment of 2016-06-27):
# a canceled scrub and a mirrored log. Quoted up to the last complete row (the log mirror's
# disks and the errors: line are past the end of our copy).
ZOL_065_LOGS = """\
  pool: userdata
 state: ONLINE
status: Some supported features are not enabled on the pool. The pool can
\tstill be used, but some features are unavailable.
action: Enable all features using 'zpool upgrade'. Once this is done,
\tthe pool may no longer be accessible by software that does not support
\tthe features. See zpool-features(5) for details.
  scan: scrub canceled on Sun Jun 12 04:29:37 2016
config:

\tNAME                                             STATE     READ WRITE CKSUM
\tuserdata                                         ONLINE       0     0     0
\t  mirror-0                                       ONLINE       0     0     0
\t    scsi-35000c50059117303                       ONLINE       0     0     0
\t    scsi-35000c500626018f7                       ONLINE       0     0     0
\t  mirror-1                                       ONLINE       0     0     0
\t    scsi-35000c50062602c3b                       ONLINE       0     0     0
\t    scsi-35000c500625fb53f                       ONLINE       0     0     0
\t  mirror-2                                       ONLINE       0     0     0
\t    scsi-35000c500625ff1e3                       ONLINE       0     0     0
\t    scsi-35000c500591ae2a7                       ONLINE       0     0     0
\tlogs
\t  mirror-3                                       ONLINE       0     0     0
"""

# ZFS on Linux of 2014 (0.6.3; `zpool iostat -v` printed the same way until 0.7 added -l),
# https://github.com/openzfs/zfs/issues/2857: GitHub turned the dash lines into "---" rules
# between blank lines; the raidz2 is named without its id, as iostat did before 0.8.
ZOL_063_IOSTAT = """\
zpool iostat -v shows the following:
               capacity     operations    bandwidth
pool        alloc   free   read  write   read  write

---

NAS         10.5T  22.0T     21    389  2.70M  35.5M
  raidz2    10.5T  22.0T     21    389  2.70M  35.5M
    hdd1      -      -      3     93   432K  9.04M
    hdd2      -      -      3     93   392K  9.04M
    hdd3      -      -      4     93   558K  9.04M
    hdd4      -      -      3     93   446K  9.04M
    hdd5      -      -      3     93   396K  9.04M
    hdd5      -      -      4     93   548K  9.04M

---

So this is incorrect, what could be the cause? Compression and dedup are off, ashift is 12.
"""

# --- 0.7 ---------------------------------------------------------------------------------

# A ZED scrub_finish mail from ZFS on Linux 0.7 (zfsonlinux.org msg URL, "50h42m" duration,
# "192K repaired" with no B), https://github.com/openzfs/zfs/issues/6817 (2017-11-03).
# Quoted up to the last complete row.
ZED_07 = """\
ZFS has finished a scrub:

   eid: 10
 class: scrub_finish
  host: starfish.chtc.wisc.edu
  time: 2017-11-03 02:42:21-0500
  pool: tank
 state: ONLINE
status: One or more devices has experienced an unrecoverable error.  An
\tattempt was made to correct the error.  Applications are unaffected.
action: Determine if the device needs to be replaced, and clear the errors
\tusing 'zpool clear' or replace the device with 'zpool replace'.
   see: http://zfsonlinux.org/msg/ZFS-8000-9P
  scan: scrub repaired 192K in 50h42m with 0 errors on Fri Nov  3 02:42:21 2017
config:



\tNAME                                          STATE     READ WRITE CKSUM
\ttank                                          ONLINE       0     0     0
\t  raidz1-0                                    ONLINE       0     0     0
\t    ata-ST8000AS0002-1NA17Z_Z840GAMD          ONLINE       0     0     0
\t    ata-ST8000AS0002-1NA17Z_Z840GATT          ONLINE       0     0     0
\t    ata-ST8000AS0002-1NA17Z_Z840GAA2          ONLINE       0     0     0
\t  raidz1-2                                    ONLINE       0     0     0
\t    ata-ST4000VN000-1H4168_S301EJ9F           ONLINE       0     0     3
"""

# ZFS on Linux 0.7.12-1, https://github.com/openzfs/zfs/issues/8205 (2018-12-11): a prompt
# with the pool argument. Quoted up to the last complete row.
ZOL_0712 = """\
[root@node805 ~]# zpool status jbod3-node805-data2
  pool: jbod3-node805-data2
 state: ONLINE
status: One or more devices has experienced an unrecoverable error.  An
\tattempt was made to correct the error.  Applications are unaffected.
action: Determine if the device needs to be replaced, and clear the errors
\tusing 'zpool clear' or replace the device with 'zpool replace'.
   see: http://zfsonlinux.org/msg/ZFS-8000-9P
  scan: scrub repaired 204K in 1h5m with 0 errors on Tue Dec 11 10:49:46 2018
config:

\tNAME                        STATE     READ WRITE CKSUM
\tjbod3-node805-data2         ONLINE       0     0     0
\t  raidz1-0                  ONLINE       0     0     0
\t    wwn-0x5000cca2531da728  ONLINE       0     0     0
\t    wwn-0x5000cca2531da880  ONLINE       0     0     0
\t    wwn-0x5000cca2531dad74  ONLINE       0     0     0
"""

# `zpool iostat -v -l` as it was merged for 0.7.0 (9 latency columns: no trim, no rebuild),
# https://github.com/openzfs/zfs/pull/4433 (tonyhutter's sample output). Logs and cache
# classes. Quoted up to the last complete line (the closing dashes are cut in our copy).
PR4433_07_IOSTAT_L = """\
                         capacity     operations     bandwidth    total_wait     disk_wait    syncq_wait    asyncq_wait  scrub
pool                   alloc   free   read  write   read  write   read  write   read  write   read  write   read  write   wait
---------------------  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----  -----
mypool                  201G   171G     11    114  1.37M  7.18M  336ns    6us  105ns  144ns      -    6us  268ns  339ns   54ns
  A1                    100G  85.7G      5      4   701K  75.9K  338ns  425ns  105ns  111ns      -      -  269ns  347ns   67ns
  A2                    100G  85.6G      5      4   702K  65.6K  335ns  410ns  104ns  113ns      -      -  268ns  331ns   36ns
logs                       -      -      -      -      -      -      -      -      -      -      -      -      -      -      -
  A3                    128K   186G      0    105     99  7.04M   14ns    6us   13ns  147ns    1ns    6us      -      -      -
cache                      -      -      -      -      -      -      -      -      -      -      -      -      -      -      -
  A4                    146K   186G      0      0      9  2.25K   11ns  210ns   11ns  115ns      -      -      -   96ns      -
"""

# `zpool list -v` of the 0.6.5/0.7 era (`print_list_stats()` then: vdev rows stop after CAP,
# interior vdevs have no id), from FreeBSD, which shared that code:
# https://github.com/jceel/py-libzfs/issues/11 (2015-11-12).
LIST_V_065 = """\
[frappe@freebsd-test ~/frappe-bench]$ zpool list -v
NAME         SIZE  ALLOC   FREE  EXPANDSZ   FRAG    CAP  DEDUP  HEALTH  ALTROOT
p1           160M  1010K   159M         -     1%     0%  1.00x  ONLINE  -
  mirror      80M   968K  79.1M         -     2%     1%
    ada1        -      -      -         -      -      -
    ada2        -      -      -         -      -      -
  mirror      80M  41.5K  80.0M         -     1%     0%
    ada3        -      -      -         -      -      -
    ada4        -      -      -         -      -      -
zroot       14.5G  2.68G  11.8G         -    14%    18%  1.00x  ONLINE  -
  ada0p3    14.5G  2.68G  11.8G         -    14%    18%
"""

# --- 0.8 ---------------------------------------------------------------------------------

# 0.8-era `zpool list -v` (CKPOINT and per-vdev HEALTH, but the raidz still printed without
# its id; the logs row has '-' for health), https://github.com/openzfs/zfs/issues/11076
# (2020-10), after a broken Markdown fence. Quoted up to the last complete row (the log
# device's row is cut in our copy).
LIST_V_08 = """\
``
root@nas:# zpool list -v
NAME                                                 SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
saspool                                             32.5T  15.5T  17.0T        -         -     2%    47%  1.00x    ONLINE  -
  raidz1                                            32.5T  15.5T  17.0T        -         -     2%  47.6%      -  ONLINE
    wwn-0x5000c50084217227                              -      -      -        -         -      -      -      -  ONLINE
    wwn-0x5000c50084154953                              -      -      -        -         -      -      -      -  ONLINE
    wwn-0x5000c5008417edcf                              -      -      -        -         -      -      -      -  ONLINE
    wwn-0x5000c50083b0f4ef                              -      -      -        -         -      -      -      -  ONLINE
    wwn-0x5000c50062f10857                              -      -      -        -         -      -      -      -  ONLINE
    wwn-0x5000c50062f10953                              -      -      -        -         -      -      -      -  ONLINE
logs                                                    -      -      -        -         -      -      -      -  -
"""

# 0.8 (the 0.8-2.1 scan lines, "0 days" in the ETA as only 0.8 printed it), resilvering with
# checksum errors, https://github.com/openzfs/zfs/issues/13879 (2022-09). Quoted up to the
# last complete row.
RESILVER_08 = """\
# zpool status pool-name
  pool: pool-name
 state: ONLINE
status: One or more devices is currently being resilvered.  The pool will
        continue to function, possibly in a degraded state.
action: Wait for the resilver to complete.
  scan: resilver in progress since Sat Sep  3 02:09:21 2022
        823M scanned at 823M/s, 825M issued at 825M/s, 74.3G total
        24.8M resilvered, 1.08% done, 0 days 00:01:31 to go
config:

        NAME                        STATE     READ WRITE CKSUM
        pool-name                   ONLINE       0     0     0
          raidz3-0                  ONLINE       0     0     0
            wwn-0x5000cca2970a9044  ONLINE       0     0   442  (resilvering)
            wwn-0x5000cca2970ac920  ONLINE       0     0     0  (resilvering)
            wwn-0x5000cca2970c1ce4  ONLINE       0     0     0  (resilvering)
            wwn-0x5000cca2970c1fe4  ONLINE       0     0   234  (resilvering)
            wwn-0x5000cca2970c55c8  ONLINE       0     0    84  (resilvering)
            wwn-0x5000cca2970c55fc  ONLINE       0     0     0
            wwn-0x5000cca2970c5600  ONLINE       0     0     0
            wwn-0x5000cca2970c5980  ONLINE       0     0     0
            wwn-0x5000cca2970c5d3c  ONLINE       0     0     0
            wwn-0x5000cca2970c750c  ONLINE       0     0     0
"""

# --- 2.0 ---------------------------------------------------------------------------------

# 2.0-era scan line (no "days" part, "0B"), labels pasted flush left, config rows right
# under "config:" and an elision row, https://github.com/Cosium/zabbix_zfs-on-linux/pull/32
# (2021-08-01).
STATUS_20 = """\
pool: zfileserver
state: ONLINE
scan: scrub repaired 0B in 00:11:38 with 0 errors on Sun Jul 11 00:35:39 2021
config:
\tNAME         STATE     READ WRITE CKSUM
\tzfileserver  ONLINE       0     0     0
\t  raidz2-0   ONLINE       0     0     0
\t    sda      ONLINE       0     0     0
\t    sdb      ONLINE       0     0     0
\t    ...

errors: No known data errors
"""

# OpenZFS 2.0.7 (TrueNAS 12.0-U8), https://github.com/dak180/FreeNAS-Report/issues/16
# (2023-01-09): only the head of a status was pasted (no config table); then, from the
# reporter's next comment, `zpool version`.
STATUS_207_HEAD = """\
pool: pool1
state: ONLINE
scan: resilvered 2.31T in 1 days 02:55:32 with 0 errors on Sat Dec 24 02:33:08 2022
config:

 # zpool version
zfs-2.0.7-1
zfs-kmod-v2022012000-zfs_e870bd8cf
"""

# --- 2.1 ---------------------------------------------------------------------------------

# OpenZFS 2.1.2, https://github.com/openzfs/zfs/issues/13123 (2022-02-19): the vdev CAP with
# one decimal (11.9%) against the pool's integer CAP; leaf SIZE '-' (before 2.1.6); zpool run
# from a build tree. Quoted up to the last complete row.
LIST_V_212 = """\
nabijaczleweli@tarta:~/store/code/zfs$ cmd/zpool/zpool list -v filling
NAME                                    SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
filling                                25.5T  6.52T  18.9T        -       64M     1%    25%  1.00x    ONLINE  -
  mirror-0                             3.64T   445G  3.20T        -       64M     9%  11.9%      -    ONLINE
    ata-HGST_HUS726T4TALE6L4_V6K2L4RR      -      -      -        -       64M      -      -      -    ONLINE
    ata-HGST_HUS726T4TALE6L4_V6K2MHYR      -      -      -        -       64M      -      -      -    ONLINE
  raidz1-1                             21.8T  6.09T  15.7T        -         -     0%  27.9%      -    ONLINE
    ata-HGST_HUS728T8TALE6L4_VDKT237K      -      -      -        -         -      -      -      -    ONLINE
    ata-HGST_HUS728T8TALE6L4_VDGY075D      -      -      -        -         -      -      -      -    ONLINE
"""

# OpenZFS 2.1.5, https://github.com/openzfs/zfs/issues/13616 (2022-07-01): `zpool iostat`
# without -v, in interval mode (two reports of one pool), then the reporter's prose.
IOSTAT_215 = """\
zpool iostat 10 10
              capacity     operations     bandwidth 
pool        alloc   free   read  write   read  write
----------  -----  -----  -----  -----  -----  -----
DDD         37.9T  70.9T      0     43  6.37K   962K
DDD         37.9T  70.9T      0     30      0  60.1K

since boot value seems correct,
updated values the read value is always zero for bandwidth and N Operations
"""

# OpenZFS 2.1 (dRAID and its distributed spares), https://github.com/openzfs/zfs/issues/12090
# (2021): our copy starts at the config table, without the pool:/state:/config: lines.
DRAID_TABLE_ONLY = """\
        NAME                         STATE     READ WRITE CKSUM
        pool-oss0                    DEGRADED     0     0     0
          draid2:11d:15c:2s-0        DEGRADED     0     0     0
            /root/test/files/file1   DEGRADED     0     0 1.88K  too many errors
            /root/test/files/file2   ONLINE       0     0     0
        spares
          draid2-0-0                 AVAIL
          draid2-0-1                 AVAIL

errors: No known data errors
"""

# 2.1-era status (2022-02) with the config rows re-indented by hand to 0, 1 and 3 spaces, then
# a `zpool status -D` dedup table in the next fence, https://github.com/openzfs/zfs/pull/12225
# (comment by yunginnanet; the names are the reporter's redactions).
HAND_INDENTED_21 = """\
```
  pool: swamp
 state: ONLINE
  scan: scrub repaired 0B in 03:09:47 with 0 errors on Thu Feb 17 15:24:51 2022
config:

NAME                        STATE     READ WRITE CKSUM
swamp                       ONLINE       0     0     0
 raidz2-0                     ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
   [ST2000LM015-2E8174]  ONLINE       0     0     0
cache
 nvme1n1                   ONLINE       0     0     0
```
```
 dedup: DDT entries 31262476, size 916B on disk, 148B in core

bucket              allocated                       referenced
______   ______________________________   ______________________________
refcnt   blocks   LSIZE   PSIZE   DSIZE   blocks   LSIZE   PSIZE   DSIZE
------   ------   -----   -----   -----   ------   -----   -----   -----
     1    29.7M   3.65T   3.57T   3.57T    29.7M   3.65T   3.57T   3.57T
     2     146K   16.7G   15.3G   15.6G     302K   34.4G   31.6G   32.0G
     4    6.77K    718M    681M    690M    35.9K   3.78G   3.61G   3.66G
"""

# --- 2.2 ---------------------------------------------------------------------------------

# OpenZFS 2.2.7 (Debian 12), https://github.com/openzfs/zfs/issues/16245 (2025-07-19): a
# FAULTED disk with "too many errors" in a pool still ONLINE (the subject).
FAULTED_227 = """\
$ zpool status
  pool: tank
 state: ONLINE
status: One or more devices are faulted in response to persistent errors.
        Sufficient replicas exist for the pool to continue functioning in a
        degraded state.
action: Replace the faulted device, or use 'zpool clear' to mark the device
        repaired.
  scan: resilvered 2.28M in 00:00:01 with 0 errors on Mon Jul 14 23:10:20 2025
config:

        NAME                                      STATE     READ WRITE CKSUM
        tank                                      ONLINE       0     0     0
          mirror-0                                ONLINE       0     0     0
            ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx  ONLINE       0     0     0
            ata-TOSHIBA_MG08ACA16TE_64M0A0xxxxxx  FAULTED     12   753    83  too many errors

errors: No known data errors
"""

# OpenZFS 2.2 `zpool list -p` and `zpool list -v -p -L` under an oh-my-zsh prompt ("~ ❯"),
# https://github.com/netdata/netdata/issues/18359 (2024-08-20): exact bytes, a DEGRADED log
# mirror whose missing disk prints as its GUID; our copy cuts that last row short.
LIST_P_22 = """\
~ ❯ zpool list -p store
NAME            SIZE          ALLOC           FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
store  9981503995904  3046188658688  6935315337216        -         -      9     30   1.00  DEGRADED  -
~ ❯ zpool list -v -p -L store
NAME                                     SIZE          ALLOC           FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
store                           9981503995904  3046188658688  6935315337216        -         -      9     30   1.00  DEGRADED  -
  mirror-0                      9981503995904  3046188658688  6935315337216        -         -      9     30      -    ONLINE
    sdc2                        9998683602944      -      -        -         -      -      -      -    ONLINE
    sdd2                        9998683602944      -      -        -         -      -      -      -    ONLINE
logs                                -      -      -        -         -      -      -      -         -
  mirror-1                      17716740096  393216  17716346880        -         -      0      0      -  DEGRADED
    sdb1                        17951621120      -      -        -         -      -      -      -    ONLINE
    14807975228228307538            -      -      -
"""

# OpenZFS 2.2+ scan lines ("X / Y scanned at R/s, I / Y issued at R/s"),
# https://github.com/openzfs/zfs/issues/18150 (2026-01). Quoted up to the last complete row.
SCRUB_22 = """\
root@zfsbackup1:~# zpool status backup2
  pool: backup2
 state: ONLINE
  scan: scrub in progress since Wed Jan 21 13:21:33 2026
\t266T / 749T scanned at 3.30G/s, 260T / 749T issued at 3.23G/s
\t0B repaired, 34.79% done, 1 days 18:56:16 to go
config:

\tNAME                                                     STATE     READ WRITE CKSUM
\tbackup2                                                  ONLINE       0     0     0
\t  raidz3-0                                               ONLINE       0     0     0
\t    wwn-0x5000cca2c28a0ee0                               ONLINE       0     0     0
\t    wwn-0x5000cca2c279cad8                               ONLINE       0     0     0
\t    wwn-0x5000cca2c2891618                               ONLINE       0     0     0
"""

# OpenZFS 2.x on FreeBSD 13, https://github.com/openzfs/zfs/issues/12779 (grahamperrin):
# `zpool iostat -v 15` with an ellipsis line, a cache class with gpt/ names, two full reports
# and a third our copy cuts after its first value.
IOSTAT_V_FREEBSD = """\
zpool iostat -v 15
\u2026
                      capacity     operations     bandwidth 
pool                alloc   free   read  write   read  write
------------------  -----  -----  -----  -----  -----  -----
august               242G   670G      4      7   179K  77.3K
  ada0p3.eli         242G   670G      4      7   179K  77.3K
cache                   -      -      -      -      -      -
  gpt/cache-august  28.7G   148M      0      0      0      0
  gpt/duracell      14.7G   739M      0      0      0      0
------------------  -----  -----  -----  -----  -----  -----
                      capacity     operations     bandwidth 
pool                alloc   free   read  write   read  write
------------------  -----  -----  -----  -----  -----  -----
august               242G   670G      0     10  12.3K   134K
  ada0p3.eli         242G   670G      0     10  12.3K   134K
cache                   -      -      -      -      -      -
  gpt/cache-august  28.7G   148M      0      0      0      0
  gpt/duracell      14.7G   739M      0      0      0      0
------------------  -----  -----  -----  -----  -----  -----
                      capacity     operations     bandwidth 
pool                alloc   free   read  write   read  write
------------------  -----  -----  -----  -----  -----  -----
august               242G
"""

# --- from the manual ---------------------------------------------------------------------

# `zpool iostat -c size` (a script column under no group; the pool row has no value for it),
# man/man8/zpool-iostat.8 Example 16, as quoted in docs/zfs-output-reference.md §2.3.
IOSTAT_C_MANPAGE = """\
              capacity     operations     bandwidth
pool        alloc   free   read  write   read  write  size
----------  -----  -----  -----  -----  -----  -----  ----
rpool       14.6G  54.9G      4     55   250K  2.69M
  sda1      14.6G  54.9G      4     55   250K  2.69M   70G
----------  -----  -----  -----  -----  -----  -----  ----
"""
