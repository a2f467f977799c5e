#include "writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <memory>
#include <regex>
#include <unordered_map>

#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "graphgen/utf8.h"

namespace graphgen::stats {

namespace {

// A key of the stats dict: views of the Table's strings.
struct Key {
  std::string_view file;
  std::int64_t line = 0;
  std::string_view name;
};

bool key_less(const Key& a, const Key& b) {
  if (a.file != b.file) return a.file < b.file;  // UTF-8 bytes: code point order
  if (a.line != b.line) return a.line < b.line;
  return a.name < b.name;
}

// pstats' func_std_string, before its controls are escaped, in `text`.
void plain_std_string(std::string& text, const Key& k) {
  text.clear();
  if (k.file == "~" && k.line == 0) {
    if (k.name.size() >= 2 && k.name.front() == '<' && k.name.back() == '>')
      fmt::format_to(std::back_inserter(text), "{{{}}}", k.name.substr(1, k.name.size() - 2));
    else
      text = k.name;
    return;
  }
  // ("{}:{}({})", without fmt's parse of the format for each of 200 000 names)
  char line[24];
  const auto digits = static_cast<std::size_t>(std::to_chars(line, line + sizeof line, k.line).ptr - line);
  text.reserve(k.file.size() + k.name.size() + 24);
  text.append(k.file);
  text += ':';
  text.append(line, digits);
  text += '(';
  text.append(k.name);
  text += ')';
}

// pstats' func_std_string, with controls as visible escapes.
std::string std_string(const Key& k) {
  std::string text;
  plain_std_string(text, k);
  return visible_text(text);
}

// Python's len(): code points.
std::size_t length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string ljust(const std::string& s, std::size_t width) {
  std::size_t n = length(s);
  return n >= width ? s : s + std::string(width - n, ' ');
}

// A caller's stats: (nc, cc, tt, ct), or the pure-Python profiler's count.
struct Caller {
  bool is_int = false;
  std::int64_t nc = 0, cc = 0;
  double tt = 0, ct = 0;
};

struct Entry {
  std::uint32_t key = 0;
  std::int64_t cc = 0, nc = 0;
  double tt = 0, ct = 0;
  std::vector<std::pair<std::uint32_t, Caller>> callers;  // dict order
};

// The keys met, numbered in first-appearance order: their files and names
// interned once, each key found again by those ids and its line (a
// string and a map node per key made the 100 000 functions of a big
// profile 30 MB).
class Table {
 public:
  std::uint32_t intern(const Key& k) {
    const StringId file = strings_.intern(k.file), name = strings_.intern(k.name);
    return index_.find_or_add(
        FlatIndex::mix(file, static_cast<std::uint64_t>(k.line), name),
        [&](std::uint32_t i) { return rows_[i].file == file && rows_[i].name == name && rows_[i].line == k.line; },
        [&] {
          rows_.push_back({k.line, file, name});
          return static_cast<std::uint32_t>(rows_.size() - 1);
        });
  }
  Key key(std::uint32_t i) const { return {strings_.view(rows_[i].file), rows_[i].line, strings_.view(rows_[i].name)}; }
  /// How many keys: they are 0 to size() - 1.
  std::size_t size() const { return rows_.size(); }
  /// Key i's row fetched ahead (`texts`: and its strings' texts, once the row is in).
  void prefetch(std::uint32_t i, bool texts) const {
    if (!texts) return __builtin_prefetch(&rows_[i]);
    const std::string_view file = strings_.view(rows_[i].file), name = strings_.view(rows_[i].name);
    __builtin_prefetch(file.data());
    __builtin_prefetch(name.data());
  }
  void reserve(std::size_t n) {
    rows_.reserve(n);
    index_.reserve(n);
  }

