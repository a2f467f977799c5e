#include "reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/python_text.h"
#include "graphgen/flat_index.h"
#include "marshal.h"
#include "stats_builder.h"
#include "stream.h"

namespace graphgen::pstats {

bool sniff_weak(std::string_view head) {
  if (head.empty()) return false;
  auto b0 = static_cast<unsigned char>(head[0]);
  if (b0 != 0x7B && b0 != 0xFB) return false;  // '{', possibly FLAG_REF'd
  // JSON's '{' is followed by blanks, a quote or '}', none of them a
  // marshal type code.
  if (head.size() > 1) {
    char b1 = head[1];
    if (b1 == ' ' || b1 == '\n' || b1 == '\r' || b1 == '\t' || b1 == '"' || b1 == '}') return false;
  }
  return true;
}

bool sniff_strong(std::string_view head) {
  if (!sniff_weak(head) || head.size() < 2) return false;
  auto b1 = static_cast<unsigned char>(head[1]);
  return b1 == 0x28 || b1 == 0x29 || b1 == 0xA8 || b1 == 0xA9;  // a tuple key
}

namespace {

using marshal::Document;
using marshal::Node;
using marshal::Type;

constexpr std::uint32_t kUnset = UINT32_MAX;

// Buffers a validator needs, kept per thread across files.
struct Scratch {
  std::vector<std::uint32_t> string_memo, key_memo, item_key, last, caller_keys, caller_last;
  std::vector<CallerStats> caller_stats;
};

class Validator {
 public:
  Validator(const Document& doc, std::string_view path, Profile& p, Scratch& scratch, bool keep_call_self)
      : doc_(doc),
        path_(path),
        p_(p),
        builder_(p, 0, false, keep_call_self),
        string_memo_(scratch.string_memo),
        key_memo_(scratch.key_memo),
        item_key_(scratch.item_key),
        last_(scratch.last),
        caller_keys_(scratch.caller_keys),
        caller_last_(scratch.caller_last),
        caller_stats_(scratch.caller_stats) {
    string_memo_.assign(doc.size(), kUnset);
    key_memo_.assign(doc.size(), kUnset);
    caller_last_.clear();
  }

  Expected<bool> run() {
    const Node& root = doc_.root();
    if (root.type != Type::kDict)
      return error(root, fmt::format("expected a pstats dict of functions, found {}", a_type(root.type)));
    auto items = doc_.children(root);
    if (items.empty())
      return error(root, "expected at least one function, found an empty stats dict (pstats refuses it too)");
    // A dict keeps a repeated key's first place and its last value.
    std::vector<std::uint32_t>& item_key = item_key_;
    item_key.resize(items.size() / 2);
    for (std::size_t k = 0; k + 1 < items.size(); k += 2)
      if (auto e = read_key(doc_.node(items[k]), item_key[k / 2]); !e) return e;
    std::vector<std::uint32_t>& last = last_;
    last.assign(builder_.key_count(), kUnset);
    for (std::size_t i = 0; i < item_key.size(); ++i) last[item_key[i]] = static_cast<std::uint32_t>(i);
    p_.functions.reserve(builder_.key_count());
    p_.self_cost.reserve(builder_.key_count());
    p_.total_cost.reserve(builder_.key_count());
    p_.listed.reserve(item_key.size());
    for (std::size_t i = 0; i < item_key.size(); ++i) {
      std::uint32_t key = item_key[i];
      if (last[key] == kUnset) continue;  // placed already
      std::uint32_t from = last[key];
      last[key] = kUnset;
      if (auto e = read_entry(key, doc_.node(items[2 * from + 1])); !e) return e;
    }
    return true;
  }

 private:
  Error error(const Node& at, std::string message) const {
    return bad_input(fmt::format("{}:+0x{:x}: {}", path_, at.offset, message));
  }

  std::string_view text(const Node& n, std::string& scratch) const {
    std::string_view s = doc_.text(n);
    if (n.type != Type::kBytes || formats::valid_utf8_surrogatepass(s)) return s;
    // Python 2 str: bytes in the writer's file-system encoding; UTF-8 if it
    // decodes, else Latin-1.
    scratch.clear();
    formats::append_latin1_as_utf8(s, scratch);
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
      memo = p_.strings.intern(text(n, scratch));
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
    if (!is_text(file))
      return error(file, fmt::format("expected a filename string in a function key, found {}", a_type(file.type)));
    if (line.type != Type::kInt && line.type != Type::kBool)
      return error(line, fmt::format("expected a line number in a function key, found {}", a_type(line.type)));
    if (!is_text(name) && name.type != Type::kCode)
      return error(name, fmt::format("expected a function name in a function key, found {}", a_type(name.type)));
    Key key;
    key.file = intern_text(file);
    key.line = line.i;
    key.name = intern_text(name);
    if (name.type == Type::kCode && name.i > 0) key.code = p_.strings.intern(doc_.code_bytes(name));
    out = memo = builder_.key(key);
    return true;
  }

