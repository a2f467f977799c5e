// line_profiler's .lprof a function at a time (reader.h): the pickle is
// decoded as it is read, and each function's lines become rows of the
// profile when its (key, list) pair is set in the timings dict. What is kept
// is the profile, the memo's strings and keys, and the lists of one SETITEMS
// batch (pickle batches a thousand items) — not the whole pickle as objects
// (16 bytes a node, four nodes and a memo entry a line: 12 times the file).
//
// It takes the pickles line_profiler writes (pickle.dump of a LineStats,
// protocols 2-5, and Python 2's cPickle) and gives any other to the general
// path, which decodes the whole pickle and owns every error message: an
// opcode outside those below, a tuple that is neither a key (str, int, str)
// nor a line (int, int, int), a key or a list anywhere but where LineStats
// puts them, a list or line taken from the memo again, a key repeated in
// the dict, memo indices out of order, anything the general path refuses.
//
// The two paths make the same profile: functions in the dict's order, each
// one's lines by line number with repeated lines summed in the list's
// order, the keys' strings interned in the order the general path interns
// them (file, then name, key by key), the events' names after them.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/pickle.h"
#include "common/pickle_stream.h"
#include "common/python_text.h"
#include "graphgen/flat_index.h"
#include "lprof/reader.h"

namespace graphgen::lprof {

namespace {

using pickle::GiveUp;

enum class Kind : std::uint8_t { kInt, kFloat, kText, kKey, kLine, kList, kDict, kClass, kObject, kEmptyTuple };

// A value on the stack. kInt: a; kFloat: a holds its bits; kText: index
// into texts_, a = 1 for bytes (Python 2 str); kKey: keys_; kLine: line,
// hits and time in a, b, c; kList: lists_; kDict: dicts_.
struct Value {
  Kind kind = Kind::kInt;
  std::uint32_t index = 0;
  std::int64_t a = 0, b = 0, c = 0;
};

class Stream : pickle::StreamBase<Stream, Value> {
  friend StreamBase;

 public:
  Stream(const InputFile& in, bool keep_lines)
      : StreamBase(in.bytes()), file_(in), pages_(&in), keep_lines_(keep_lines) {
    p_.label_style = LabelStyle::kPython;
    // The events first (a function's costs are a row of them); their names
    // are interned at the end, after the keys' strings, as the general
    // path interns them.
    p_.events.resize(2);
    // Room for every line the input can hold (7 bytes each at least: three
    // one-byte ints and TUPLE3): growing by doubling held the old rows
    // beside the new. Room not used costs no memory (reservable()).
    const std::size_t lines = in_.size() / 7 + 16;
    if (!keep_lines_) return;
    p_.line_costs.reserve(reservable_count<LineCost>(lines));
    p_.line_cost_values.reserve(reservable_count<Cost>(2 * lines));
  }

  Profile run() {
    for (;;) {
      pages_.at(pos_);
      const unsigned char op = u8();
      if (op == '.') break;
      step(op);
    }
    if (!marks_.empty() || stack_.size() != 1 || stack_.back().kind != Kind::kObject || !has_state_) throw GiveUp{};
    // The state: the last 'timings' and the last 'unit' (a dict).
    const Value* timings = nullptr;
    const Value* unit = nullptr;
    for (const auto& [k, v] : dicts_[state_].items) {
      if (k.kind != Kind::kText) continue;
      if (texts_[k.index] == "timings") timings = &v;
      if (texts_[k.index] == "unit") unit = &v;
    }
    if (!timings || timings->kind != Kind::kDict) throw GiveUp{};
    if (timings_ != kNoDict ? timings->index != timings_ : !dicts_[timings->index].items.empty()) throw GiveUp{};
    if (!unit || (unit->kind != Kind::kFloat && unit->kind != Kind::kInt)) throw GiveUp{};
    const double seconds = unit->kind == Kind::kFloat ? std::bit_cast<double>(unit->a) : static_cast<double>(unit->a);
    if (!(seconds > 0) || !std::isfinite(seconds)) throw GiveUp{};
    detail::name_events(p_, seconds);
    // The pages read again go with the rest: a file's name taken from the
    // memo maps its first occurrence's pages again, and the kernel maps
    // more around them (2.9 of a 5 MB file's pages were left resident).
    file_.release_before(in_.size());
    return std::move(p_);
  }

