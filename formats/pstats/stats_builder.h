// The one set of pstats rules: how a stats dict's keys become functions,
// an entry (cc, nc, tt, ct, callers) their counts and times, and a caller
// entry a call. Fed by the marshal tree (reader.cc), the streaming reader
// (stream.cc) and live Python dicts (python/bridge.cc), so the three agree
// by construction, as speedscope's importers all speak to one builder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/flat_index.h"
#include "graphgen/profile.h"

namespace graphgen::pstats {

/// A decoded key: interned file and name, the line, and for the
/// pure-Python profiler's code-object names the marshalled code object.
struct Key {
  StringId file = kNoString;
  std::int64_t line = 0;
  StringId name = kNoString;
  StringId code = kNoString;
  friend bool operator==(const Key&, const Key&) = default;
};

/// One caller entry before it is a call: cProfile's (nc, cc, tt, ct), whose
/// later groups of four (Python 2's 8- and 12-item tuples) add up, or the
/// pure-Python profiler's bare call count.
struct CallerStats {
  bool is_int = false;
  std::int64_t count = 0, primitive = 0;
  double along = 0, inclusive = 0;

  /// Item `i` of a caller tuple: a count (i % 4 < 2, saturating) or a
  /// time (the first group's as it is, later groups added).
  void add_item(std::size_t i, std::int64_t n, double t);
};

/// How Python's pstats labels a code object in a key (the pure-Python
/// profiler's), without the memory address its repr has.
std::string code_object_label(std::string_view name, std::string_view file, std::int64_t line);

class StatsBuilder {
 public:
  /// Makes `p` a pstats profile: one event, time in seconds, Python labels,
  /// the totals the profiler reported, calls with their own times.
  /// `input_bytes`, the file's size, sizes its tables. `keys_are_functions`:
  /// the reader asks for each new key's function before it meets another
  /// key (a file read as it is written: each key where it first appears),
  /// so every key is its function's id and the function itself holds it;
  /// no table of keys beside the functions (2.8 MB for 100 000 of them).
  /// `keep_call_self`: keep each call's own time (tt of its caller entry),
  /// which only the writers of whole profiles show; a call graph reads none
  /// (100 000 functions: 2 MB of the read's peak).
  explicit StatsBuilder(Profile& p, std::size_t input_bytes = 0, bool keys_are_functions = false,
                        bool keep_call_self = true);

  /// The row of `key`, added the first time it is seen.
  std::uint32_t key(const Key& key);
  std::size_t key_count() const { return keys_are_functions_ ? p_.functions.size() : keys_.size(); }

  /// The function of a key row, made when first met: gprof2dot's numbering.
  FuncId function(std::uint32_t key);

  /// A function's own entry: listed, with its counts and times.
  FuncId entry(std::uint32_t key, std::int64_t primitive_calls, std::int64_t calls, double tt, double ct);

  /// A call into `callee` from the function of `caller_key`.
  void caller(std::uint32_t caller_key, FuncId callee, const CallerStats& s);

 private:
  FuncId add_function(const Key& k);

  static constexpr FuncId kNoFunction = UINT32_MAX;
  // At least this many bytes of marshal data a function and a call, in
  // nearly every file cProfile writes; what a row (the function, its self
  // and total cost, its place in `listed`, its key and key's function) and
  // a call (with its cost and own time) reserve.
  static constexpr std::size_t kBytesPerRow = 96, kBytesPerCall = 44;
  static constexpr std::size_t kRowBytes = sizeof(Function) + 2 * sizeof(Cost) + 2 * sizeof(FuncId) + sizeof(Key);
  static constexpr std::size_t kCallBytes = sizeof(Call) + 2 * sizeof(Cost);
  Profile& p_;
  bool keys_are_functions_ = false;
  std::vector<Key> keys_;
  std::vector<FuncId> function_of_;
  DenseIndex index_;  // keys' rows (or functions), dense from 0
};

}  // namespace graphgen::pstats
