#include "pstats.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "graphgen/analysis/graph.h"
#include "marshal.h"

namespace graphgen::pstats {

Number operator+(Number a, Number b) {
  if (a.is_int && b.is_int) return Number::of_int(saturating_add(a.i, b.i));
  return Number::of_float(a.as_double() + b.as_double());
}

namespace {
std::uint64_t key_hash(const Key& k) {
  return FlatIndex::mix(k.file, static_cast<std::uint64_t>(k.line), (static_cast<std::uint64_t>(k.name) << 1) | k.code);
}
}  // namespace

std::uint32_t Table::intern_key(const Key& k) {
  return key_index.find_or_add(
      key_hash(k), [&](std::uint32_t i) { return keys[i] == k; },
      [&] {
        keys.push_back(k);
        entry_of_key.push_back(-1);
        return static_cast<std::uint32_t>(keys.size() - 1);
      });
}

std::int64_t Table::find_key(const Key& k) const {
  return key_index.find(key_hash(k), [&](std::uint32_t i) { return keys[i] == k; });
}

namespace {

using marshal::Document;
using marshal::Node;
using marshal::Type;

std::string key_text(const Table& t, std::uint32_t key) {
  const Key& k = t.keys[key];
  return fmt::format("('{}', {}, '{}')", t.str(k.file), k.line, t.str(k.name));
}

// pstats.Stats.add for one entry (add_func_stats + add_callers): (cc, nc,
// tt, ct) summed, callers merged key by key in the target's order, new ones
// appended; tuples add element-wise and the shorter length wins (zip), ints
// add. `numbers` holds src's caller numbers; caller_key maps src's caller
// keys into `into`.
template <class CallerKey>
Expected<bool> add_entry(Table& into, std::uint32_t key, const Entry& src, const std::vector<Number>& numbers,
                         CallerKey&& caller_key, std::string_view path) {
  std::int32_t& slot = into.entry_of_key[key];
  if (slot < 0) {
    slot = static_cast<std::int32_t>(into.entries.size());
    Entry fresh;
    fresh.key = key;
    fresh.cc = fresh.nc = fresh.tt = fresh.ct = Number::of_int(0);
    into.entries.push_back(std::move(fresh));
  }
  Entry& dst = into.entries[static_cast<std::size_t>(slot)];
  dst.cc = src.cc + dst.cc;
  dst.nc = src.nc + dst.nc;
  dst.tt = src.tt + dst.tt;
  dst.ct = src.ct + dst.ct;
  const std::size_t existing = dst.callers.size();  // caller lists are short: scan them
  for (const Caller& c : src.callers) {
    std::uint32_t ckey = caller_key(c.key);
    Caller* old = nullptr;
    for (std::size_t i = 0; i < existing; ++i)
      if (dst.callers[i].key == ckey) old = &dst.callers[i];
    if (!old) {
      Caller copy = c;
      copy.key = ckey;
      copy.begin = static_cast<std::uint32_t>(into.numbers.size());
      into.numbers.insert(into.numbers.end(), numbers.begin() + c.begin, numbers.begin() + c.begin + c.count);
      dst.callers.push_back(copy);
      continue;
    }
    if (old->is_int != c.is_int)
      return bad_input(fmt::format(
          "{}: cannot merge caller {} of {}: it is a call count in one file and a (nc, cc, tt, ct) tuple in "
          "another (profile and cProfile output do not mix)",
          path, key_text(into, ckey), key_text(into, key)));
    std::uint32_t n = std::min(old->count, c.count);
    for (std::uint32_t i = 0; i < n; ++i) into.numbers[old->begin + i] = numbers[c.begin + i] + into.numbers[old->begin + i];
    old->count = n;
  }
  return true;
}

// Reads a decoded stats dict into a table: either building the table of one
// file (kBuild: Python's view of that file) or adding each entry straight
// into an accumulated table as pstats.Stats.add does (kAdd), which merges
// many files without a table per file. Caller numbers are read into a
// scratch vector first and committed per entry.
class Validator {
 public:
  enum class Mode { kBuild, kAdd };

