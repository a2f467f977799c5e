#!/bin/bash
# Installs the Debian packages tools/dev.sh package made in a minimal Debian
# bookworm (mmdebstrap --variant=minbase, in a chroot; needs root), checks
# what a user would try, then removes them and checks nothing is left:
#
#   tools/package-check.sh [build/graphgen_*.deb build/graphgen-mpi_*.deb]
#
# apt-get install ./graphgen_*.deb must pull every dependency from Debian;
# then graphgen --version, a PNG of testdata/demo.pstats, a Very Sleepy archive
# read and an .xz file (libarchive, Graphviz and the decompressors are loaded
# on first use), `graphgen run` (its module with
# libpython too), `import graphgen`,
# `python3 -m graphgen`, `man graphgen`, bash completion of `graphgen -T `,
# graphgen-mpi --version; apt-get purge must leave no file of theirs (man's
# own cache of formatted pages, /var/cache/man, is man-db's).
# Prints one line per check and exits 0 when every one holds.
set -u
root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "package-check: needs root (chroot)"; exit 2; }
debs=("$@")
[ ${#debs[@]} -gt 0 ] || debs=("$root_dir"/build/graphgen_*.deb "$root_dir"/build/graphgen-mpi_*.deb)
for d in "${debs[@]}"; do [ -f "$d" ] || { echo "package-check: no $d (tools/dev.sh package makes them)"; exit 2; }; done
command -v mmdebstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
work=$(mktemp -d /tmp/package-check.XXXX)
trap 'rm -rf "$work"' EXIT
chroot_dir=$work/root
echo "package-check: a minimal Debian in $chroot_dir"
mmdebstrap --variant=minbase --include=ca-certificates,man-db,bash-completion bookworm "$chroot_dir" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" > "$work/log" 2>&1 \
  || { echo "package-check: mmdebstrap failed:"; tail -5 "$work/log"; exit 2; }
mkdir -p "$chroot_dir/pkg"
cp "${debs[@]}" "$root_dir/testdata/demo.pstats" "$root_dir/testdata/sleepy/demo.sleepy" \
  "$root_dir/testdata/compressed/demo.pstats.xz" "$chroot_dir/pkg/"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
cat > "$chroot_dir/pkg/check.sh" <<'EOF'
#!/bin/bash
set -u
failed=0
check() {  # check WHAT COMMAND...: one line, ok or FAILED with the output's end
  local what=$1; shift
  if out=$("$@" 2>&1); then echo "package-check: ok      $what"; else
    echo "package-check: FAILED  $what"; printf '%s\n' "$out" | tail -5 | sed 's/^/    /'; failed=1; fi
}
cd /pkg
apt-get update -qq
check "apt-get install ./graphgen*.deb (pulls the dependencies)" \
  env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./graphgen_*.deb ./graphgen-mpi_*.deb
check "graphgen --version" sh -c 'graphgen --version | grep -q "^graphgen "'
# Graphviz is loaded when a graph is laid out: the package's Depends must bring it too.
check "graphgen demo.pstats -o x.png" sh -c 'graphgen demo.pstats -o /tmp/x.png && head -c 8 /tmp/x.png | od -c | grep -q "P   N   G"'
# libarchive is loaded when an archive is read: the package's Depends must bring it.
check "graphgen demo.sleepy -T folded" sh -c 'graphgen demo.sleepy -T folded | grep -q "^[^ ]* [0-9]"'
# The decompressors too (xz here; bzip2, zstd and zlib the same way).
check "graphgen demo.pstats.xz -T stats" sh -c 'graphgen demo.pstats.xz -T stats | grep -q "function calls"'
check "graphgen run (the embedded Python, loaded on first use)" sh -c 'cd /tmp && printf "sorted(range(9))\n" > s.py && graphgen run -q -T stats -o - s.py | grep -q "function calls"'
check "python3 -c 'import graphgen'" python3 -c 'import graphgen, cProfile; p = cProfile.Profile(); p.enable(); sorted(range(9)); p.disable(); assert "digraph" in graphgen.render(p)'
check "python3 -m graphgen --version" sh -c 'python3 -m graphgen --version | grep -q "^graphgen "'
check "man graphgen" sh -c 'MANPAGER=cat man graphgen 2>/dev/null | grep -q -- "--help-all" && MANPAGER=cat man graphgen-run | grep -q memory'
check "completion of graphgen -T <TAB>" bash -c 'source /usr/share/bash-completion/bash_completion; _completion_loader graphgen; COMP_WORDS=(graphgen -T p); COMP_CWORD=2; _graphgen; printf "%s\n" "${COMPREPLY[@]}" | grep -qx png'
check "graphgen-mpi --version" sh -c 'graphgen-mpi --version | grep -q "^graphgen-mpi "'
files=$(dpkg -L graphgen graphgen-mpi | sort -u)
check "apt-get purge graphgen graphgen-mpi" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq graphgen graphgen-mpi
left=$(for f in $files; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done; \
       find / -xdev \( -path /pkg -o -path /proc -o -path /tmp -o -path /var/cache/man \) -prune -o \
         -name '*graphgen*' -print 2>/dev/null)
check "nothing of graphgen left" test -z "$left"
[ -z "$left" ] || printf '    left: %s\n' $left
exit $failed
EOF
chmod +x "$chroot_dir/pkg/check.sh"
unshare -m --propagation private sh -c "mount -t proc proc '$chroot_dir/proc' && mount --rbind /dev '$chroot_dir/dev' && \
  chroot '$chroot_dir' /pkg/check.sh"
rc=$?
echo "package-check: exit $rc"
exit $rc
