#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <list>
#include <map>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "anchor.h"
#include "common/archive_lib.h"
#include "common/xml.h"
#include "graphgen/text.h"

namespace graphgen::cube {

namespace {

using detail::Anchor;
using detail::Cnode;

// The archive's members that matter: anchor.xml and each metric's files,
// viewed where they lie in the input (a tar's members are its bytes), or
// copied when libarchive hands them over in pieces.
struct Members {
  std::string_view anchor;
  std::map<std::int64_t, std::string_view> index, data;
  std::list<std::string> copies;
};

// "12.index" -> 12.
bool metric_file(std::string_view name, std::string_view suffix, std::int64_t& id) {
  if (!name.ends_with(suffix) || name.size() == suffix.size()) return false;
  std::uint64_t v = 0;
  if (!parse_u64(name.substr(0, name.size() - suffix.size()), v) || v > INT32_MAX) return false;
  id = static_cast<std::int64_t>(v);
  return true;
}

// Where `n` bytes at `p` lie in the input, if they lie in it (addresses
// compared as numbers: a block of libarchive's may lie anywhere).
std::optional<std::size_t> offset_in(const InputFile& in, const void* p, std::size_t n) {
  const std::string_view all = in.bytes();
  const auto at = reinterpret_cast<std::uintptr_t>(p), base = reinterpret_cast<std::uintptr_t>(all.data());
  if (at < base || at - base > all.size() || n > all.size() - (at - base)) return std::nullopt;
  return at - base;
}

Expected<Members> unpack(const InputFile& in, std::size_t budget) {
  auto api = formats::archive_api(in.path());
  if (!api) return api.error();
  const formats::ArchiveApi& lib = **api;
  formats::ArchiveReader ar{lib};
  if (!ar.a) return bad_input(fmt::format("{}: cannot read it: out of memory", in.path()));
  lib.support_format_tar(ar.a);
  lib.support_filter_none(ar.a);
  if (lib.open_memory(ar.a, in.bytes().data(), in.bytes().size()) != ARCHIVE_OK)
    return bad_input(fmt::format("{}:+0x0: expected a CUBE4 tar archive, found {}", in.path(), ar.why("other bytes")));
  Members m;
  std::size_t total = 0;
  archive_entry* e = nullptr;
  for (;;) {
    int rc = lib.next_header(ar.a, &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN)
      return bad_input(fmt::format("{}:+0x{:x}: expected a CUBE4 tar archive, found a broken member ({})", in.path(),
                                   lib.filter_bytes(ar.a, -1), ar.why("unreadable")));
    std::string_view name = lib.entry_pathname(e) ? lib.entry_pathname(e) : "";
    name = basename_of(name);
    std::int64_t id = 0;
    std::string_view* into = nullptr;
    if (name == "anchor.xml")
      into = &m.anchor;
    else if (metric_file(name, ".index", id))
      into = &m.index[id];
    else if (metric_file(name, ".data", id))
      into = &m.data[id];
    if (!into) continue;
    la_int64_t size = lib.entry_size(e);
    if (size < 0 || static_cast<std::uint64_t>(size) > in.bytes().size() ||
        total + static_cast<std::size_t>(size) > budget)
      return bad_input(fmt::format("{}:+0x{:x}: expected members no larger than the archive, found {} of {} bytes",
                                   in.path(), std::max<la_int64_t>(lib.filter_bytes(ar.a, -1), 0), quote_input(name),
                                   size));
    total += static_cast<std::size_t>(size);
    const auto want = static_cast<std::size_t>(size);
    const void* block = nullptr;
    std::size_t length = 0;
    la_int64_t at = 0;
    int got = want ? lib.read_data_block(ar.a, &block, &length, &at) : ARCHIVE_EOF;
    if (got == ARCHIVE_OK && at == 0 && length == want && offset_in(in, block, want)) {
      // The whole member in one block of the input itself (an archive of
      // 80 MB was copied whole: a third of its peak).
      *into = std::string_view(static_cast<const char*>(block), want);
      continue;
    }
    std::string& copy = m.copies.emplace_back(want, '\0');
    std::size_t filled = 0;
    for (; got == ARCHIVE_OK; got = lib.read_data_block(ar.a, &block, &length, &at)) {
      if (at < 0 || static_cast<std::uint64_t>(at) > want || length > want - static_cast<std::size_t>(at)) {
        got = ARCHIVE_FATAL;
        break;
      }
      if (length) std::memcpy(copy.data() + at, block, length);
      filled = std::max(filled, static_cast<std::size_t>(at) + length);
    }
    if (got != ARCHIVE_EOF || filled != want)
      return bad_input(fmt::format("{}:+0x{:x}: expected {} bytes of {}, found {}", in.path(),
                                   lib.filter_bytes(ar.a, -1), size, quote_input(name), filled));
    *into = copy;
  }
  if (m.anchor.empty())
    return bad_input(
        fmt::format("{}:+0x{:x}: expected anchor.xml in the CUBE4 archive, found none", in.path(), in.bytes().size()));
  return m;
}

// Little- or big-endian reads of a metric file, every one bounded.
class Bytes {
 public:
  Bytes(std::string_view b, bool swap) : b_(b), swap_(swap) {}
  template <class T>
  bool get(std::size_t at, T& v) const {
    if (at > b_.size() || b_.size() - at < sizeof(T)) return false;
    std::memcpy(&v, b_.data() + at, sizeof(T));
    if (swap_) {
      auto bytes = std::bit_cast<std::array<unsigned char, sizeof(T)>>(v);
      std::reverse(bytes.begin(), bytes.end());
      v = std::bit_cast<T>(bytes);
    }
    return true;
  }
  std::size_t size() const { return b_.size(); }

