#include "stats_builder.h"

#include <fmt/format.h>

#include "graphgen/error.h"

namespace graphgen::pstats {

std::string code_object_label(std::string_view name, std::string_view file, std::int64_t line) {
  return fmt::format("<code object {}, file \"{}\", line {}>", name, file, line);
}

StatsBuilder::StatsBuilder(Profile& p, std::size_t input_bytes, bool keys_are_functions, bool keep_call_self)
    : p_(p), keys_are_functions_(keys_are_functions) {
  p.events.push_back({p.strings.intern("time"), p.strings.intern("s"), 1.0, true, kNoString});
  p.label_style = LabelStyle::kPython;
  p.reports_totals = true;
  p.keeps_call_self = keep_call_self;
  // The tables are reserved for the rows the file can hold, not grown as
  // rows come: growing copied each table once or twice over and faulted in
  // the new room each time (the 100k-function file 0.88× the time reserved).
  // cProfile's files take 77-161 bytes a function and 45-98 a call (Python
  // 3.6-3.13, the corpus and testdata), so these are upper bounds for most;
  // a denser file grows from there as before. Room reserved and not used is
  // never touched, so it is address space, not memory (within ulimit -v:
  // reservable()). (Files between 64 KiB and 1 MiB grew theirs while
  // malloc gave each freed table back to the kernel: reserving was 1.03×
  // slower on 1024 rank files of 133 KB then, 0.98× since malloc keeps it.)
  if (input_bytes > 0) {
    const std::size_t rows = reservable(input_bytes / kBytesPerRow * kRowBytes) / kRowBytes + 1;
    const std::size_t calls = reservable(input_bytes / kBytesPerCall * kCallBytes) / kCallBytes + 1;
    p.reserve(rows, calls);
    p.listed.reserve(rows);
    if (!keys_are_functions) {
      keys_.reserve(rows);
      function_of_.reserve(rows);
    }
  }
}

void CallerStats::add_item(std::size_t i, std::int64_t n, double t) {
  switch (i % 4) {
    case 0:
      count = saturating_add(count, n);
      break;
    case 1:
      primitive = saturating_add(primitive, n);
      break;
    case 2:
      along = i < 4 ? t : along + t;
      break;
    default:
      inclusive = i < 4 ? t : inclusive + t;
      break;
  }
}

namespace {
// A key's hash, of a Key or of the Function that holds it (the same fields).
template <class K>
std::uint32_t key_hash(const K& k) {
  return static_cast<std::uint32_t>(
      FlatIndex::mix(FlatIndex::mix(k.file, k.name, k.code), static_cast<std::uint64_t>(k.line)));
}
}  // namespace

std::uint32_t StatsBuilder::key(const Key& key) {
  const std::uint32_t h = key_hash(key);
  if (keys_are_functions_)
    return index_.find_or_add(
        h,
        [&](FuncId f) {
          const Function& fn = p_.functions[f];
          return fn.file == key.file && fn.line == key.line && fn.name == key.name && fn.code == key.code;
        },
        [&] { return add_function(key); }, [&](FuncId f) { return key_hash(p_.functions[f]); });
  return index_.find_or_add(
      h, [&](std::uint32_t k) { return keys_[k] == key; },
      [&] {
        keys_.push_back(key);
        function_of_.push_back(kNoFunction);
        return static_cast<std::uint32_t>(keys_.size() - 1);
      },
      [&](std::uint32_t k) { return key_hash(keys_[k]); });
}

FuncId StatsBuilder::add_function(const Key& k) {
  Function fn;
  fn.name = k.name;
  fn.file = k.file;
  fn.line = k.line;
  fn.code = k.code;
  return p_.add_function(fn);
}

FuncId StatsBuilder::function(std::uint32_t key) {
  if (keys_are_functions_) return key;
  FuncId& f = function_of_[key];
  if (f == kNoFunction) f = add_function(keys_[key]);
  return f;
}

FuncId StatsBuilder::entry(std::uint32_t key, std::int64_t primitive_calls, std::int64_t calls, double tt, double ct) {
  FuncId f = function(key);
  p_.listed.push_back(f);
  Function& fn = p_.functions[f];
  fn.calls = calls;
  fn.primitive_calls = primitive_calls;
  p_.self(f, 0) = float_cost(tt);
  p_.total(f, 0) = float_cost(ct);
  return f;
}

void StatsBuilder::caller(std::uint32_t caller_key, FuncId callee, const CallerStats& s) {
  const FuncId from = function(caller_key);
  CallId c = p_.add_call({from, callee, s.count, s.is_int ? kUnknownCount : s.primitive});
  if (s.is_int) {
    // The pure-Python profiler's count: times follow from the counts.
    p_.call_costs_from_counts = true;
    p_.inclusive(c, 0) = float_cost(0.0);
    if (p_.keeps_call_self) p_.along(c, 0) = float_cost(0.0);
    return;
  }
  if (p_.keeps_call_self) p_.along(c, 0) = float_cost(s.along);
  p_.inclusive(c, 0) = float_cost(s.inclusive);
}

}  // namespace graphgen::pstats
