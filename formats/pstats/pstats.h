// pstats files: the marshalled dict that cProfile, profile and pstats write.
//
// Grammar (docs/formats.md §2):
//   stats   = { key: (cc, nc, tt, ct, callers), ... }
//   key     = (filename: str, line: int, funcname: str | code object)
//   callers = { key: (nc, cc, tt, ct)[*k] | int, ... }
// cc/nc are ints, tt/ct ints or floats (seconds). Caller tuples of 4k items
// (old concatenated callers) are summed per group of four; an int caller
// value is the pure-Python profiler's call count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/flat_index.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::pstats {

/// A Python number as pstats holds it: int or float.
struct Number {
  bool is_int = true;
  std::int64_t i = 0;
  double f = 0;

  static Number of_int(std::int64_t v) { return {true, v, 0}; }
  static Number of_float(double v) { return {false, 0, v}; }
  double as_double() const { return is_int ? static_cast<double>(i) : f; }
  std::int64_t as_int() const { return is_int ? i : static_cast<std::int64_t>(f); }
  /// Python `a + b`: int + int stays int, anything else is float.
  friend Number operator+(Number a, Number b);
  friend bool operator==(const Number& a, const Number& b) = default;
};

struct Key {
  StringId file = kNoString;
  std::int64_t line = 0;
  StringId name = kNoString;  // for a code object: `<code object NAME, file "F", line N>`
  bool code = false;
  friend bool operator==(const Key& a, const Key& b) = default;
};


/// One entry of a callers dict: a tuple of 4k numbers, or an int.
struct Caller {
  std::uint32_t key = 0;       // index into Table::keys
  bool is_int = false;         // the pure-Python profiler's plain count
  std::uint32_t begin = 0;     // into Table::numbers
  std::uint32_t count = 0;     // 1 for an int, 4k for a tuple
};

struct Entry {
  std::uint32_t key = 0;
  Number cc, nc, tt, ct;
  std::vector<Caller> callers;  // in the dict's order
};

/// The stats dict exactly as Python sees it, in dict order.
struct Table {
  StringTable strings;
  std::vector<Key> keys;
  FlatIndex key_index;  // Key -> index into keys
  std::vector<Entry> entries;
  std::vector<std::int32_t> entry_of_key;  // -1 when the key is only a caller
  std::vector<Number> numbers;

  std::uint32_t intern_key(const Key& k);
  /// The index of a key already interned, or -1.
  std::int64_t find_key(const Key& k) const;
  std::string_view str(StringId id) const { return strings.view(id); }
};

/// Decodes and validates a pstats file. Errors: `PATH:+0xOFF: what`.
Expected<Table> read_table(std::string_view bytes, std::string_view path, Diagnostics& diag);

/// Adds `other` into `into` exactly as pstats.Stats.add does (all fields
/// summed, callers merged key by key). Fails on an int/tuple caller clash.
Expected<bool> add(Table& into, const Table& other, std::string_view other_path);

/// Reads and merges files as pstats.Stats(*files) does, decoding on two
/// threads and adding each file straight into one table (no table per file),
/// in that order, so the result does not depend on the threads' timing.
Expected<Table> merge_files(const std::vector<InputFile>& inputs, Diagnostics& diag);

/// The model of a table with gprof2dot's reading of it: functions in order
/// of first appearance, label `module:line:name`, self = tt, inclusive = ct,
/// calls = nc; one edge per caller entry (count = nc, primitive count = cc,
/// inclusive = ct; or for int entries count = n, inclusive = n / nc * ct).
/// Times in ns.
Profile to_profile(const Table& table);

/// gprof2dot's node name: basename of the filename without extension.
std::string module_of(std::string_view filename);

}  // namespace graphgen::pstats
