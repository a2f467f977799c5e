#!/usr/bin/env bash
# graphgen developer entry point.
#
#   tools/dev.sh build   install the Debian packages building needs, configure build/ (Release), build
#                        graphgen (not the tests)
#   tools/dev.sh test    install the test tools too, build with the tests, check the formatting,
#                        then run the whole suite with ctest
#   tools/dev.sh test --sanitize   the whole suite built with ASan+UBSan, in build-sanitize/
#   tools/dev.sh demo    build, render testdata/demo.pstats to build/demo.png, print its path
#   tools/dev.sh format  reformat the sources with clang-format (the test command checks them)
#   tools/dev.sh package build, then the Debian packages graphgen_*.deb and graphgen-mpi_*.deb in
#                        build/ (cpack; Depends from dpkg-shlibdeps, and from dpkg-query for the
#                        libraries loaded on first use); tools/package-check.sh
#                        installs them in a minimal Debian and checks them
#   tools/dev.sh fuzz [SECONDS [TARGET...]]   the libFuzzer targets (default: all) for SECONDS each
#                        (default 60), built with clang in build-fuzz/
#
# Installing is idempotent and quiet when nothing is missing. Set
# GRAPHGEN_BUILD_DIR to build elsewhere, GRAPHGEN_JOBS for the parallelism.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GRAPHGEN_BUILD_DIR:-$root/build}
jobs=${GRAPHGEN_JOBS:-$(nproc 2>/dev/null || echo 2)}

# What building needs (build, demo), all from Debian:
#   cmake g++ ninja-build pkg-config   the toolchain
#   libgraphviz-dev                    in-process PNG/SVG/PDF (cgraph + gvc)
#   libspdlog-dev libfmt-dev           logging, formatting
#   libcli11-dev                       the command line
#   zlib1g-dev libbz2-dev liblzma-dev libzstd-dev   compressed inputs (.gz .bz2 .xz .zst)
#   libexpat1-dev                      sysprof's XML, CUBE4's anchor.xml
#   libarchive-dev                     CUBE4's .cubex (tar archives), Very Sleepy's .sleepy (zip archives)
#   libsimdjson-dev                    gprof2dot's JSON format
#   protobuf-compiler libprotobuf-dev  pprof's profile.proto, read and written
#   golang-github-google-pprof-dev     Debian's copy of profile.proto (3.9 MB of Go sources, no Go toolchain)
#   python3-dev                        graphgen run (embedded CPython) and the graphgen module
#   libopenmpi-dev openmpi-bin         graphgen-mpi
#   help2man                           the man page cmake --install puts beside graphgen
build_packages=(cmake g++ ninja-build pkg-config libgraphviz-dev libspdlog-dev libfmt-dev libcli11-dev
                zlib1g-dev libbz2-dev liblzma-dev libzstd-dev libexpat1-dev libarchive-dev libsimdjson-dev
                help2man protobuf-compiler libprotobuf-dev golang-github-google-pprof-dev python3-dev libopenmpi-dev
                openmpi-bin)
# What the tests need besides (test only):
#   libgtest-dev                       unit and conformance tests
#   libpng-dev                         tests decode graphgen's PNG to compare its pixels with cairo's
#   nlohmann-json3-dev                 tests read Python's decoded .expected.json
#   clang-format                       the suite checks the sources follow .clang-format
#   python3-numpy                      tests profile a script that calls a C extension
#   chromium                           tests open the flame graph and the HTML report headless
#   valgrind                           tests check written callgrind files with callgrind_annotate
#   xz-utils                           bench/ decompresses ../shared/bench
#   python3-html5lib                   the invariant suite parses every HTML output as HTML5
#   python3-jsonschema                 tests validate the speedscope output against speedscope's schema
#   pyprof2calltree                    tests give its command lines to both and compare the callgrind files
#   jupyter-nbconvert python3-ipykernel  a test executes a notebook using %graphgen (no pandoc: no recommends)
#   python3-venv                       tests make venvs: pip install of pyproject.toml, python -m graphgen run
# (python3 runs the conformance comparators in ../shared; it comes with python3-dev.)
test_packages=(libgtest-dev libpng-dev nlohmann-json3-dev clang-format python3-numpy chromium valgrind xz-utils python3-html5lib
               python3-jsonschema pyprof2calltree jupyter-nbconvert python3-ipykernel python3-venv)
packages=("${build_packages[@]}")

say() { printf 'dev.sh: %s\n' "$*" >&2; }

install_missing() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      say "missing packages: ${missing[*]}; install them as root (apt-get install ${missing[*]})"
      exit 1
    fi
  fi
  "${sudo[@]}" apt-get update -qq
  # What apt will install with their dependencies, and about how much.
  local plan count size
  plan=$(apt-get install -s --no-install-recommends "${missing[@]}" 2>/dev/null | awk '/^Inst /{print $2}')
  count=$(printf '%s\n' "$plan" | grep -c . || true)
  size=$(printf '%s\n' "$plan" | xargs -r apt-cache show --no-all-versions 2>/dev/null |
    awk '/^Installed-Size:/{kb += $2} END {printf "%d", kb / 1024}')
  say "installing ${missing[*]}: $count packages with their dependencies, about ${size:-?} MB"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  say "installed"
}