 private:
  struct Row {
    std::int64_t line;
    StringId file, name;
  };
  StringTable strings_;
  std::vector<Row> rows_;
  FlatIndex index_;
};

// The stats dict of a profile: pstats' own for pstats input, else the
// model's functions with their inclusive costs; their callers only when
// `callers` (print_stats does not show them).
std::vector<Entry> entries_of(const Profile& p, std::size_t event, const CallGraph* graph, Table& table, bool callers) {
  const Event& ev = p.events[event];
  const bool python = p.label_style == LabelStyle::kPython;
  // Each function's key is made once, however many calls it makes (the
  // same ids, in the same first-appearance order).
  std::vector<std::uint32_t> known(p.functions.size(), UINT32_MAX);
  auto make_key = [&](FuncId f) {
    const Function& fn = p.functions[f];
    if (fn.file != kNoString || python) return table.intern({p.str(fn.file), fn.line, p.str(fn.name)});
    std::string module;
    if (!module_line(p, f, module) || module.empty()) return table.intern({"~", 0, p.str(fn.name)});
    module += ':';
    module += p.str(fn.name);
    return table.intern({"~", 0, module});
  };
  auto key_of = [&](FuncId f) {
    if (known[f] == UINT32_MAX) known[f] = make_key(f);
    return known[f];
  };
  std::vector<FuncId> order = p.listed;
  if (order.empty())
    for (FuncId f = 0; f < p.functions.size(); ++f) order.push_back(f);
  table.reserve(p.functions.size());
  Adjacency adj;
  if (callers) adj = Adjacency::build(p);
  std::vector<Entry> out;
  out.reserve(order.size());
  for (FuncId f : order) {
    const Function& fn = p.functions[f];
    Entry e;
    e.key = key_of(f);
    e.nc = fn.calls == kUnknownCount ? 0 : fn.calls;
    e.cc = fn.primitive_calls == kUnknownCount ? e.nc : fn.primitive_calls;
    e.tt = event_value(ev, p.self(f, event));
    if (p.has_total_cost())
      e.ct = event_value(ev, p.total(f, event));
    else if (graph && f < graph->nodes.size())
      e.ct = node_total(*graph, f);
    // (No adjacency without callers: no caller rows.)
    const std::uint32_t first = callers ? adj.in_begin[f] : 0, last = callers ? adj.in_begin[f + 1] : 0;
    for (std::uint32_t i = first; i < last; ++i) {
      CallId c = adj.in_calls[i];
      const Call& call = p.calls[c];
      Caller v;
      if (p.call_costs_from_counts && call.primitive_count == kUnknownCount) {
        v.is_int = true;
        v.nc = call.count;
      } else {
        v.nc = call.count == kUnknownCount ? 0 : call.count;
        v.cc = call.primitive_count == kUnknownCount ? v.nc : call.primitive_count;
        v.tt = p.keeps_call_self ? event_value(ev, p.along(c, event)) : 0.0;
        v.ct = shown_value(ev, p.call_value(c, event));
      }
      e.callers.emplace_back(key_of(call.caller), v);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Entries whose keys `to` makes one add up (pstats' add_func_stats), in
// first-appearance order.
template <class To>
std::vector<Entry> merge_entries(const std::vector<Entry>& in, To&& to) {
  std::vector<Entry> out;
  std::unordered_map<std::uint32_t, std::size_t> at;
  for (const Entry& e : in) {
    std::uint32_t k = to(e.key);
    std::vector<std::pair<std::uint32_t, Caller>> callers;
    for (const auto& [ck, v] : e.callers) {
      std::uint32_t s = to(ck);
      auto same = std::find_if(callers.begin(), callers.end(), [&](const auto& c) { return c.first == s; });
      if (same == callers.end())
        callers.emplace_back(s, v);
      else
        same->second = v;  // a dict: the last value of a repeated key
    }
    auto [it, fresh] = at.try_emplace(k, out.size());
    if (fresh) {
      Entry n = e;
      n.key = k;
      n.callers = std::move(callers);
      out.push_back(std::move(n));
      continue;
    }
    Entry& t = out[it->second];
    t.cc += e.cc;
    t.nc += e.nc;
    t.tt = e.tt + t.tt;
    t.ct = e.ct + t.ct;
    for (auto& [ck, v] : callers) {  // add_callers(target, source)
      // (A copy: clang 14 cannot capture a structured binding.)
      auto key = ck;
      auto same = std::find_if(t.callers.begin(), t.callers.end(), [&](const auto& c) { return c.first == key; });
      if (same == t.callers.end()) {
        t.callers.emplace_back(ck, v);
      } else if (v.is_int) {
        same->second.nc += v.nc;
      } else {
        same->second.nc = v.nc + same->second.nc;
        same->second.cc = v.cc + same->second.cc;
        same->second.tt = v.tt + same->second.tt;
        same->second.ct = v.ct + same->second.ct;
      }
    }
  }
  return out;
}

// pstats' strip_dirs: file names without folders; entries that become one
// add up.
std::vector<Entry> strip_dirs(const std::vector<Entry>& in, Table& table) {
  std::vector<std::uint32_t> known;  // by key id: its stripped key's, once
  return merge_entries(in, [&](std::uint32_t k) {
    if (k < known.size() && known[k] != UINT32_MAX) return known[k];
    Key key = table.key(k);
    std::size_t slash = key.file.rfind('/');
    if (slash != std::string_view::npos) key.file = key.file.substr(slash + 1);
    std::uint32_t s = table.intern(key);  // (views of the table's own strings: they stay put)
    if (known.size() <= k) known.resize(k + 1, UINT32_MAX);
    known[k] = s;
    return s;
  });
}

// Functions the model keeps apart that pstats' key cannot tell apart (one
// Go function in two binaries' profiles merged) are one entry, as the
// pstats writer writes them and print_stats then prints them.
std::vector<Entry> merge_equal_keys(std::vector<Entry> in) {
  std::vector<bool> seen;
  bool repeated = false;
  for (const Entry& e : in) {
    if (seen.size() <= e.key) seen.resize(e.key + 1, false);
    repeated = repeated || seen[e.key];
    seen[e.key] = true;
  }
  if (!repeated) return in;
  return merge_entries(in, [](std::uint32_t k) { return k; });
}

struct SortKey {
  const char* name;
  std::vector<std::pair<int, int>> fields;  // (tuple index, direction)
  const char* description;
};

const std::vector<SortKey>& sort_defs() {
  static const std::vector<SortKey> kDefs = {
      {"calls", {{1, -1}}, "call count"},
      {"ncalls", {{1, -1}}, "call count"},
      {"cumtime", {{3, -1}}, "cumulative time"},
      {"cumulative", {{3, -1}}, "cumulative time"},
      {"file", {{4, 1}}, "file name"},
      {"filename", {{4, 1}}, "file name"},
      {"line", {{5, 1}}, "line number"},
      {"module", {{4, 1}}, "file name"},
      {"name", {{6, 1}}, "function name"},
      {"nfl", {{6, 1}, {4, 1}, {5, 1}}, "name/file/line"},
      {"pcalls", {{0, -1}}, "primitive call count"},
      {"stdname", {{7, 1}}, "standard name"},
      {"time", {{2, -1}}, "internal time"},
      {"tottime", {{2, -1}}, "internal time"},
  };
  return kDefs;
}

// A sort key by its name or, as pstats' get_sort_arg_defs expands them,
// an abbreviation: each prefix of a key that no key before it in pstats'
// order took (3.7 to 3.13 alike: "tot" is tottime, "cu" cumtime, "f"
// filename; "c" and "cum" are no key's). Null when it names none.
const SortKey* sort_key_named(std::string_view word) {
  static const std::unordered_map<std::string, std::string> kAbbreviations = [] {
    std::unordered_map<std::string, std::string> taken;
    std::vector<std::string> shared;
    for (const SortKey& d : sort_defs()) {
      if (std::string_view(d.name) == "file") continue;  // (not a key since 3.7: an abbreviation of filename)
      for (std::string fragment = d.name; !fragment.empty(); fragment.pop_back()) {
        if (taken.count(fragment)) {
          shared.push_back(fragment);
          break;
        }
        taken[fragment] = d.name;
      }
    }
    for (const std::string& fragment : shared) taken.erase(fragment);
    return taken;
  }();
  auto named = [](std::string_view name) -> const SortKey* {
    for (const SortKey& d : sort_defs())
      if (d.name == name) return &d;
    return nullptr;
  };
  if (const SortKey* d = named(word)) return d;
  auto it = kAbbreviations.find(std::string(word));
  return it == kAbbreviations.end() ? nullptr : named(it->second);
}

}  // namespace

bool names_sort_key(std::string_view word) { return sort_key_named(word) != nullptr; }

namespace {

// -1, 0, 1 for one field of pstats' sort tuple.
int compare_field(const Entry& a, const Entry& b, int field, const Table& t) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : y < x ? 1 : 0; };
  switch (field) {
    case 0:
      return cmp(a.cc, b.cc);
    case 1:
      return cmp(a.nc, b.nc);
    case 2:
      return cmp(a.tt, b.tt);
    case 3:
      return cmp(a.ct, b.ct);
    case 4:
      return cmp(t.key(a.key).file, t.key(b.key).file);
    case 5:
      return cmp(t.key(a.key).line, t.key(b.key).line);
    case 6:
      return cmp(t.key(a.key).name, t.key(b.key).name);
    default:
      return cmp(std_string(t.key(a.key)), std_string(t.key(b.key)));
  }
}

// Python's repr() of a str, as %r prints it.
std::string py_repr(const std::string& s) {
  char quote = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + quote;
}

std::string python_float_repr(double v) {
  // Shortest round-trip digits, with ".0" for whole numbers (repr(0.5), repr(1.0)).
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

PythonRegex& python_regex() {
  static PythonRegex compile;
  return compile;
}

// pstats' eval_print_amount for one restriction.
Expected<std::vector<std::uint32_t>> restrict(const std::vector<std::uint32_t>& list, const std::string& sel,
                                              const std::vector<Entry>& entries, const Table& t, std::string& msg) {
  std::vector<std::uint32_t> out = list;
  std::string shown;
  std::int64_t as_int = 0;
  double as_float = 0;
  auto [ie, iec] = std::from_chars(sel.data(), sel.data() + sel.size(), as_int);
  auto [fe, fec] = std::from_chars(sel.data(), sel.data() + sel.size(), as_float);
  if (!sel.empty() && iec == std::errc() && ie == sel.data() + sel.size()) {
    shown = std::to_string(as_int);
    if (as_int >= 0 && static_cast<std::size_t>(as_int) < list.size()) out.resize(static_cast<std::size_t>(as_int));
  } else if (!sel.empty() && fec == std::errc() && fe == sel.data() + sel.size()) {
    shown = python_float_repr(as_float);
    if (as_float >= 0.0 && as_float < 1.0)
      out.resize(static_cast<std::size_t>(static_cast<double>(list.size()) * as_float + .5));
  } else {
    shown = py_repr(sel);
    Search search;
    if (python_regex()) {
      std::optional<Search> compiled = python_regex()(sel);
      if (!compiled) {
        msg += "   <Invalid regular expression " + py_repr(sel) + ">\n";
        return out;
      }
      search = std::move(*compiled);
    } else {
      if (std::string construct = python_only_construct(sel); !construct.empty())
        return bad_usage(
            fmt::format("--restrict {}: {} is Python regular expression syntax, and this graphgen is "
                        "built without Python (python3-dev), so its patterns are ECMAScript; write it "
                        "without that construct",
                        quote_input(sel), construct));
      auto rex = std::make_shared<std::regex>();
      try {
        *rex = std::regex(sel, std::regex::ECMAScript);
      } catch (const std::regex_error&) {
        msg += "   <Invalid regular expression " + py_repr(sel) + ">\n";
        return out;
      }
      search = [rex](std::string_view s) { return std::regex_search(s.begin(), s.end(), *rex); };
    }
    out.clear();
    for (std::uint32_t i : list)
      if (search(std_string(t.key(entries[i].key)))) out.push_back(i);
  }
  if (out.size() != list.size())
    msg += fmt::format("   List reduced from {} to {} due to restriction <{}>\n", list.size(), out.size(), shown);
  return out;
}

}  // namespace

const std::vector<std::string>& sort_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> k;
    for (const SortKey& d : sort_defs()) k.push_back(d.name);
    return k;
  }();
  return kKeys;
}

std::string file_line(const std::string& path) {
  struct stat st;
  if (path == "-" || ::stat(path.c_str(), &st) != 0) return path;
  std::time_t t = st.st_mtime;
  std::tm local{};
  if (!::localtime_r(&t, &local)) return path;
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return fmt::format("{} {} {:2d} {:02d}:{:02d}:{:02d} {}    {}", kDays[local.tm_wday], kMonths[local.tm_mon],
                     local.tm_mday, local.tm_hour, local.tm_min, local.tm_sec, local.tm_year + 1900, path);
}

namespace {

// sort_stats: a stable sort on pstats' tuple fields; what it sorts by, as
// "Ordered by:" says it.
Expected<std::vector<std::uint32_t>> sort_order(const std::vector<Entry>& entries, const std::vector<std::string>& sort,
                                                const Table& table, std::string& sort_type) {
  std::vector<std::pair<int, int>> fields;
  for (const std::string& word : sort.empty() ? std::vector<std::string>{"cumulative"} : sort) {
    const SortKey* def = sort_key_named(word);
    if (!def && (word == "lineno" || word == "traceback"))
      return bad_usage(fmt::format("--sort {}: groups tracemalloc snapshots; pstats' keys are {}", word,
                                   fmt::join(sort_keys(), ", ")));
    if (!def)
      return bad_usage(
          fmt::format("--sort {}: not a pstats sort key (known: {})", quote_input(word), fmt::join(sort_keys(), ", ")));
    fields.insert(fields.end(), def->fields.begin(), def->fields.end());
    sort_type += (sort_type.empty() ? "" : ", ") + std::string(def->description);
  }
  // The first field's value beside each entry's index, so that most
  // comparisons read two neighbours in one array rather than two entries
  // scattered in memory (a tenth of a 208 000-function report's time);
  // the rest of the fields where those are equal. The same order: the same
  // comparison, and a stable sort of the same sequence.
  struct Item {
    double value;  // the first field's, when a number (exact: nc and cc below 2^53)
    std::uint32_t entry;
  };
  const int first = fields.empty() ? -1 : fields.front().first;
  const int first_direction = fields.empty() ? 0 : fields.front().second;
  std::vector<Item> items(entries.size());
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    const Entry& e = entries[i];
    items[i] = {first == 0   ? static_cast<double>(e.cc)
                : first == 1 ? static_cast<double>(e.nc)
                : first == 2 ? e.tt
                             : e.ct,
                i};
  }
  // (Counts of 2^53 or more, which doubles could round together: each
  // comparison by the entries, as before.)
  constexpr std::int64_t kExact = std::int64_t{1} << 53;
  const bool by_value = (first == 2 || first == 3) ||
                        ((first == 0 || first == 1) && std::all_of(entries.begin(), entries.end(), [&](const Entry& e) {
                           const std::int64_t n = first == 0 ? e.cc : e.nc;
                           return n > -kExact && n < kExact;
                         }));
  std::stable_sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
    if (by_value) {
      const int c = a.value < b.value ? -1 : b.value < a.value ? 1 : 0;
      if (c != 0) return c * first_direction < 0;
    }
    for (auto [field, direction] : fields) {
      int c = compare_field(entries[a.entry], entries[b.entry], field, table);
      if (c != 0) return c * direction < 0;
    }
    return false;
  });
  std::vector<std::uint32_t> list(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) list[i] = items[i].entry;
  return list;
}