  /// Buffers a validator needs per document, kept across documents.
  struct Buffers {
    std::vector<std::uint32_t> string_memo, key_memo;
    std::vector<Number> scratch;
    Entry entry;
  };

  Validator(const Document& doc, std::string_view path, Table& table, Mode mode = Mode::kBuild)
      : Validator(doc, path, table, mode, own_) {}
  Validator(const Document& doc, std::string_view path, Table& table, Mode mode, Buffers& buffers)
      : doc_(doc), path_(path), table_(table), mode_(mode), string_memo_(buffers.string_memo),
        key_memo_(buffers.key_memo), scratch_(buffers.scratch), entry_(buffers.entry) {
    string_memo_.assign(doc.size(), kUnset);
    key_memo_.assign(doc.size(), kUnset);
  }

  /// kAdd only: whether the dict repeats a key, which Python resolves by
  /// keeping the later value: such a file must be built, then added.
  bool repeats_a_key() {
    const Node& root = doc_.root();
    if (root.type != Type::kDict) return false;
    auto items = doc_.children(root);
    std::vector<std::uint32_t> seen;
    for (std::size_t k = 0; k + 1 < items.size(); k += 2) {
      std::uint32_t key;
      if (!read_key(doc_.node(items[k]), key)) return false;  // run() reports it
      seen.push_back(key);
    }
    std::sort(seen.begin(), seen.end());
    return std::adjacent_find(seen.begin(), seen.end()) != seen.end();
  }

  Expected<bool> run() {
    const Node& root = doc_.root();
    if (root.type != Type::kDict)
      return error(root, fmt::format("expected a pstats dict of functions, found a {}", type_name(root.type)));
    auto items = doc_.children(root);
    if (items.empty())
      return error(root, "expected at least one function, found an empty stats dict (pstats refuses it too)");
    for (std::size_t k = 0; k + 1 < items.size(); k += 2) {
      const Node& key = doc_.node(items[k]);
      const Node& value = doc_.node(items[k + 1]);
      std::uint32_t key_index;
      if (auto e = read_key(key, key_index); !e) return e;
      scratch_.clear();
      if (mode_ == Mode::kAdd) {
        entry_.callers.clear();
        entry_.key = key_index;
        if (auto e = read_value(value, entry_); !e) return e;
        if (auto e = add_entry(entry_); !e) return e;
        continue;
      }
      Entry entry;
      entry.key = key_index;
      if (auto e = read_value(value, entry); !e) return e;
      for (Caller& c : entry.callers) {  // commit the numbers
        std::uint32_t begin = static_cast<std::uint32_t>(table_.numbers.size());
        table_.numbers.insert(table_.numbers.end(), scratch_.begin() + c.begin, scratch_.begin() + c.begin + c.count);
        c.begin = begin;
      }
      std::int32_t& slot = table_.entry_of_key[key_index];
      if (slot >= 0) {
        // Python: a later duplicate key replaces the value in place.
        table_.entries[slot] = std::move(entry);
      } else {
        slot = static_cast<std::int32_t>(table_.entries.size());
        table_.entries.push_back(std::move(entry));
      }
    }
    return true;
  }

 private:
  Error error(const Node& at, std::string message) const {
    return bad_input(fmt::format("{}:+0x{:x}: {}", path_, at.offset, message));
  }

  std::string_view text(const Node& n, std::string& scratch) const {
    std::string_view s = doc_.text(n);
    if (n.type != Type::kBytes || marshal::valid_utf8_surrogatepass(s)) return s;
    // Python 2 str: bytes in the writer's file-system encoding; UTF-8 if it
    // decodes, else Latin-1.
    scratch.clear();
    marshal::append_latin1_as_utf8(s, scratch);
    return scratch;
  }

  bool is_text(const Node& n) const { return n.type == Type::kStr || n.type == Type::kBytes; }

  std::string describe(const Node& n) const {
    if (n.type == Type::kTuple) return fmt::format("a tuple of {} items", n.size);
    return fmt::format("a {}", type_name(n.type));
  }

  // Strings and key tuples are often shared objects (marshal references), so
  // each node is interned once.
  StringId intern_text(const Node& n) {
    std::uint32_t& memo = string_memo_[doc_.index_of(n)];
    if (memo == kUnset) {
      std::string scratch;
      memo = table_.strings.intern(text(n, scratch));
    }
    return memo;
  }