  Expected<bool> number(const Node& n, bool int_only, std::string_view what, std::int64_t& i, double& d) {
    if (n.type == Type::kInt || n.type == Type::kBool) {
      i = n.i;
      d = static_cast<double>(n.i);
      return true;
    }
    if (n.type == Type::kFloat && !int_only) {
      d = n.f;
      i = 0;
      return true;
    }
    return error(n, fmt::format("expected {} ({}), found {}", what, int_only ? "an int" : "a number", a_type(n.type)));
  }

  Expected<bool> read_entry(std::uint32_t key, const Node& n) {
    auto parts = doc_.children(n);
    if (n.type != Type::kTuple || parts.size() != 5)
      return error(n, fmt::format("expected function stats (cc, nc, tt, ct, callers), found {}", describe(n)));
    std::int64_t cc = 0, nc = 0, unused = 0;
    double tt = 0, ct = 0, dummy = 0;
    if (auto e = number(doc_.node(parts[0]), true, "a primitive call count", cc, dummy); !e) return e;
    if (auto e = number(doc_.node(parts[1]), true, "a call count", nc, dummy); !e) return e;
    if (auto e = number(doc_.node(parts[2]), false, "an internal time", unused, tt); !e) return e;
    if (auto e = number(doc_.node(parts[3]), false, "a cumulative time", unused, ct); !e) return e;
    const Node& callers = doc_.node(parts[4]);
    if (callers.type != Type::kDict)
      return error(callers, fmt::format("expected a callers dict, found {}", a_type(callers.type)));
    const FuncId callee = builder_.entry(key, cc, nc, tt, ct);

    auto items = doc_.children(callers);
    const std::size_t count = items.size() / 2;
    caller_keys_.resize(count);
    caller_stats_.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      if (auto e = read_key(doc_.node(items[2 * k]), caller_keys_[k]); !e) return e;
      if (auto e = read_caller(doc_.node(items[2 * k + 1]), caller_stats_[k]); !e) return e;
    }
    // A repeated caller key: its first place, its last value (a dict).
    caller_last_.resize(builder_.key_count(), kUnset);
    for (std::size_t k = 0; k < count; ++k) caller_last_[caller_keys_[k]] = static_cast<std::uint32_t>(k);
    for (std::size_t k = 0; k < count; ++k) {
      std::uint32_t& from = caller_last_[caller_keys_[k]];
      if (from == kUnset) continue;  // placed already
      builder_.caller(caller_keys_[k], callee, caller_stats_[from]);
      from = kUnset;
    }
    return true;
  }

  Expected<bool> read_caller(const Node& v, CallerStats& out) {
    out = CallerStats{};
    if (v.type == Type::kInt || v.type == Type::kBool) {
      out.is_int = true;
      out.count = v.i;
      return true;
    }
    if (v.type != Type::kTuple)
      return error(v, fmt::format("expected caller stats (a tuple or an int), found {}", a_type(v.type)));
    auto vals = doc_.children(v);
    if (vals.empty() || vals.size() % 4 != 0)
      return error(v, fmt::format("expected caller stats (nc, cc, tt, ct), found a tuple of {} items", vals.size()));
    for (std::size_t i = 0; i < vals.size(); ++i) {
      bool int_only = i % 4 < 2;
      std::int64_t iv = 0;
      double dv = 0;
      if (auto e = number(doc_.node(vals[i]), int_only, int_only ? "a caller call count" : "a caller time", iv, dv); !e)
        return e;
      out.add_item(i, iv, dv);
    }
    return true;
  }

  const Document& doc_;
  std::string_view path_;
  Profile& p_;
  StatsBuilder builder_;
  std::vector<std::uint32_t>& string_memo_;
  std::vector<std::uint32_t>& key_memo_;
  std::vector<std::uint32_t>& item_key_;
  std::vector<std::uint32_t>& last_;
  std::vector<std::uint32_t>& caller_keys_;
  std::vector<std::uint32_t>& caller_last_;
  std::vector<CallerStats>& caller_stats_;
};

}  // namespace

Expected<Profile> read(std::string_view bytes, std::string_view path, Diagnostics& diag, const InputFile* file,
                       bool keep_call_self) {
  std::size_t trailing = 0;
  if (auto fast = detail::read_fast(bytes, trailing, file, keep_call_self)) {
    if (trailing > 0)
      diag.warn(fmt::format("{}:+0x{:x}: {} trailing bytes after the stats dict ignored", path, bytes.size() - trailing,
                            trailing));
    return std::move(*fast);
  }
  return read_general(bytes, path, diag, keep_call_self);
}

Expected<Profile> read_general(std::string_view bytes, std::string_view path, Diagnostics& diag, bool keep_call_self) {
  // Each thread keeps its decoder buffers across files (a thousand rank
  // files decode without allocating for each).
  thread_local marshal::Document buffers;
  auto doc = marshal::decode(bytes, path, std::move(buffers));
  if (!doc) return doc.error();
  Profile p;
  thread_local Scratch scratch;
  Validator v(*doc, path, p, scratch, keep_call_self);
  auto ok = v.run();
  std::size_t trailing = doc->trailing_bytes();
  buffers = std::move(doc).value();
  if (!ok) return ok.error();
  if (trailing > 0)
    diag.warn(fmt::format("{}:+0x{:x}: {} trailing bytes after the stats dict ignored", path, bytes.size() - trailing,
                          trailing));
  return p;
}

}  // namespace graphgen::pstats
