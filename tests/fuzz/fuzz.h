// Shared by the fuzz targets: each is one LLVMFuzzerTestOneInput of a few
// lines that feeds the bytes to a reader (or to the whole front door).
// Built with clang and -DGRAPHGEN_FUZZ=ON they are libFuzzer targets; with
// any compiler they link replay_main.cc and run as ordinary tests over
// testdata/, ../shared/corpus and their seed corpus (fmt's FMT_FUZZ_LINKMAIN).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <optional>
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

/// Everything a read gives, in order: its warnings, then its strings,
/// functions with every field a graph reads, calls, costs and reported
/// totals; or its error. Two reads that must agree give the same text.
/// With `by_name`, strings are written where their ids were, and the
/// string table is left out: two reads whose tables hold the same strings
/// in another order give the same text (perf's parts intern a process name
/// where its first sample is, which is not where one pass meets it first).
inline std::string tables(const Expected<Profile>& r, const Diagnostics& diag, bool by_name = false) {
  std::string out;
  for (const std::string& w : diag.warnings()) out += "warning " + w + "\n";
  if (!r) return out + "error " + r.error().message + "\n";
  const Profile& p = *r;
  auto str = [&](StringId id) { return by_name ? fmt::format("'{}'", p.str(id)) : fmt::format("{}", id); };
  if (!by_name)
    for (std::size_t i = 0; i < p.strings.size(); ++i)
      out += fmt::format("string {} {}\n", i, p.strings.view(static_cast<StringId>(i)));
  for (const Event& e : p.events) out += fmt::format("event {} {}\n", str(e.name), str(e.long_name));
  const std::size_t ne = p.events.size();
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    out += fmt::format("function {} name {} object {} {} file {} line {} calls {}:", f, str(fn.name), str(fn.object),
                       fn.has_object, str(fn.file), fn.line, fn.calls);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {}", p.self(f, e));
    out += "\n";
  }
  for (CallId c = 0; c < p.calls.size(); ++c) {
    out += fmt::format("call {} -> {} count {}:", p.calls[c].caller, p.calls[c].callee, p.calls[c].count);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {}", p.inclusive(c, e));
    out += "\n";
  }
  for (Cost c : p.reported.summary) out += fmt::format("summary {}\n", c);
  for (Cost c : p.reported.totals) out += fmt::format("totals {}\n", c);
  for (Cost c : p.reported.self_sums) out += fmt::format("self_sums {}\n", c);
  return out;
}

/// The sample stacks' tree of a read (tables() leaves it out): each node's
/// parent, function or process and costs, in order. Empty for an error.
inline std::string stacks(const Expected<Profile>& r, bool by_name = false) {
  if (!r) return {};
  std::string out;
  const Profile& p = *r;
  const std::size_t ne = p.events.size();
  for (std::size_t n = 0; n < p.stack_nodes.size(); ++n) {
    const StackNode& s = p.stack_nodes[n];
    out += fmt::format(
        "node {} parent {} function {} process {}:", n, s.parent, s.function,
        by_name && s.process != kNoString ? fmt::format("'{}'", p.str(s.process)) : fmt::format("{}", s.process));
    for (std::size_t e = 0; e < ne && (n + 1) * ne <= p.stack_node_cost.size(); ++e)
      out += fmt::format(" {}", p.stack_node_cost[n * ne + e]);
    out += "\n";
  }
  for (std::size_t i = 0; i < p.stack_total.size(); ++i) out += fmt::format("stack_total {}\n", p.stack_total[i]);
  return out;
}

/// A reader that reads large files in two parts (formats/common/two_parts.h)
/// made to cut this small input in two, with and without sample stacks:
/// both reads must give the same profile, stack tree and warnings.
template <class Read>
void two_parts(Read&& read, const std::uint8_t* data, std::size_t size) {
  InputFile in = input(data, size);
  for (bool keep_stacks : {true, false}) {
    formats::ReadOptions o = options(size);
    o.keep_stacks = keep_stacks;
    Diagnostics whole_diag, split_diag;
    const auto whole = read(in, o, whole_diag, SIZE_MAX);
    const auto split = read(in, o, split_diag, 0);
    check(whole);
    if (tables(whole, whole_diag) + stacks(whole) != tables(split, split_diag) + stacks(split)) fail();
  }
}

/// One input through a reader's two paths: the fast one (which may leave
/// the input to the other: `fast` is then empty) and the general one, each
/// as tables() (and trace() with `timeline`). Where the fast path takes an
/// input the two must be equal.
struct TwoPaths {
  std::optional<std::string> fast;
  std::string general;
};

template <class Fast, class General>
TwoPaths two_paths(const InputFile& in, const formats::ReadOptions& options, Fast&& fast, General&& general,
                   bool timeline = false) {
  TwoPaths out;
  Diagnostics fast_diag, general_diag;
  if (auto f = fast(in, options, fast_diag)) out.fast = tables(*f, fast_diag) + (timeline ? trace(*f) : "");
  auto g = general(in, options, general_diag);
  out.general = tables(g, general_diag) + (timeline ? trace(g) : "");
  return out;
}

}  // namespace graphgen::fuzz