 private:
  std::string_view b_;
  bool swap_;
};

// How a metric's values are stored.
struct Dtype {
  std::size_t size = 0;  // 0: not a number graphgen adds up
  bool floating = false, is_signed = false;
};

Dtype dtype_of(std::string_view t) {
  if (t == "DOUBLE" || t == "FLOAT") return {8, true, true};
  if (t == "INT64" || t == "INTEGER" || t == "SIGNED INTEGER") return {8, false, true};
  if (t == "UINT64" || t == "UNSIGNED INTEGER") return {8, false, false};
  if (t == "INT32" || t == "INT" || t == "SIGNED INT") return {4, false, true};
  if (t == "UINT32" || t == "UNSIGNED INT") return {4, false, false};
  if (t == "INT16" || t == "SHORT INT" || t == "SIGNED SHORT INT") return {2, false, true};
  if (t == "UINT16" || t == "UNSIGNED SHORT INT") return {2, false, false};
  if (t == "INT8") return {1, false, true};
  if (t == "UINT8" || t == "CHAR") return {1, false, false};
  return {};  // MIN/MAXDOUBLE (not additive), RATE, TAU_ATOMIC, HISTOGRAM, COMPLEX, NDOUBLES...
}

// One value of a row as a double, or as an int64 (saturating for UINT64).
struct Value {
  double d = 0;
  std::int64_t i = 0;
};

bool read_value(const Bytes& b, std::size_t at, const Dtype& t, Value& v) {
  switch (t.size) {
    case 8:
      if (t.floating) return b.get(at, v.d);
      if (t.is_signed) return b.get(at, v.i);
      {
        std::uint64_t u;
        if (!b.get(at, u)) return false;
        v.i = u > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(u);
        return true;
      }
    case 4:
      if (t.is_signed) {
        std::int32_t x;
        if (!b.get(at, x)) return false;
        v.i = x;
      } else {
        std::uint32_t x;
        if (!b.get(at, x)) return false;
        v.i = x;
      }
      return true;
    case 2:
      if (t.is_signed) {
        std::int16_t x;
        if (!b.get(at, x)) return false;
        v.i = x;
      } else {
        std::uint16_t x;
        if (!b.get(at, x)) return false;
        v.i = x;
      }
      return true;
    default: {
      unsigned char c;
      if (!b.get(at, c)) return false;
      v.i = t.is_signed ? static_cast<std::int64_t>(static_cast<std::int8_t>(c)) : c;
    }
      return true;
  }
}

// The call tree's positions in CubeLib's inclusive order: each node's
// children numbered together when the node is reached in preorder.
std::vector<std::uint32_t> wide_order(const Anchor& a) {
  std::vector<std::uint32_t> order, stack;
  order.reserve(a.cnodes.size());
  for (std::uint32_t c = 0; c < a.cnodes.size(); ++c)
    if (a.cnodes[c].parent < 0) order.push_back(c);
  for (std::size_t i = order.size(); i-- > 0;) stack.push_back(order[i]);
  while (!stack.empty()) {
    std::uint32_t c = stack.back();
    stack.pop_back();
    const auto& kids = a.cnodes[c].children;
    order.insert(order.end(), kids.begin(), kids.end());
    for (std::size_t i = kids.size(); i-- > 0;) stack.push_back(kids[i]);
  }
  return order;
}

// One metric's values per (cnode, location), exclusive and inclusive.
struct Table {
  bool floating = false;
  std::size_t negative = 0;  // exclusive values below 0: inclusive below the children's
  std::vector<double> dexcl, dincl;
  std::vector<std::int64_t> iexcl, iincl;
};

struct Context {
  const InputFile& in;
  const Anchor& anchor;
  std::size_t locations = 0;
  std::vector<std::uint32_t> wide;
};

// Exclusive and inclusive values from the stored ones, as pycubexr
// converts them: children in order; unsigned types stop at 0. Returns how
// many exclusive values are below 0 beyond rounding (a broken file).
template <class T>
std::size_t convert(const Context& cx, const std::vector<T>& stored, std::vector<T>& excl, std::vector<T>& incl,
                    bool inclusive, bool is_signed) {
  const std::size_t cn = cx.anchor.cnodes.size(), nl = cx.locations;
  auto sub = [&](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return a - b;
    } else {
      T r;
      if (__builtin_sub_overflow(a, b, &r)) r = b > 0 ? INT64_MIN : INT64_MAX;
      return !is_signed && r < 0 ? 0 : r;
    }
  };
  auto add = [](T a, T b) -> T {
    if constexpr (std::is_floating_point_v<T>) {
      return a + b;
    } else {
      return saturating_add(a, b);
    }
  };
  std::size_t negative = 0;
  excl = stored;
  incl = stored;
  if (inclusive) {
    for (std::size_t c = 0; c < cn; ++c) {
      for (std::uint32_t k : cx.anchor.cnodes[c].children)
        for (std::size_t l = 0; l < nl; ++l) excl[c * nl + l] = sub(excl[c * nl + l], incl[k * nl + l]);
      for (std::size_t l = 0; l < nl; ++l)
        if (excl[c * nl + l] < 0 && -excl[c * nl + l] > 1e-9 * std::abs(static_cast<double>(incl[c * nl + l])))
          ++negative;
    }
  } else {
    for (std::size_t c = cn; c-- > 0;)  // preorder backwards: children first
      for (std::uint32_t k : cx.anchor.cnodes[c].children)
        for (std::size_t l = 0; l < nl; ++l) incl[c * nl + l] = add(incl[c * nl + l], incl[k * nl + l]);
  }
  return negative;
}

Expected<Table> metric_table(const Context& cx, const detail::Metric& m, const Dtype& t, std::string_view index,
                             std::string_view data) {
  const std::size_t cn = cx.anchor.cnodes.size(), nl = cx.locations;
  auto broken = [&](std::string_view file, std::size_t at, std::string_view expected) {
    return bad_input(fmt::format("{}: {}.{}:+0x{:x}: expected {}", cx.in.path(), m.id, file, at, expected));
  };
  if (!index.starts_with("CUBEX.INDEX")) return broken("index", 0, "\"CUBEX.INDEX\"");
  std::int32_t order = 0;
  if (!Bytes(index, false).get(11, order) || (order != 1 && order != 0x01000000))
    return broken("index", 11, "the byte-order mark 1");
  const bool swap = order != 1;
  Bytes ix(index, swap);
  std::uint8_t kind = 0;
  if (!ix.get(17, kind)) return broken("index", 17, "the index kind");
  const bool inclusive = m.type == "INCLUSIVE";
  std::vector<std::uint32_t> rows;  // cnode index of each data row
  if (kind == 1) {
    std::uint32_t n = 0;
    if (!ix.get(18, n) || n > cn || (index.size() - 22) / 4 < n) return broken("index", 18, "a count of listed nodes");
    rows.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      std::uint32_t pos = 0;
      ix.get(22 + 4 * r, pos);
      if (pos >= cn) return broken("index", 22 + 4 * r, fmt::format("a call-tree position below {}", cn));
      rows[r] = inclusive ? cx.wide[pos] : pos;
    }
  } else if (kind == 3) {
    rows.resize(cn);
    for (std::uint32_t r = 0; r < cn; ++r) rows[r] = inclusive ? cx.wide[r] : r;
  } else {
    return broken("index", 17, fmt::format("a sparse (1) or dense (3) index, found kind {}", kind));
  }
  if (data.starts_with("ZCUBEX.DATA"))
    return bad_input(
        fmt::format("{}: {}.data: compressed CUBE data (ZCUBEX) is not read yet; `cube_dump` or CubeLib's "
                    "`cube_remap2` can write it uncompressed",
                    cx.in.path(), m.id));
  if (!data.starts_with("CUBEX.DATA")) return broken("data", 0, "\"CUBEX.DATA\"");
  const std::size_t need = rows.size() * nl * t.size;
  if (data.size() - 10 != need)
    return broken(
        "data", data.size(),
        fmt::format("{} bytes of values ({} rows x {} locations), found {}", need, rows.size(), nl, data.size() - 10));
  Bytes d(data, swap);
  Table tb;
  tb.floating = t.floating;
  std::vector<double> dstored(t.floating ? cn * nl : 0);
  std::vector<std::int64_t> istored(t.floating ? 0 : cn * nl);
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t l = 0; l < nl; ++l) {
      Value v;
      const std::size_t at = 10 + (r * nl + l) * t.size;
      read_value(d, at, t, v);
      if (t.floating && !std::isfinite(v.d))
        return broken("data", at, fmt::format("a finite {} value, found {}", m.dtype, v.d));
      if (t.floating)
        dstored[rows[r] * nl + l] = v.d;
      else
        istored[rows[r] * nl + l] = v.i;
    }
  if (t.floating)
    tb.negative = convert(cx, dstored, tb.dexcl, tb.dincl, inclusive, t.is_signed);
  else
    tb.negative = convert(cx, istored, tb.iexcl, tb.iincl, inclusive, t.is_signed);
  return tb;
}

}  // namespace