  Expected<bool> read_key(const Node& n, std::uint32_t& out) {
    std::uint32_t& memo = key_memo_[doc_.index_of(n)];
    if (memo != kUnset) {
      out = memo;
      return true;
    }
    auto parts = doc_.children(n);
    if (n.type != Type::kTuple || parts.size() != 3)
      return error(n, fmt::format("expected a function key (filename, line, name), found {}", describe(n)));
    const Node& file = doc_.node(parts[0]);
    const Node& line = doc_.node(parts[1]);
    const Node& name = doc_.node(parts[2]);
    if (!is_text(file)) return error(file, fmt::format("expected a filename string in a function key, found a {}", type_name(file.type)));
    if (line.type != Type::kInt && line.type != Type::kBool)
      return error(line, fmt::format("expected a line number in a function key, found a {}", type_name(line.type)));
    if (!is_text(name) && name.type != Type::kCode)
      return error(name, fmt::format("expected a function name in a function key, found a {}", type_name(name.type)));
    Key key;
    key.file = intern_text(file);
    key.line = line.i;
    key.name = intern_text(name);
    key.code = name.type == Type::kCode;
    out = memo = table_.intern_key(key);
    return true;
  }

  Expected<bool> number(const Node& n, bool int_only, std::string_view what, Number& out) {
    if (n.type == Type::kInt || n.type == Type::kBool) {
      out = Number::of_int(n.i);
      return true;
    }
    if (n.type == Type::kFloat && !int_only) {
      out = Number::of_float(n.f);
      return true;
    }
    return error(n, fmt::format("expected {} ({}), found a {}", what, int_only ? "an int" : "a number", type_name(n.type)));
  }

  Expected<bool> read_value(const Node& n, Entry& entry) {
    auto parts = doc_.children(n);
    if (n.type != Type::kTuple || parts.size() != 5)
      return error(n, fmt::format("expected function stats (cc, nc, tt, ct, callers), found {}", describe(n)));
    if (auto e = number(doc_.node(parts[0]), true, "a primitive call count", entry.cc); !e) return e;
    if (auto e = number(doc_.node(parts[1]), true, "a call count", entry.nc); !e) return e;
    if (auto e = number(doc_.node(parts[2]), false, "an internal time", entry.tt); !e) return e;
    if (auto e = number(doc_.node(parts[3]), false, "a cumulative time", entry.ct); !e) return e;
    const Node& callers = doc_.node(parts[4]);
    if (callers.type != Type::kDict)
      return error(callers, fmt::format("expected a callers dict, found a {}", type_name(callers.type)));
    auto items = doc_.children(callers);
    entry.callers.reserve(items.size() / 2);
    for (std::size_t k = 0; k + 1 < items.size(); k += 2) {
      Caller c;
      if (auto e = read_key(doc_.node(items[k]), c.key); !e) return e;
      const Node& v = doc_.node(items[k + 1]);
      c.begin = static_cast<std::uint32_t>(scratch_.size());
      if (v.type == Type::kInt || v.type == Type::kBool) {
        c.is_int = true;
        c.count = 1;
        scratch_.push_back(Number::of_int(v.i));
      } else if (v.type == Type::kTuple) {
        auto vals = doc_.children(v);
        if (vals.empty() || vals.size() % 4 != 0)
          return error(v, fmt::format("expected caller stats (nc, cc, tt, ct), found a tuple of {} items", vals.size()));
        c.count = static_cast<std::uint32_t>(vals.size());
        for (std::size_t i = 0; i < vals.size(); ++i) {
          Number num;
          bool int_only = i % 4 < 2;
          if (auto e = number(doc_.node(vals[i]), int_only, int_only ? "a caller call count" : "a caller time", num); !e)
            return e;
          scratch_.push_back(num);
        }
      } else {
        return error(v, fmt::format("expected caller stats (a tuple or an int), found a {}", type_name(v.type)));
      }
      // A repeated caller key: the later value replaces the earlier (dict).
      auto same = std::find_if(entry.callers.begin(), entry.callers.end(),
                               [&](const Caller& x) { return x.key == c.key; });
      if (same == entry.callers.end())
        entry.callers.push_back(c);
      else
        *same = c;
    }
    return true;
  }