// print_stats' header: the files, then "N function calls (M primitive
// calls) in T seconds".
void stats_header(std::string& out, const Profile& p, const Event& ev, const std::vector<Entry>& entries,
                  const Options& o) {
  std::int64_t total_calls = 0, prim_calls = 0;
  double total_tt = 0;
  for (const Entry& e : entries) {
    total_calls += e.nc;
    prim_calls += e.cc;
    total_tt += e.tt;
  }
  for (const std::string& f : o.files) out += visible_text(f) + "\n";
  if (!o.files.empty()) out += "\n";
  out += fmt::format("         {} function calls ", total_calls);
  if (total_calls != prim_calls) out += fmt::format("({} primitive calls) ", prim_calls);
  out += is_time(ev) ? fmt::format("in {:.3f} seconds\n\n", total_tt)
                     : fmt::format("in {:.0f} {}\n\n", total_tt, visible_text(p.str(ev.name)));
}

// pstats' ncalls column, `nc` or `nc/cc` when they differ, right-aligned
// in `width` columns.
void append_ncalls(std::string& out, std::int64_t nc, std::int64_t cc, std::size_t width) {
  char buf[48];  // (two 20-character numbers and '/')
  char* end = std::to_chars(buf, buf + 21, nc).ptr;
  if (nc != cc) {
    *end = '/';
    end = std::to_chars(end + 1, buf + sizeof buf, cc).ptr;
  }
  const auto n = static_cast<std::size_t>(end - buf);
  if (n < width) out.append(width - n, ' ');
  out.append(buf, n);
}

