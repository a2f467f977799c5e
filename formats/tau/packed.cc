// ParaProf's packed profiles (.ppk): every thread of a run in one file.
#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "builder.h"
#include "reader.h"

namespace graphgen::tau {

namespace {

constexpr std::string_view kMagic("\0P\0P\0K", 6);

// Java DataInputStream over the bytes: big-endian, every read checked.
class JavaReader {
 public:
  explicit JavaReader(std::string_view bytes) : b_(bytes) {}

  bool i32(std::int32_t& v) {
    if (b_.size() - pos_ < 4) return fail();
    std::uint32_t u;
    std::memcpy(&u, b_.data() + pos_, 4);
    if constexpr (std::endian::native == std::endian::little) u = __builtin_bswap32(u);
    v = static_cast<std::int32_t>(u);
    pos_ += 4;
    return true;
  }
  // A count of items of at least `min_item` bytes each: never more than the
  // bytes left can hold.
  bool count(std::size_t& n, std::size_t min_item) {
    std::int32_t v;
    if (!i32(v)) return false;
    if (v < 0 || static_cast<std::size_t>(v) > (b_.size() - pos_) / min_item) {
      pos_ -= 4;
      return fail();
    }
    n = static_cast<std::size_t>(v);
    return true;
  }
  bool f64(double& v) {
    if (b_.size() - pos_ < 8) return fail();
    std::uint64_t u;
    std::memcpy(&u, b_.data() + pos_, 8);
    if constexpr (std::endian::native == std::endian::little) u = __builtin_bswap64(u);
    v = std::bit_cast<double>(u);
    pos_ += 8;
    return true;
  }
  bool utf(std::string_view& s) {
    if (b_.size() - pos_ < 2) return fail();
    std::size_t n = (static_cast<unsigned char>(b_[pos_]) << 8) | static_cast<unsigned char>(b_[pos_ + 1]);
    if (b_.size() - pos_ - 2 < n) return fail();
    s = b_.substr(pos_ + 2, n);
    pos_ += 2 + n;
    return true;
  }
  bool skip(std::size_t n) {
    if (b_.size() - pos_ < n) return fail();
    pos_ += n;
    return true;
  }
  std::size_t offset() const { return failed_at_; }

 private:
  bool fail() {
    failed_at_ = pos_;
    return false;
  }
  std::string_view b_;
  std::size_t pos_ = 0, failed_at_ = 0;
};

}  // namespace

bool sniff_packed(std::string_view head) { return head.starts_with(kMagic); }

Expected<Profile> read_packed(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  JavaReader in(input.bytes());
  std::string what;
  auto broken = [&](std::string_view expected) {
    return bad_input(fmt::format("{}:+0x{:x}: expected {}, found the end of the file or a count larger than it",
                                 input.path(), in.offset(), expected));
  };
  if (!in.skip(kMagic.size()) || !input.bytes().starts_with(kMagic))
    return bad_input(fmt::format("{}:+0x0: expected a packed TAU profile (\"PPK\"), found other bytes", input.path()));
  std::int32_t version = 0, compat = 0, ignored = 0;
  if (!in.i32(version) || !in.i32(compat)) return broken("the version");
  if (compat > 2)
    return bad_input(
        fmt::format("{}:+0xa: expected a packed profile of compatibility 2 or less, found {}", input.path(), compat));
  std::size_t n = 0, skip = 0;
  std::string_view a, b;
  if (version >= 2) {
    if (!in.i32(ignored) || !in.count(skip, 1) || !in.skip(skip)) return broken("the header");
    if (!in.count(n, 4)) return broken("the trial metadata");
    for (std::size_t i = 0; i < n; ++i)
      if (!in.utf(a) || !in.utf(b)) return broken("a metadata name and value");
    if (!in.count(n, 16)) return broken("the threads' metadata");
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t meta = 0;
      if (!in.skip(12) || !in.count(meta, 4)) return broken("a thread's metadata");
      for (std::size_t j = 0; j < meta; ++j)
        if (!in.utf(a) || !in.utf(b)) return broken("a metadata name and value");
    }
  } else if (!in.count(skip, 1) || !in.skip(skip)) {
    return broken("the header");
  }
  std::size_t metrics = 0, groups = 0, functions = 0, events = 0, threads = 0;
  if (!in.count(metrics, 2) || metrics == 0) return broken("the metrics");
  std::vector<std::string> metric_names(metrics);
  for (std::string& m : metric_names) {
    if (!in.utf(a)) return broken("a metric name");
    m = a;
  }
  if (!in.count(groups, 2)) return broken("the groups");
  for (std::size_t i = 0; i < groups; ++i)
    if (!in.utf(a)) return broken("a group name");
  if (!in.count(functions, 6)) return broken("the functions");
  std::vector<std::string_view> names(functions);
  for (std::string_view& name : names) {
    std::size_t in_groups = 0;
    if (!in.utf(name) || !in.count(in_groups, 4) || !in.skip(in_groups * 4)) return broken("a function");
  }
  if (!in.count(events, 2)) return broken("the user events");
  for (std::size_t i = 0; i < events; ++i)
    if (!in.utf(a)) return broken("a user event name");
  Profile p;
  detail::Builder builder(p, metric_names);
  std::vector<double> excl(metrics), incl(metrics);
  if (!in.count(threads, 20)) return broken("the threads");
  for (std::size_t t = 0; t < threads; ++t) {
    std::int32_t node = 0, context = 0, thread = 0;
    std::size_t profiles = 0, user = 0;
    if (!in.i32(node) || !in.i32(context) || !in.i32(thread) || !in.count(profiles, 20 + 16 * metrics))
      return broken("a thread");
    builder.begin_location(node, context, thread);
    for (std::size_t j = 0; j < profiles; ++j) {
      std::int32_t f = 0;
      double calls = 0, subrs = 0;
      if (!in.i32(f) || !in.f64(calls) || !in.f64(subrs)) return broken("a function's values");
      for (std::size_t m = 0; m < metrics; ++m)
        if (!in.f64(excl[m]) || !in.f64(incl[m])) return broken("a function's values");
      if (f < 0 || static_cast<std::size_t>(f) >= functions)
        return bad_input(fmt::format("{}:+0x{:x}: expected a function number below {}, found {}", input.path(),
                                     in.offset(), functions, f));
      builder.timer(names[static_cast<std::size_t>(f)], calls, excl.data(), incl.data());
    }
    builder.end_location();
    if (!in.count(user, 40) || !in.skip(user * 40)) return broken("a thread's user events");
    if (options.memory_budget && p.approximate_bytes() > options.memory_budget)
      return bad_input(formats::over_budget_message(input.path(), options.memory_budget, p.functions.size(), metrics));
  }
  builder.finish(input.path(), diag);
  return p;
}

}  // namespace graphgen::tau
