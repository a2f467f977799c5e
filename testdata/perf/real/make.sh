#!/bin/bash
# How the recordings in this folder were made (as root, perf 6.1.187, Debian 12's xz 5.4.1,
# sqlite3 3.40.1, lua5.4 5.4.4, gzip 1.12, python3 3.11.2 with python3-docutils), in an empty
# folder given as $1: the .perf.xz files and their stackcollapse-perf.pl oracles
# (FlameGraph 41fee1f, SC below). Recordings differ from run to run; the oracles are made from the
# recordings kept here.
set -e
cd "${1:-.}"
SC=${SC:-stackcollapse-perf.pl}
head -c 3000000 /dev/urandom | base64 > data.txt
cat > q.sql <<'SQL'
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<300000) SELECT count(*), sum(x*x % 7) FROM c;
CREATE TABLE t(a,b); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<100000) INSERT INTO t SELECT x, random() FROM c;
SELECT count(*) FROM (SELECT * FROM t ORDER BY b);
SQL
LUA='local t={} for i=1,300000 do t[i]=tostring(i*7%1000) end table.sort(t) local s=0 for i=1,#t do s=s+#t[i] end print(s)'
rec() { name=$1; shift; perf record -q -o $name.data "$@" >/dev/null 2>&1; }
# 1 frame pointers (-g; Debian builds xz without them, so its stacks are short)
rec xz-fp -g -F 499 -- xz -6 -T1 -c data.txt
perf script -i xz-fp.data > xz-fp.perf
# 2 dwarf
rec lua-dwarf --call-graph dwarf,16384 -F 99 -- lua5.4 -e "$LUA"
perf script -i lua-dwarf.data > lua-dwarf.perf
# 3 no -g
rec sqlite-nog -F 499 -- sqlite3 :memory: ".read q.sql"
perf script -i sqlite-nog.data > sqlite-nog.perf
# 4 -F +pid
rec sqlite-g -g -F 499 -- sqlite3 :memory: ".read q.sql"
perf script -i sqlite-g.data -F +pid > sqlite-pid.perf
# 5 two events
rec lua-events -e task-clock,page-faults -g -F 499 -- lua5.4 -e "$LUA"
perf script -i lua-events.data > lua-events.perf
# 6 threads, and several processes
rec xz-threads -g -F 299 -- xz -6 -T4 --block-size=500KiB -c data.txt
perf script -i xz-threads.data > xz-threads.perf
rec procs -g -F 299 -- sh -c 'xz -3 -c data.txt >/dev/null & gzip -6 -c data.txt > /dev/null & lua5.4 -e "$0"; wait' "$LUA"
perf script -i procs.data > procs.perf
# 7 a fixed period (-c)
rec lua-period -g -c 2000000 -e task-clock -- lua5.4 -e "$LUA"
perf script -i lua-period.data > lua-period.perf
# 8 a user-only event
rec gzip-user -g -F 499 -e cpu-clock:u -- gzip -9 -c data.txt
perf script -i gzip-user.data > gzip-user.perf
# 9 python (docutils)
printf 'Title\n=====\n\n' > doc.rst; for i in $(seq 1 200); do printf 'Section %d\n-----------\n\nSome *text* with ``code`` and a list:\n\n- one\n- two **bold**\n\n' $i >> doc.rst; done
rec python-docutils -g -F 499 -- /usr/bin/python3 /usr/bin/rst2html doc.rst /dev/null
perf script -i python-docutils.data > python-docutils.perf
# -F selections of the docutils recording, and a recording with frameless samples
perf script -i python-docutils.data -F comm,tid,ip,sym,dso > py-comm-tid.perf
perf script -i python-docutils.data -F comm,pid,tid,ip,sym,dso > py-comm-pid-tid.perf
perf script -i python-docutils.data -F comm,tid,time,ip,sym,dso > py-comm-tid-time.perf
rec lua-kcallchains -g --kernel-callchains -F 499 -- lua5.4 -e 'local f=io.open("/dev/null","w") local t={} for i=1,200000 do t[i]=tostring(i) f:write(t[i]) end f:close()'
perf script -i lua-kcallchains.data > lua-kcallchains.perf
# The oracles (sqlite-nog's is empty: stackcollapse-perf.pl writes nothing without -g)
for f in *.perf; do n=${f%.perf}; perl $SC $f > $n.stackcollapse.folded; done
perl $SC --event-filter=task-clock lua-events.perf > lua-events.stackcollapse-task-clock.folded
rm -f gzip-g.perf sqlite-g.perf sqlite-nog.stackcollapse.folded
for f in *.perf; do xz -9 $f; done