bool sniff(std::string_view head) {
  if (head.size() < 263 || head.substr(257, 5) != "ustar") return false;
  std::string_view name = head.substr(0, 100);
  name = name.substr(0, name.find('\0'));
  name = basename_of(name);
  std::int64_t id;
  return name == "anchor.xml" || name == "remapping.spec" || metric_file(name, ".index", id) ||
         metric_file(name, ".data", id);
}

namespace {

// An event of the profile: a metric's table, and how its values become costs.
struct EventTable {
  const detail::Metric* metric = nullptr;
  Table table;
  bool seconds = false;  // a DOUBLE in seconds: a floating time event
};

Cost cost_of(const EventTable& e, std::size_t at, bool exclusive, std::size_t& rounded) {
  const Table& t = e.table;
  if (!t.floating) return exclusive ? t.iexcl[at] : t.iincl[at];
  double v = exclusive ? t.dexcl[at] : t.dincl[at];
  if (e.seconds) return float_cost(v);
  double r = std::nearbyint(v);
  if (r != v) ++rounded;
  return std::fabs(r) >= 9.2e18 ? (r > 0 ? INT64_MAX : INT64_MIN) : static_cast<Cost>(r);
}

// Lets the pages of a member viewed in the mapped archive go once it is
// read (a member copied out of a sparse archive is not in it), and counts
// it as read for the read's progress.
void release_member(const InputFile& in, std::string_view member) {
  if (auto at = offset_in(in, member.data(), member.size())) in.release_range(*at, *at + member.size());
  graphgen::detail::count_passed(member.size());
}

// The metrics graphgen adds up, each read: time first, then by id; and
// the visits, which are call counts.
Expected<std::vector<EventTable>> event_tables(const Context& cx, const Members& m, std::optional<Table>& visits,
                                               std::vector<std::string>& skipped) {
  std::vector<EventTable> out;
  std::vector<const detail::Metric*> chosen;
  for (const detail::Metric& metric : cx.anchor.metrics) {
    Dtype t = dtype_of(metric.dtype);
    bool stored = m.index.count(metric.id) && m.data.count(metric.id);
    if (!stored) continue;  // derived metrics, and those CubeLib reads as 0
    // A metric's files are not read again once its table is made (nor
    // when it is left out).
    const std::string_view index = m.index.at(metric.id), data = m.data.at(metric.id);
    auto release = [&] {
      release_member(cx.in, index);
      release_member(cx.in, data);
    };
    if (t.size == 0 || (metric.type != "INCLUSIVE" && metric.type != "EXCLUSIVE")) {
      release();
      // (Score-P writes min_time and max_time into every profile: leaving
      // out what never adds up is no news; other kinds are said.)
      if (metric.dtype != "MINDOUBLE" && metric.dtype != "MAXDOUBLE") skipped.push_back(metric.uniq_name);
      continue;
    }
    auto table = metric_table(cx, metric, t, index, data);
    if (!table) return table.error();
    release();
    if (metric.uniq_name == "visits" && !t.floating) {
      visits = std::move(table).value();
      continue;
    }
    out.push_back(EventTable{&metric, std::move(table).value(), t.floating && metric.uom == "sec"});
  }
  std::stable_partition(out.begin(), out.end(), [](const EventTable& e) { return e.metric->uniq_name == "time"; });
  return out;
}

// anchor.xml parsed and checked: locations in id order (the data's
// columns), every cnode's region found (`region` gets its index).
Expected<Anchor> checked_anchor(const InputFile& input, std::string_view xml, std::size_t budget,
                                std::vector<std::size_t>& region) {
  if (std::string_view(xml).starts_with("\x1f\x8b"))
    return bad_input(fmt::format("{}: anchor.xml is gzip-compressed, which graphgen does not read yet", input.path()));
  auto parsed = detail::parse_anchor(xml, input.path() + ": anchor.xml");
  if (!parsed) return parsed.error();
  Anchor& a = *parsed;
  const std::size_t cn = a.cnodes.size(), nl = a.locations.size();
  const std::string anchor_path = input.path() + ": anchor.xml";
  if (cn == 0) return bad_input(at_end(anchor_path, xml, "expected a call tree (<cnode>), found none"));
  if (nl == 0) return bad_input(at_end(anchor_path, xml, "expected a location (<location>), found none"));
  std::sort(a.locations.begin(), a.locations.end(), [](auto& x, auto& y) { return x.id < y.id; });
  for (std::size_t l = 0; l < nl; ++l)
    if (a.locations[l].id != static_cast<std::int64_t>(l))
      return bad_input(formats::at_xml_element(
          anchor_path, xml, "<location", a.locations[l].id,
          fmt::format("expected locations numbered 0 to {}, found Id {}", nl - 1, a.locations[l].id)));
  if (cn > budget / 32 / nl) return bad_input(formats::over_budget_message(input.path(), budget, cn, nl));
  std::unordered_map<std::int64_t, std::size_t> region_of;
  for (std::size_t r = 0; r < a.regions.size(); ++r) region_of.emplace(a.regions[r].id, r);
  region.resize(cn);
  for (std::size_t c = 0; c < cn; ++c) {
    auto it = region_of.find(a.cnodes[c].region);
    if (it == region_of.end())
      return bad_input(formats::at_xml_element(
          anchor_path, xml, "<cnode", a.cnodes[c].id,
          fmt::format("expected a <region id=\"{}\"> for cnode {}, found none", a.cnodes[c].region, a.cnodes[c].id)));
    region[c] = it->second;
  }
  return std::move(parsed).value();
}

// The events, and one function per region in order of first call (`fn`:
// each cnode's).
void add_functions(Profile& p, const Anchor& a, const std::vector<std::size_t>& region,
                   const std::vector<EventTable>& tables, bool visits, std::vector<FuncId>& fn) {
  for (const EventTable& e : tables) {
    Event ev;
    ev.name = p.strings.intern(e.metric->uniq_name);
    if (e.seconds) {
      ev.unit = p.strings.intern("s");
      ev.floating = true;
      ev.seconds_per_unit = 1;
    } else if (!e.metric->uom.empty() && e.metric->uom != "#" && e.metric->uom != "occ") {
      ev.unit = p.strings.intern(e.metric->uom);
    }
    p.events.push_back(ev);
  }
  p.reports_totals = true;
  p.keeps_call_self = true;
  std::vector<FuncId> function_of_region(a.regions.size(), UINT32_MAX);
  fn.resize(a.cnodes.size());
  for (std::size_t c = 0; c < a.cnodes.size(); ++c) {
    const std::size_t r = region[c];
    if (function_of_region[r] == UINT32_MAX) {
      Function f;
      f.name = p.strings.intern(a.regions[r].name);
      if (!a.regions[r].mod.empty()) f.file = p.strings.intern(a.regions[r].mod);
      if (a.regions[r].begin > 0) f.line = a.regions[r].begin;
      if (visits) f.calls = 0;
      function_of_region[r] = p.add_function(f);
    }
    fn[c] = function_of_region[r];
  }
}

// Whether each node counts in its function's total: the function is not
// already on its path (recursion).
std::vector<bool> outer_nodes(const Anchor& a, const std::vector<FuncId>& fn, std::size_t functions) {
  std::vector<bool> outer(a.cnodes.size());
  std::vector<std::uint32_t> on_path(functions, 0), path;
  for (std::uint32_t c = 0; c < a.cnodes.size(); ++c) {
    while (!path.empty() && static_cast<std::int32_t>(path.back()) != a.cnodes[c].parent) {
      --on_path[fn[path.back()]];
      path.pop_back();
    }
    outer[c] = on_path[fn[c]] == 0;
    ++on_path[fn[c]];
    path.push_back(c);
  }
  return outer;
}

struct Model {
  const Anchor& a;
  const std::vector<EventTable>& tables;
  const std::optional<Table>& visits;
  std::vector<FuncId> fn;
  std::vector<bool> outer;
  std::size_t rounded = 0;

