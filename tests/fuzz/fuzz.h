// Shared by the fuzz targets: each is one LLVMFuzzerTestOneInput of a few
// lines that feeds the bytes to a reader (or to the whole front door).
// Built with clang and -DGRAPHGEN_FUZZ=ON they are libFuzzer targets; with
// any compiler they link replay_main.cc and run as ordinary tests over
// testdata/, ../shared/corpus and their seed corpus (fmt's FMT_FUZZ_LINKMAIN).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chrome/trace_writer.h"
#include "common/read_options.h"
#include "graphgen/error.h"
#include "graphgen/io.h"

namespace graphgen::fuzz {

/// The input as a file named "fuzz" (what readers see).
inline InputFile input(const std::uint8_t* data, std::size_t size) {
  return InputFile::from_bytes("fuzz", std::string(reinterpret_cast<const char*>(data), size));
}

/// Read options as the pipeline gives them: a budget in proportion to the input.
inline formats::ReadOptions options(std::size_t size) {
  formats::ReadOptions o;
  o.memory_budget = formats::default_budget(size);
  return o;
}

/// The same, with the timeline kept (-T trace): the readers of inputs with
/// sample times.
inline formats::ReadOptions timed(std::size_t size) {
  formats::ReadOptions o = options(size);
  o.keep_timeline = true;
  return o;
}

/// A crash the fuzzer must report: an error of more than one line, or two
/// paths that must agree but do not.
[[noreturn]] inline void fail() { __builtin_trap(); }

inline void check_one_line(const Error& e) {
  if (e.message.empty() || e.message.find('\n') != std::string::npos) fail();
}

template <class T>
void check(const Expected<T>& r) {
  if (!r) check_one_line(r.error());
}

/// A profile read with its timeline, written as a trace (empty: an error,
/// of one line).
inline std::string trace(const Expected<Profile>& p) {
  check(p);
  if (!p) return {};
  Diagnostics diag;
  auto t = chrome::write_trace(*p, {"fuzz", std::size_t{64} << 20}, diag);
  check(t);
  return t ? *t : std::string();
}

}  // namespace graphgen::fuzz
