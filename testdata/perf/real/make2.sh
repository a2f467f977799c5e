#!/bin/bash
# The second set of recordings in this folder (as root, perf 6.1.187, Debian 12's xz 5.4.1,
# sqlite3 3.40.1, lua5.4 5.4.4, gzip 1.12, python3 3.11.2 with python3-docutils 0.19 and
# python3-pygments 2.14), in an empty folder given as $1, as make.sh made the first. The inputs are
# generated from a fixed seed; the recordings still differ from run to run, and the oracles
# (FlameGraph's stackcollapse-perf.pl 41fee1f, SC below) are made from the recordings kept here.
set -e
cd "${1:-.}"
SC=${SC:-stackcollapse-perf.pl}
cp /usr/lib/python3.11/argparse.py .
/usr/bin/python3 - <<'PY'          # data.txt: 3 000 040 bytes of word lines, md5 4de7144450a3c0a4c7bcfb41e105a028
import random
r=random.Random(42)
words=[''.join(r.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(r.randint(2,9))) for _ in range(3000)]
with open('data.txt','w') as f:
    n=0
    while n<3_000_000:
        line=' '.join(r.choice(words) for _ in range(12))+' %d\n'%r.randint(0,10**6)
        f.write(line); n+=len(line)
PY
head -c 800000 data.txt > d1.txt; head -c 1100000 data.txt > d2.txt; cat data.txt data.txt data.txt > d9.txt
cat > cte.sql <<'SQL'
WITH RECURSIVE fib(n,a,b) AS (SELECT 1,0,1 UNION ALL SELECT n+1, b%1000003, (a+b)%1000003 FROM fib WHERE n<400000) SELECT count(*), max(a), sum(b)%97 FROM fib;
SQL
cat > sort.sql <<'SQL'
CREATE TABLE r(k TEXT, v INTEGER);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<200000) INSERT INTO r SELECT hex(randomblob(6)), x FROM c;
SELECT count(*), min(k), max(k) FROM (SELECT k, v FROM r ORDER BY k DESC);
SQL
cat cte.sql sort.sql > both.sql
/usr/bin/python3 - <<'PY'          # doc.rst: 1325 lines, 60 sections (emphasis, literal, link, list, footnotes, simple table, literal block)
out=["graphgen sample document","========================","",".. contents::","",]
for i in range(1,61):
    out+= [f"Part {i}", "-"*(len(str(i))+5), "",
      f"This paragraph has *emphasis*, **strong** text, ``literal {i}`` and a link to `FlameGraph <https://github.com/brendangregg/FlameGraph>`_.",
      "", "- first item", "- second item with a footnote [#]_", "", f".. [#] Footnote number {i}.", "",
      "=====  =====  ======", "  a      b    a+b", "=====  =====  ======", f"  {i}      2    {i+2}", f"  {i*3}      5    {i*3+5}", "=====  =====  ======", "",
      "::", "", f"    def f{i}(x):", f"        return x * {i}", ""]
open("doc.rst","w").write("\n".join(out)+"\n")
PY
FIB='local function fib(n) if n<2 then return n end return fib(n-1)+fib(n-2) end local s=0 for i=1,31 do s=s+fib(i) end print(s)'
rec() { name=$1; shift; echo "== $name: perf record -o $name.data $*" >> record.log; perf record -q -o $name.data "$@" >/dev/null 2>>record.log; }
# 1 frame pointers
rec xz9-fp -g -F 499 -- xz -9 -T1 -c d2.txt
perf script -i xz9-fp.data > xz9-fp.perf
perf script -i xz9-fp.data --max-stack=1 > xz9-stack1.perf
# 2 dwarf
rec sqlite-dwarf --call-graph dwarf -F 49 -- sqlite3 :memory: ".read both.sql"
perf script -i sqlite-dwarf.data > sqlite-dwarf.perf
# 3 no -g
rec xz9-nog -F 499 -- xz -9 -T1 -c d1.txt
perf script -i xz9-nog.data > xz9-nog.perf
# 4
rec sqlite-sort -g -F 499 -- sqlite3 :memory: ".read sort.sql"
perf script -i sqlite-sort.data -F comm,tid,ip,sym,dso > sqlite-comm-tid.perf
# 5 (and --max-stack=0)
rec lua-fib -g -F 499 -- lua5.4 -e "$FIB"
perf script -i lua-fib.data -F comm,pid,tid,ip,sym,dso > lua-comm-pid-tid.perf
perf script -i lua-fib.data --max-stack=0 > lua-maxstack0.perf
# 6 and 9: two threads
rec xz-t2 -g -F 499 -- xz -6 -T2 --block-size=400KiB -c data.txt
perf script -i xz-t2.data > xz-t2.perf
perf script -i xz-t2.data -F comm,tid,time,ip,sym,dso > xz-t2-comm-tid-time.perf
# 7
rec pygments-pid -g -F 499 -- /usr/bin/pygmentize -f html -o /dev/null argparse.py
perf script -i pygments-pid.data -F +pid > pygments-pid.perf
# 8 two events
rec sqlite-events -e task-clock,page-faults -g -F 499 -- sqlite3 :memory: ".read sort.sql"
perf script -i sqlite-events.data > sqlite-events.perf
# 9 several processes
rec procs-xz-gzip -g -F 499 -- sh -c 'xz -9 -T1 -c d1.txt >/dev/null & gzip -9 -c d9.txt >/dev/null; wait'
perf script -i procs-xz-gzip.data > procs-xz-gzip.perf
# 10 kernel callchains only: samples taken in user space have no frame
rec gzip-kcallchains -g --kernel-callchains -F 499 -- gzip -9 -c d9.txt
perf script -i gzip-kcallchains.data > gzip-kcallchains.perf
rec xz9-kcallchains -g --kernel-callchains -F 499 -- xz -9 -T1 -c d1.txt
perf script -i xz9-kcallchains.data > xz9-kcallchains.perf
# 11 a fixed period, and periods that vary (page-faults in frequency mode)
rec sqlite-c -g -c 1000000 -e task-clock -- sqlite3 :memory: ".read cte.sql"
perf script -i sqlite-c.data > sqlite-c.perf
rec lua-freq -g -F 199 -e task-clock -- lua5.4 -e "$FIB"
perf script -i lua-freq.data > lua-freq.perf
rec xz9-faults -g -F 499 -e page-faults -- xz -9 -T1 -c d1.txt
perf script -i xz9-faults.data > xz9-faults.perf
# 12 python
rec docutils-g -g -F 499 -- /usr/bin/python3 -m docutils doc.rst /dev/null
perf script -i docutils-g.data > docutils-g.perf
# The oracles (xz9-nog's would be empty: stackcollapse-perf.pl writes nothing without -g)
for f in *.perf; do n=${f%.perf}; perl "$SC" $f > $n.stackcollapse.folded; done
perl "$SC" --event-filter=page-faults sqlite-events.perf > sqlite-events.stackcollapse-page-faults.folded
perl "$SC" --event-filter=task-clock  sqlite-events.perf > sqlite-events.stackcollapse-task-clock.folded
rm xz9-nog.stackcollapse.folded     # 0 bytes: see xz9-nog
for f in *.perf; do xz -9 $f; done
