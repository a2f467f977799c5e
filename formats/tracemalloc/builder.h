// What both of tracemalloc's readers (reader.cc: the whole pickle decoded
// first; stream.cc: a trace at a time as the pickle is read) do with what
// they find: a function per (filename, lineno), each trace a sample of its
// frames, the counts the warnings give, and at the end each function's
// name and the description. Given the same traces in the same order, the
// two give the same profile, warnings and errors.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/read_options.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/error.h"
#include "graphgen/flat_index.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::tracemalloc {

/// "tracemalloc snapshot": the start of a snapshot's description.
std::string_view description();

class SnapshotBuilder {
 public:
  SnapshotBuilder(const InputFile& in, const formats::ReadOptions& options);

  /// The function of the frame (file, line): made on first sight.
  FuncId function(std::string_view file, std::int64_t line) { return function(file_name(file), line); }
  /// The same for a file already named by file_name().
  FuncId function(StringId file, std::int64_t line);
  /// A frame's file as the profile names it (interned: the same file
  /// named twice is one string).
  StringId file_name(std::string_view file) { return p_.strings.intern(file); }

  /// A traceback's index for trace(): the readers give one per traceback
  /// object (tracemalloc shares one tuple among the traces of one traceback).
  std::uint32_t new_traceback() {
    tracebacks_.emplace_back();
    return static_cast<std::uint32_t>(tracebacks_.size() - 1);
  }
  bool seen(std::uint32_t traceback) const { return tracebacks_[traceback].seen; }

  /// One trace of `bytes` in `traceback`, whose frames (leaf first) are
  /// `frames` the first time the traceback is seen (ignored after). False
  /// when the profile has outgrown the memory budget (then over_budget() is
  /// the error).
  bool trace(std::uint32_t traceback, const std::vector<FuncId>& frames, Cost bytes);
  /// The same for a trace whose traceback no other trace has (nothing of
  /// it is kept for another).
  bool only_trace(const std::vector<FuncId>& frames, Cost bytes);
  Error over_budget() const;
  /// Each trace's cut count, beside trace(): cut() for one whose
  /// total_nframe (3.9+) is more than its frames, uncertain() for one of
  /// `nframes` frames and no total_nframe (cut if the limit, known at the
  /// end, is as long).
  void cut() { ++cut_; }
  void uncertain(std::size_t nframes) { ++no_total_[nframes]; }
  void set_limit(std::int64_t limit) { limit_ = limit; }

  /// The warnings, the functions' names, the description: `traces` is the
  /// length of the list of traces.
  Profile finish(std::size_t traces, Diagnostics& diag);

  std::size_t functions() const { return p_.functions.size(); }

 private:
  void name_functions();
  // False past the memory budget (looked at every 4096 traces).
  bool within_budget();

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Profile p_;
  detail::StackBuilder builder_;
  FlatIndex functions_;  // by (file, line): the rows are the functions
  // Each traceback's frames (in `frames_`), and the bytes and blocks of its
  // traces after the first, added once at the end as one more sample of
  // them (the same cells its first trace added to: whole numbers, the same
  // sums in any order). Its frames are half of what a StackBuilder::Replay
  // of them would hold (a call and a function for each frame).
  struct Traceback {
    bool seen = false;
    std::uint32_t count = 0;  // frames
    std::size_t begin = 0;    // in frames_
    std::array<Cost, 2> pending = {0, 0};
  };
  std::vector<Traceback> tracebacks_;
  std::vector<FuncId> frames_;
  std::vector<FuncId> scratch_;
  std::map<std::size_t, std::size_t> no_total_;  // traces without total_nframe, by their frames
  std::size_t frameless_ = 0, counted_ = 0, cut_ = 0;
  std::int64_t limit_ = 0;
};

}  // namespace graphgen::tracemalloc