# $1: ON to build the tests too (test), OFF for build and demo in a new
# build folder (an existing one keeps what it has).
configure_and_build() {
  local tests=$1
  install_missing
  local generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGRAPHGEN_TESTS="$tests" >/dev/null
  elif [ "$tests" = ON ] && ! grep -q '^GRAPHGEN_TESTS:BOOL=ON' "$build/CMakeCache.txt"; then
    cmake "$build" -DGRAPHGEN_TESTS=ON >/dev/null
  fi
  cmake --build "$build" --parallel "$jobs"
}

# The C++ sources of the project (not build/).
sources() {
  find "$root/lib" "$root/formats" "$root/pipeline" "$root/python" "$root/tools" "$root/tests" "$root/bench" \( -name '*.cc' -o -name '*.h' \) -print0 2>/dev/null
}

check_format() {
  local bad
  bad=$(sources | xargs -0 clang-format --dry-run 2>&1 | grep -c 'warning:' || true)
  if [ "$bad" != 0 ]; then
    sources | xargs -0 clang-format --dry-run 2>&1 | grep 'warning:' | head -5 >&2
    say "$bad lines do not follow .clang-format; run 'tools/dev.sh format'"
    exit 1
  fi
}

# A second build with sanitizers; leaks of Graphviz's, fontconfig's, Python's
# and its C extensions' own allocations are the only ones suppressed
# (tests/sanitizer/lsan.supp).
test_sanitized() {
  install_missing
  local dir=${GRAPHGEN_SANITIZE_DIR:-$root/build-sanitize} generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHGEN_SANITIZE=ON >/dev/null
  fi
  cmake --build "$dir" --parallel "$jobs"
  # symbolize=0: naming the frames of the leaks suppressed at every exit
  # cost each process 0.2 s (libasan's debug information read again), past
  # the timeouts of the tests that run graphgen a thousand times; the
  # reports' frames are named afterwards, by tests/sanitizer/symbolize.py.
  # report_globals=0: GCC registers UBSan's 220 000 descriptors with ASan as
  # globals of their own, half the page faults of each process's start
  # (0.05 of a sanitized `graphgen --version`'s 0.10 s, 0.12 of the test
  # binary's 0.34 s); the fuzz replays, which read every input with every
  # reader and writer, register them and so check global overflows
  # (tests/fuzz/CMakeLists.txt).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=0:report_globals=0 \
    LSAN_OPTIONS=suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0:symbolize=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure --parallel "$jobs" 2>&1 | python3 "$root/tests/sanitizer/symbolize.py"
}

# libFuzzer targets (clang), each run for $1 seconds; stops at the first
# finding and prints the file that reproduces it.
fuzz() {
  local seconds=${1:-60} dir=${GRAPHGEN_FUZZ_DIR:-$root/build-fuzz} generator=()
  packages+=(clang libclang-rt-14-dev)
  install_missing
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGRAPHGEN_FUZZ=ON -DGRAPHGEN_RENDER=OFF >/dev/null
  fi
  cmake --build "$dir" --parallel "$jobs"
  mkdir -p "$dir/findings"
  local target targets=("${@:2}")
  # Every target of tests/fuzz (or the ones named after the seconds).
  if [ ${#targets[@]} -eq 0 ]; then
    for target in "$root"/tests/fuzz/fuzz_*.cc; do
      target=${target##*/fuzz_}
      targets+=("${target%.cc}")
    done
  fi
  for target in "${targets[@]}"; do
    mkdir -p "$dir/corpus/$target"
    say "fuzzing $target for ${seconds}s"
    if ! (cd "$dir" && "$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -max_len=100000 \
          -rss_limit_mb=2048 -print_final_stats=1 -dict="$root/tests/fuzz/dict/$target.dict" \
          -artifact_prefix="$dir/findings/$target-" "$dir/corpus/$target" "$root/tests/fuzz/corpus/$target" \
          "$root/testdata" > "$dir/findings/$target.log" 2>&1); then
      say "fuzz_$target found a problem; reproduce with: $dir/tests/fuzz/fuzz_$target $(ls -t "$dir"/findings/$target-* 2>/dev/null | head -1)"
      tail -30 "$dir/findings/$target.log" >&2
      exit 1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$dir/findings/$target.log" | sed "s/^/  $target /" >&2
  done
}

case "${1:-build}" in
  build)
    configure_and_build OFF
    ;;
  test)
    packages+=("${test_packages[@]}")
    if [ "${2:-}" = "--sanitize" ]; then
      test_sanitized
      exit 0
    fi
    configure_and_build ON
    check_format
    ctest --test-dir "$build" --output-on-failure --parallel "$jobs"
    ;;
  fuzz)
    fuzz "${2:-60}" "${@:3}"
    ;;
  format)
    packages+=(clang-format)
    install_missing
    sources | xargs -0 clang-format -i
    ;;
  package)
    packages+=(dpkg-dev file)  # (dpkg-shlibdeps: the packages' Depends; cpack runs file on the binaries)
    configure_and_build OFF
    (cd "$build" && cpack -G DEB >/dev/null)
    ls "$build"/graphgen*_"$(sed -n 's/^project(graphgen VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"-*.deb
    ;;
  demo)
    configure_and_build OFF
    out="$build/demo.png"
    "$build/graphgen" "$root/testdata/demo.pstats" -o "$out"
    echo "$out"
    ;;
  -h|--help|help)
    sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    ;;
  *)
    say "unknown command '$1' (expected build, test, test --sanitize, demo, format, package or fuzz [SECONDS [TARGET...]])"
    exit 2
    ;;
esac