  Expected<bool> add_entry(const Entry& src) {
    return pstats::add_entry(table_, src.key, src, scratch_, [](std::uint32_t k) { return k; }, path_);
  }

  static constexpr std::uint32_t kUnset = UINT32_MAX;
  Buffers own_;
  const Document& doc_;
  std::string_view path_;
  Table& table_;
  Mode mode_;
  std::vector<std::uint32_t>& string_memo_;
  std::vector<std::uint32_t>& key_memo_;
  std::vector<Number>& scratch_;
  Entry& entry_;
};

}  // namespace

Expected<Table> read_table(std::string_view bytes, std::string_view path, Diagnostics& diag) {
  auto doc = marshal::decode(bytes, path);
  if (!doc) return doc.error();
  Table table;
  Validator v(*doc, path, table);
  if (auto ok = v.run(); !ok) return ok.error();
  if (doc->trailing_bytes() > 0)
    diag.warn(fmt::format("{}:+0x{:x}: {} trailing bytes after the stats dict ignored", path,
                          bytes.size() - doc->trailing_bytes(), doc->trailing_bytes()));
  return table;
}

namespace {

std::uint32_t import_key(Table& into, const Table& from, std::uint32_t key_index) {
  const Key& k = from.keys[key_index];
  Key copy = k;
  copy.file = into.strings.intern(from.str(k.file));
  copy.name = into.strings.intern(from.str(k.name));
  return into.intern_key(copy);
}

}  // namespace

Expected<bool> add(Table& into, const Table& other, std::string_view other_path) {
  for (const Entry& src : other.entries) {
    auto ok = add_entry(into, import_key(into, other, src.key), src, other.numbers,
                        [&](std::uint32_t k) { return import_key(into, other, k); }, other_path);
    if (!ok) return ok;
  }
  return true;
}

Expected<Table> merge_files(const std::vector<InputFile>& inputs, Diagnostics& diag) {
  const std::size_t n = inputs.size();
  // pstats.Stats(a, b, c, ...) loads a, then adds the others last to first.
  std::vector<std::size_t> order{0};
  for (std::size_t i = n; i-- > 1;) order.push_back(i);

  // One thread decodes ahead, at most kWindow documents, while this one
  // folds them into the table in order (the two halves of the work weigh
  // about the same, and a machine of two cores runs both at once); the
  // result is the same whatever the threads' timing.
  constexpr std::size_t kWindow = 16;
  constexpr int kDecoders = 1;
  std::vector<std::optional<Expected<marshal::Document>>> docs(n);
  std::vector<marshal::Document> spare;  // merged documents, their buffers reused
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t next = 0, merged = 0;
  bool stop = false;
  auto worker = [&] {
    for (;;) {
      std::size_t pos;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return stop || next >= n || next < merged + kWindow; });
        if (stop || next >= n) return;
        pos = next++;
      }
      marshal::Document buffers;
      {
        std::lock_guard lock(mutex);
        if (!spare.empty()) {
          buffers = std::move(spare.back());
          spare.pop_back();
        }
      }
      const InputFile& in = inputs[order[pos]];
      auto doc = marshal::decode(in.bytes(), in.path(), std::move(buffers));
      in.release_before(in.bytes().size());  // decoded: the mapped pages can go
      std::lock_guard lock(mutex);
      docs[pos] = std::move(doc);
      changed.notify_all();
    }
  };
  std::vector<std::thread> workers;
  if (n > 1)
    for (int t = 0; t < kDecoders; ++t) workers.emplace_back(worker);
  auto finish = [&] {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    changed.notify_all();
    for (std::thread& t : workers) t.join();
  };

  Table table;
  Validator::Buffers buffers;
  for (std::size_t pos = 0; pos < n; ++pos) {
    const InputFile& in = inputs[order[pos]];
    std::optional<Expected<marshal::Document>> doc;
    if (workers.empty()) {
      doc = marshal::decode(in.bytes(), in.path());
    } else {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return docs[pos].has_value(); });
      doc = std::move(docs[pos]);
      docs[pos].reset();
    }
    if (!*doc) {
      finish();
      return doc->error();
    }
    Validator adder(**doc, in.path(), table, Validator::Mode::kAdd, buffers);
    Expected<bool> ok = true;
    if (adder.repeats_a_key()) {
      // Python keeps the later of two equal keys in one file: build the
      // file's table as Python sees it, then add it.
      Table one;
      Validator builder(**doc, in.path(), one);
      ok = builder.run();
      if (ok) ok = add(table, one, in.path());
    } else {
      ok = adder.run();
    }
    if (!ok) {
      finish();
      return ok.error();
    }
    if ((*doc)->trailing_bytes() > 0)
      diag.warn(fmt::format("{}:+0x{:x}: {} trailing bytes after the stats dict ignored", in.path(),
                            in.bytes().size() - (*doc)->trailing_bytes(), (*doc)->trailing_bytes()));
    {
      std::lock_guard lock(mutex);
      if (spare.size() < 4) spare.push_back(std::move(**doc));
      ++merged;
    }
    doc.reset();
    changed.notify_all();
  }
  finish();
  return table;
}