  std::size_t locations() const { return a.locations.size(); }
  Cost at(std::size_t e, std::size_t c, std::size_t l, bool exclusive) {
    return cost_of(tables[e], c * locations() + l, exclusive, rounded);
  }
};

// The whole profile's costs: per node summed over the locations in order;
// the call tree as stacks, parent-child pairs as call edges.
void add_costs(Profile& p, Model& m) {
  const std::size_t cn = m.a.cnodes.size(), nl = m.locations(), ne = p.events.size();
  p.stack_nodes.resize(cn + 1);
  p.stack_node_cost.assign((cn + 1) * ne, 0);
  std::unordered_map<std::uint64_t, CallId> call_of;
  for (std::size_t c = 0; c < cn; ++c) {
    const FuncId f = m.fn[c];
    const std::int32_t parent = m.a.cnodes[c].parent;
    p.stack_nodes[c + 1] = StackNode{parent < 0 ? 0u : static_cast<std::uint32_t>(parent) + 1, f, kNoString};
    std::int64_t calls = 0;
    if (m.visits) {
      for (std::size_t l = 0; l < nl; ++l) calls = saturating_add(calls, m.visits->iexcl[c * nl + l]);
      p.functions[f].calls = saturating_add(p.functions[f].calls, calls);
    }
    CallId call = 0;
    if (parent >= 0) {
      FuncId from = m.fn[static_cast<std::size_t>(parent)];
      auto [it, fresh] = call_of.try_emplace((std::uint64_t{from} << 32) | f, 0);
      if (fresh) it->second = p.add_call(Call{from, f, m.visits ? 0 : kUnknownCount, kUnknownCount});
      call = it->second;
      if (m.visits) p.calls[call].count = saturating_add(p.calls[call].count, calls);
    }
    for (std::size_t e = 0; e < ne; ++e) {
      Cost self = p.events[e].floating ? float_cost(0.0) : 0, total = self;
      for (std::size_t l = 0; l < nl; ++l) {
        self = p.add(e, self, m.at(e, c, l, true));
        total = p.add(e, total, m.at(e, c, l, false));
      }
      p.self(f, e) = p.add(e, p.self(f, e), self);
      if (m.outer[c]) p.total(f, e) = p.add(e, p.total(f, e), total);
      p.stack_node_cost[(c + 1) * ne + e] = self;
      if (parent >= 0) {
        p.inclusive(call, e) = p.add(e, p.inclusive(call, e), total);
        p.along(call, e) = p.add(e, p.along(call, e), self);
      }
    }
  }
}

// Every location: the functions it ran (visited, or with a cost when the
// profile has no visits), and their costs there.
Expected<bool> add_locations(Profile& p, Model& m, const InputFile& input, std::size_t budget) {
  const std::size_t cn = m.a.cnodes.size(), nl = m.locations(), ne = p.events.size();
  std::vector<std::uint32_t> rows;
  for (std::size_t l = 0; l < nl; ++l) {
    Location loc;
    loc.rank = m.a.locations[l].process;
    loc.thread = m.a.locations[l].thread;
    loc.label = p.strings.intern(fmt::format("rank {} thread {}", loc.rank, loc.thread));
    loc.begin = loc.end = static_cast<std::uint32_t>(p.location_functions.size());
    p.locations.push_back(loc);
    for (std::size_t c = 0; c < cn; ++c) {
      bool ran = m.visits && m.visits->iexcl[c * nl + l] > 0;
      for (std::size_t e = 0; e < ne && !m.visits && !ran; ++e) ran = m.at(e, c, l, false) != 0;
      if (!ran) continue;
      const std::size_t row = p.location_row(m.fn[c], rows);
      for (std::size_t e = 0; e < ne; ++e) {
        Cost& s = p.location_self[row * ne + e];
        s = p.add(e, s, m.at(e, c, l, true));
        if (m.outer[c]) {
          Cost& t = p.location_total[row * ne + e];
          t = p.add(e, t, m.at(e, c, l, false));
        }
      }
    }
    if (p.approximate_bytes() > budget)
      return bad_input(formats::over_budget_message(input.path(), budget, p.functions.size(), ne));
  }
  return true;
}

}  // namespace

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  const std::size_t budget = options.memory_budget ? options.memory_budget : SIZE_MAX;
  auto members = unpack(input, budget);
  if (!members) return members.error();
  std::vector<std::size_t> region;
  auto anchor = checked_anchor(input, members->anchor, budget, region);
  if (!anchor) return anchor.error();
  release_member(input, members->anchor);
  const Anchor& a = *anchor;
  Context cx{input, a, a.locations.size(), wide_order(a)};
  std::optional<Table> visits;
  std::vector<std::string> skipped;
  auto tables = event_tables(cx, *members, visits, skipped);
  if (!tables) return tables.error();
  if (tables->empty())
    return bad_input(
        fmt::format("{}: expected a metric graphgen can add up (time, counters), found none", input.path()));
  members = Members();  // the raw files are no longer needed
  Profile p;
  Model m{a, *tables, visits, {}, {}, 0};
  add_functions(p, a, region, *tables, visits.has_value(), m.fn);
  m.outer = outer_nodes(a, m.fn, p.functions.size());
  add_costs(p, m);
  if (auto ok = add_locations(p, m, input, budget); !ok) return ok.error();
  if (!skipped.empty()) {
    std::string list;
    for (const std::string& s : skipped) list += (list.empty() ? "" : ", ") + s;
    diag.warn(fmt::format("{}: metrics left out (composite values graphgen does not add up): {}", input.path(), list));
  }
  if (m.rounded)
    diag.warn(
        fmt::format("{}: {} fractional values of counters rounded to the nearest count", input.path(), m.rounded));
  for (const EventTable& e : *tables)
    if (e.table.negative)
      diag.warn(
          fmt::format("{}: {}: {} inclusive values are below the sum of their callees' (inconsistent values in "
                      "the file); their exclusive values are negative, and totals will not add up",
                      input.path(), e.metric->uniq_name, e.table.negative));
  return p;
}

}  // namespace graphgen::cube