// print_stats' lines, appended in place: a string or two per number and
// name made the report of 208 000 functions a quarter of its time.
void stats_lines(std::string& out, const std::vector<Entry>& entries, const std::vector<std::uint32_t>& list,
                 const Table& table) {
  out += "   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n";
  std::string name;
  // (The entries in sorted order are scattered: each line's entry, key row
  // and texts are fetched a few lines ahead, each stage after the last.)
  constexpr std::size_t kAhead = 4;
  for (std::size_t at = 0; at < list.size(); ++at) {
    if (at + 3 * kAhead < list.size()) __builtin_prefetch(&entries[list[at + 3 * kAhead]]);
    if (at + 2 * kAhead < list.size()) table.prefetch(entries[list[at + 2 * kAhead]].key, false);
    if (at + kAhead < list.size()) table.prefetch(entries[list[at + kAhead]].key, true);
    const Entry& e = entries[list[at]];
    append_ncalls(out, e.nc, e.cc, 9);
    for (const auto& [total, count] : {std::pair{e.tt, e.nc}, std::pair{e.ct, e.cc}}) {
      out += ' ';
      append_printf_fixed(out, total, 3, 8);  // (%8.3f, as Python's %-formatting)
      out += ' ';
      if (count == 0)
        out.append(8, ' ');  // (no per-call figure)
      else
        append_printf_fixed(out, total / static_cast<double>(count), 3, 8);
    }
    out += ' ';
    plain_std_string(name, table.key(e.key));
    append_visible(out, name);
    out += '\n';
  }
}