 private:
  static constexpr std::uint32_t kNoDict = UINT32_MAX;
  struct Key {
    StringId file, name;
    std::int64_t line;
  };
  struct List {
    std::size_t begin = 0, count = 0;  // in lines_
    bool emitted = false;
  };
  struct Dict {
    std::vector<std::pair<Value, Value>> items;  // (a dict other than the timings)
  };

  // ----- the stack
  // The value just below stack_[size), above the last open MARK.
  Value& below(std::size_t size) {
    if (size == 0 || (!marks_.empty() && size <= marks_.back())) throw GiveUp{};
    return stack_[size - 1];
  }
  void push_int(std::int64_t v) { stack_.push_back({Kind::kInt, 0, v}); }
  void push_text(std::string_view s, bool is_bytes) {
    if (!is_bytes && !formats::valid_utf8_surrogatepass(s)) throw GiveUp{};
    if (texts_.size() >= UINT32_MAX) throw GiveUp{};
    texts_.push_back(s);
    stack_.push_back({Kind::kText, static_cast<std::uint32_t>(texts_.size() - 1), is_bytes ? 1 : 0});
  }
  // A key's str as the general path interns it: Python 2 str (bytes) as
  // UTF-8 where it decodes, else Latin-1.
  StringId intern(const Value& t) {
    const std::string_view s = texts_[t.index];
    if (t.a == 0 || formats::valid_utf8_surrogatepass(s)) return p_.strings.intern(s);
    scratch_.clear();
    formats::append_latin1_as_utf8(s, scratch_);
    return p_.strings.intern(scratch_);
  }

  void step(unsigned char op) {
    if (common(op, memo_size_)) return;
    switch (op) {
      case '(':
        marks_.push_back(stack_.size());
        return;
      case ')':
        stack_.push_back({Kind::kEmptyTuple});
        return;
      case 0x87:
        return tuple3();
      case ']':
        return new_list();
      case 'a': {
        const Value v = pop();
        append(below(stack_.size()), &v, 1);
        return;
      }
      case 'e': {
        const std::size_t m = pop_mark();
        append(below(m), stack_.data() + m, stack_.size() - m);
        stack_.resize(m);
        return;
      }
      case '}':
        dicts_.emplace_back();
        stack_.push_back({Kind::kDict, static_cast<std::uint32_t>(dicts_.size() - 1)});
        return;
      case 's': {
        const Value v = pop(), k = pop();
        const Value pair[2] = {k, v};
        set_items(below(stack_.size()), pair, 1);
        return;
      }
      case 'u': {
        const std::size_t m = pop_mark();
        if ((stack_.size() - m) % 2) throw GiveUp{};
        set_items(below(m), stack_.data() + m, (stack_.size() - m) / 2);
        stack_.resize(m);
        return;
      }
      case 'I':  // Python 2's INT and LONG, in decimal
      case 'L': {
        std::string_view t = line();
        if (op == 'L' && !t.empty() && t.back() == 'L') t.remove_suffix(1);
        if (op == 'I' && (t == "00" || t == "01")) throw GiveUp{};  // (protocol 0's booleans)
        const char* b = t.data() + (!t.empty() && t.front() == '+');
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(b, t.data() + t.size(), v);
        if (t.empty() || ec != std::errc() || end != t.data() + t.size()) throw GiveUp{};
        return push_int(v);
      }
      case 'G': {  // BINFLOAT, big-endian
        need(8);
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = bits << 8 | static_cast<unsigned char>(in_[pos_ + k]);
        pos_ += 8;
        stack_.push_back({Kind::kFloat, 0, static_cast<std::int64_t>(bits)});
        return;
      }
      case 0x8C:
        return push_text(bytes(u8()), false);
      case 'X':
        return push_text(bytes(le(4)), false);
      case 0x8D:
        return push_text(bytes(le(8)), false);
      case 'U':
        return push_text(bytes(u8()), true);
      case 'T': {
        const auto n = static_cast<std::int32_t>(le(4));
        if (n < 0) throw GiveUp{};
        return push_text(bytes(static_cast<std::uint64_t>(n)), true);
      }
      case 'c': {
        const std::string_view module = line(), name = line();
        return global(module, name);
      }
      case 0x93: {  // STACK_GLOBAL
        const Value name = pop(), module = pop();
        if (module.kind != Kind::kText || name.kind != Kind::kText || module.a || name.a) throw GiveUp{};
        return global(texts_[module.index], texts_[name.index]);
      }
      case 0x81: {  // NEWOBJ
        const Value args = pop(), cls = pop();
        if (cls.kind != Kind::kClass || args.kind != Kind::kEmptyTuple || objects_++) throw GiveUp{};
        stack_.push_back({Kind::kObject});
        return;
      }
      case 'b': {  // BUILD
        const Value state = pop();
        if (below(stack_.size()).kind != Kind::kObject || has_state_ || state.kind != Kind::kDict) throw GiveUp{};
        has_state_ = true;
        state_ = state.index;
        return;
      }
      default:
        throw GiveUp{};
    }
  }