std::string module_of(std::string_view filename) {
  // os.path.splitext, then os.path.basename.
  std::size_t sep = filename.rfind('/');
  std::size_t dot = filename.rfind('.');
  std::string_view root = filename;
  std::size_t name_start = sep == std::string_view::npos ? 0 : sep + 1;
  if (dot != std::string_view::npos && (sep == std::string_view::npos || dot > sep)) {
    for (std::size_t i = name_start; i < dot; ++i) {
      if (filename[i] != '.') {
        root = filename.substr(0, dot);
        break;
      }
    }
  }
  std::size_t slash = root.rfind('/');
  return std::string(slash == std::string_view::npos ? root : root.substr(slash + 1));
}

Profile to_profile(const Table& table) {
  Profile p;
  p.events.push_back({p.strings.intern("time"), p.strings.intern("ns"), 1e-9});
  p.reports_totals = true;
  std::vector<FuncId> func_of_key(table.keys.size(), UINT32_MAX);
  auto get = [&](std::uint32_t key) {
    FuncId& f = func_of_key[key];
    if (f != UINT32_MAX) return f;
    const Key& k = table.keys[key];
    Function fn;
    std::string_view name = table.str(k.name);
    std::string_view file = table.str(k.file);
    fn.label = p.strings.intern(fmt::format("{}:{}:{}", module_of(file), k.line, name));
    fn.name = p.strings.intern(name);
    fn.file = p.strings.intern(file);
    fn.line = k.line < 0 ? 0 : static_cast<std::uint32_t>(std::min<std::int64_t>(k.line, UINT32_MAX));
    f = p.add_function(fn);
    return f;
  };

  for (const Entry& e : table.entries) {
    FuncId callee = get(e.key);
    Function& fn = p.functions[callee];
    fn.calls = e.nc.as_int();
    fn.primitive_calls = e.cc.as_int();
    p.self(callee, 0) = seconds_to_ns(e.tt.as_double());
    p.total(callee, 0) = seconds_to_ns(e.ct.as_double());
    for (const Caller& c : e.callers) {
      FuncId caller = get(c.key);
      Call call{caller, callee, 0, kUnknownCount};
      double inclusive = 0;
      if (c.is_int) {
        std::int64_t n = table.numbers[c.begin].i;
        call.count = n;
        inclusive = ratio(static_cast<double>(n), e.nc.as_double()) * e.ct.as_double();
      } else {
        std::int64_t calls = 0, primitive = 0;
        for (std::uint32_t g = 0; g + 3 < c.count; g += 4) {
          calls = saturating_add(calls, table.numbers[c.begin + g].as_int());
          primitive = saturating_add(primitive, table.numbers[c.begin + g + 1].as_int());
          inclusive += table.numbers[c.begin + g + 3].as_double();
        }
        call.count = calls;
        call.primitive_count = primitive;
      }
      CallId id = p.add_call(call);
      p.inclusive(id, 0) = seconds_to_ns(inclusive);
    }
  }
  return p;
}

}  // namespace graphgen::pstats