// print_callers / print_callees: each listed function, then its callers
// (or callees) in key order, as pstats' print_call_line writes them.
void call_lines(std::string& out, const std::vector<Entry>& entries, const std::vector<std::uint32_t>& list,
                const Table& table, std::size_t width, bool callers) {
  // (Tables by key, not maps, and each line appended in place: a string
  // or more for each field of 250 000 lines was most of a report's time.)
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> entry_of(table.size(), kNone);
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entry_of[entries[i].key] == kNone) entry_of[entries[i].key] = static_cast<std::uint32_t>(i);
  out += ljust("Function ", width) + (callers ? "was called by..." : "called...") + "\n";
  for (const Entry& e : entries)
    if (!e.callers.empty()) {
      if (!e.callers.front().second.is_int) out += std::string(width, ' ') + "    ncalls  tottime  cumtime\n";
      break;
    }
  // calc_callees: per caller key, its callees and the caller stats, in
  // the entries' order (one array, each caller's run at its place).
  using Pair = std::pair<std::uint32_t, Caller>;
  std::vector<std::uint32_t> begin;
  std::vector<Pair> callees;
  if (!callers) {
    begin.assign(table.size() + 1, 0);
    for (const Entry& e : entries)
      for (const auto& [ck, v] : e.callers) ++begin[ck + 1];
    for (std::size_t k = 0; k < table.size(); ++k) begin[k + 1] += begin[k];
    std::vector<std::uint32_t> next(begin.begin(), begin.end() - 1);
    callees.resize(begin.back());
    for (const Entry& e : entries)
      for (const auto& [ck, v] : e.callers) callees[next[ck]++] = {e.key, v};
  }
  std::vector<Pair> dict;
  std::string plain, name;
  // The visible std_string of key `k` in `name`; its width in code points.
  auto name_of = [&](std::uint32_t k) {
    plain_std_string(plain, table.key(k));
    name.clear();
    append_visible(name, plain);
    return length(name);
  };
  for (std::uint32_t i : list) {
    const Entry& e = entries[i];
    if (callers)
      dict.assign(e.callers.begin(), e.callers.end());
    else
      dict.assign(callees.begin() + begin[e.key], callees.begin() + begin[e.key + 1]);
    const std::size_t n = name_of(e.key);
    out += name;  // (ljust to `width`)
    if (n < width) out.append(width - n, ' ');
    out += callers ? "<- " : "-> ";
    if (dict.empty()) {
      out += '\n';
      continue;
    }
    std::stable_sort(dict.begin(), dict.end(),
                     [&](const auto& a, const auto& b) { return key_less(table.key(a.first), table.key(b.first)); });
    bool first = true;
    for (const auto& [k, v] : dict) {
      name_of(k);
      // The lead: none on the first line, then as many spaces as the
      // caller's column is wide.
      if (!v.is_int) {
        if (!first) out.append(width + 1, ' ');
        append_ncalls(out, v.nc, v.cc, first ? 7 : 9);
        out += ' ';
        append_printf_fixed(out, v.tt, 3, 8);
        out += ' ';
        append_printf_fixed(out, v.ct, 3, 8);
        out += "  ";
        out += name;
      } else {
        if (!first) out.append(width + 3, ' ');
        const std::uint32_t at = entry_of[k];
        out += name;
        out += '(';
        append_integer(out, v.nc);
        out += ") ";
        append_printf_fixed(out, at == kNone ? 0.0 : entries[at].ct, 3, 8);
      }
      out += '\n';
      first = false;
    }
  }
}

}  // namespace