  void global(std::string_view module, std::string_view name) {
    if (!detail::is_line_stats(module, name)) throw GiveUp{};
    stack_.push_back({Kind::kClass});
  }

  // A key (file, line, name) or a line (line, hits, time).
  void tuple3() {
    const Value c = pop(), b = pop(), a = pop();
    if (a.kind == Kind::kText && b.kind == Kind::kInt && c.kind == Kind::kText) {
      if (keys_.size() >= UINT32_MAX) throw GiveUp{};
      const StringId file = intern(a);  // (file, then name: the general path's order)
      keys_.push_back({file, intern(c), b.a});
      stack_.push_back({Kind::kKey, static_cast<std::uint32_t>(keys_.size() - 1)});
      return;
    }
    if (a.kind != Kind::kInt || b.kind != Kind::kInt || c.kind != Kind::kInt || b.a < 0) throw GiveUp{};
    stack_.push_back({Kind::kLine, 0, a.a, b.a, c.a});
  }

  void new_list() {
    // Every list before emitted (the last batch's): their lines are done with.
    if (std::all_of(lists_.begin(), lists_.end(), [](const List& l) { return l.emitted; })) {
      lists_.clear();
      lines_.clear();
    }
    if (lists_.size() >= UINT32_MAX) throw GiveUp{};
    lists_.push_back({lines_.size(), 0, false});
    stack_.push_back({Kind::kList, static_cast<std::uint32_t>(lists_.size() - 1)});
  }

  // Lines appended to the list made last (whose lines end the arena).
  void append(const Value& list, const Value* items, std::size_t n) {
    if (list.kind != Kind::kList || list.index + 1 != lists_.size()) throw GiveUp{};
    List& l = lists_.back();
    for (std::size_t k = 0; k < n; ++k) {
      if (items[k].kind != Kind::kLine) throw GiveUp{};
      lines_.push_back({items[k].a, items[k].b, items[k].c});
    }
    l.count += n;
  }