Expected<std::string> write(const Profile& p, std::size_t event, const CallGraph* graph, const Options& o) {
  Table table;
  std::vector<Entry> entries = merge_equal_keys(entries_of(p, event, graph, table, o.report != Report::kStats));
  if (o.strip_dirs) entries = strip_dirs(entries, table);
  std::string sort_type;
  auto sorted = sort_order(entries, o.sort, table, sort_type);
  if (!sorted) return sorted.error();
  std::vector<std::uint32_t> list = std::move(sorted).value();

  std::string out;
  if (o.report == Report::kStats) stats_header(out, p, p.events[event], entries, o);
  // get_print_list
  std::string msg = "   Ordered by: " + sort_type + "\n";
  for (const std::string& sel : o.restrictions) {
    auto reduced = restrict(list, sel, entries, table, msg);
    if (!reduced) return reduced.error();
    list = std::move(reduced).value();
  }
  if (list.empty()) return out;
  out += msg + "\n";
  if (o.report == Report::kStats) {
    // Room for the lines first (each is 46 columns, the key and its line
    // number): 100 000 lines grew the text by copies, the last of 8 MB.
    std::size_t room = out.size() + 128;
    for (std::uint32_t i : list) {
      const Key k = table.key(entries[i].key);
      room += 64 + k.file.size() + k.name.size();
    }
    out.reserve(room);
    stats_lines(out, entries, list, table);
  } else {
    // The widest name of the whole list, or of the lines left.
    std::size_t width = 0;
    if (list.size() < entries.size())
      for (std::uint32_t i : list) width = std::max(width, length(std_string(table.key(entries[i].key))));
    else
      for (const Entry& e : entries) width = std::max(width, length(std_string(table.key(e.key))));
    call_lines(out, entries, list, table, width + 2, o.report == Report::kCallers);
  }
  out += "\n\n";
  return out;
}