  // Pairs set in a dict: (key, list) pairs make the timings dict and are
  // added to the profile at once; (str, value) pairs are the state's.
  void set_items(const Value& dict, const Value* pairs, std::size_t n) {
    if (dict.kind != Kind::kDict) throw GiveUp{};
    for (std::size_t k = 0; k < n; ++k) {
      const Value &key = pairs[2 * k], &value = pairs[2 * k + 1];
      if (key.kind == Kind::kKey) {
        if (timings_ == kNoDict && dicts_[dict.index].items.empty()) timings_ = dict.index;
        if (dict.index != timings_ || value.kind != Kind::kList || lists_[value.index].emitted) throw GiveUp{};
        add_function(keys_[key.index], lists_[value.index]);
      } else if (key.kind == Kind::kText) {
        if (dict.index == timings_) throw GiveUp{};
        if (value.kind == Kind::kKey || value.kind == Kind::kLine || value.kind == Kind::kList) throw GiveUp{};
        dicts_[dict.index].items.emplace_back(key, value);
      } else {
        throw GiveUp{};
      }
    }
  }

  // A function and its lines, merged and added as the general path adds them.
  void add_function(const Key& key, List& list) {
    bool fresh = false;
    key_index_.find_or_add(
        FlatIndex::mix(key.file, key.name, static_cast<std::uint64_t>(key.line)),
        [&](std::uint32_t f) {
          const Function& g = p_.functions[f];
          return g.file == key.file && g.line == key.line && g.name == key.name;
        },
        [&] {
          fresh = true;
          return static_cast<std::uint32_t>(p_.functions.size());
        });
    if (!fresh) throw GiveUp{};  // (a repeated key: its last value in its first place)
    list.emitted = true;
    detail::LineRow* first = lines_.data() + list.begin;
    detail::add_timed_function(p_, key.name, key.file, key.line, first, detail::merge_lines(first, first + list.count),
                               keep_lines_);
  }

  // The memo: only what may be taken again (strings, keys, the class, the
  // object, dicts), by index, indices in the order they are set (as every
  // Pickler sets them); lines and lists are not kept, and taking one again
  // is left to the general path.
  // Each entry is 12 bytes: what is kept of a value is its kind, its index
  // and whether a text is bytes (a number or an empty tuple memoized is left
  // to the general path: no Pickler memoizes them).
  struct Memo {
    std::uint32_t at, index;
    Kind kind;
    bool is_bytes;
  };
  void memoize(std::uint64_t index) {
    if (stack_.empty() || (memo_size_ > 0 && index <= last_index_) || index > UINT32_MAX) throw GiveUp{};
    last_index_ = index;
    ++memo_size_;
    const Value& v = stack_.back();
    if (v.kind == Kind::kLine || v.kind == Kind::kList) return;
    if (v.kind == Kind::kInt || v.kind == Kind::kFloat || v.kind == Kind::kEmptyTuple) throw GiveUp{};
    memo_.push_back({static_cast<std::uint32_t>(index), v.index, v.kind, v.a != 0});
  }
  void get(std::uint64_t index) {
    auto it =
        std::lower_bound(memo_.begin(), memo_.end(), index, [](const Memo& e, std::uint64_t i) { return e.at < i; });
    if (it == memo_.end() || it->at != index) throw GiveUp{};
    stack_.push_back({it->kind, it->index, it->is_bytes ? 1 : 0});
  }

  const InputFile& file_;
  PassedPages pages_;
  bool keep_lines_;
  Profile p_;
  std::vector<Memo> memo_;
  std::uint64_t memo_size_ = 0, last_index_ = 0;
  std::vector<std::string_view> texts_;  // in the input
  std::string scratch_;
  std::vector<Key> keys_;
  std::vector<List> lists_;
  std::vector<detail::LineRow> lines_;  // of the lists not yet emitted
  std::vector<Dict> dicts_;
  std::uint32_t timings_ = kNoDict, state_ = 0;
  bool has_state_ = false;
  int objects_ = 0;
  FlatIndex key_index_;  // the functions by key
};

}  // namespace

std::optional<Expected<Profile>> read_streaming(const InputFile& input, Diagnostics&, bool keep_lines) {
  try {
    return Stream(input, keep_lines).run();
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace graphgen::lprof