void set_python_regex(PythonRegex compile) { python_regex() = std::move(compile); }

std::string python_only_construct(std::string_view p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size()) {
      char c = p[i + 1];
      if (c == 'A') return "\\A (start of the string)";
      if (c == 'Z') return "\\Z (end of the string)";
      if (c == 'g' && i + 2 < p.size() && p[i + 2] == '<') return "\\g<...> (a group reference)";
      ++i;
      continue;
    }
    if (p[i] == '[') {  // a class: its characters are literal
      std::size_t j = i + 1;
      if (j < p.size() && p[j] == '^') ++j;
      if (j < p.size() && p[j] == ']') ++j;
      while (j < p.size() && p[j] != ']') {
        // ECMAScript's [[:digit:]] is a class of digits; Python's is the
        // characters "[:digt" and then a ']'.
        if (p[j] == '[' && j + 1 < p.size() && (p[j + 1] == ':' || p[j + 1] == '=' || p[j + 1] == '.'))
          return fmt::format("{}...{}] inside a set (a POSIX class, which Python reads as characters)", p.substr(j, 2),
                             p.substr(j + 1, 1));
        j += p[j] == '\\' ? 2 : 1;
      }
      i = j;
      continue;
    }
    if (p[i] == '{' && i + 1 < p.size() && p[i + 1] == ',') {
      // Python's x{,3} is x{0,3}; ECMAScript has no such repeat.
      std::size_t j = i + 2;
      while (j < p.size() && p[j] >= '0' && p[j] <= '9') ++j;
      if (j > i + 2 && j < p.size() && p[j] == '}') return fmt::format("{} (a repeat from 0)", p.substr(i, j + 1 - i));
    }
    if (p[i] != '(' || i + 2 >= p.size() || p[i + 1] != '?') continue;
    std::string_view rest = p.substr(i + 2);
    if (rest.starts_with("P<")) return "(?P<name>...) (a named group)";
    if (rest.starts_with("P=")) return "(?P=name) (a named back reference)";
    if (rest.starts_with("<=") || rest.starts_with("<!")) return "(?<=...) / (?<!...) (a look-behind)";
    if (rest.starts_with("<")) return "(?<name>...) (a named group)";
    if (rest.starts_with("#")) return "(?#...) (a comment)";
    if (rest.starts_with("(")) return "(?(group)yes|no) (a conditional)";
    if (rest.starts_with(">")) return "(?>...) (an atomic group)";
    if (!rest.empty() && std::string_view("aiLmsux-").find(rest[0]) != std::string_view::npos) {
      std::size_t end = rest.find_first_of(":)");
      return fmt::format("(?{}{}) (inline flags)", rest.substr(0, std::min(end, rest.size())),
                         end != std::string_view::npos && rest[end] == ':' ? ":..." : "");
    }
  }
  return {};
}

}  // namespace graphgen::stats
