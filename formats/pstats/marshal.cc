#include "marshal.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/python_text.h"
#include "stats_builder.h"

namespace graphgen::marshal {

std::string_view type_name(Type t) {
  switch (t) {
    case Type::kNone:
      return "None";
    case Type::kBool:
      return "bool";
    case Type::kStopIteration:
      return "StopIteration";
    case Type::kEllipsis:
      return "Ellipsis";
    case Type::kInt:
      return "int";
    case Type::kFloat:
      return "float";
    case Type::kComplex:
      return "complex";
    case Type::kStr:
      return "str";
    case Type::kBytes:
      return "bytes";
    case Type::kTuple:
      return "tuple";
    case Type::kList:
      return "list";
    case Type::kDict:
      return "dict";
    case Type::kSet:
      return "set";
    case Type::kFrozenSet:
      return "frozenset";
    case Type::kSlice:
      return "slice";
    case Type::kCode:
      return "code object";
  }
  return "?";
}

std::string a_type(Type t) { return formats::with_article(type_name(t)); }

namespace {

constexpr std::uint32_t kNullObject = 0xFFFFFFFFu;
constexpr std::uint32_t kPending = 0xFFFFFFFEu;
// A pstats file needs depth 5; code objects nest deeper (nested functions).
constexpr int kMaxDepth = 64;
constexpr int kMaxCodeDepth = 1000;

struct Failure {
  std::size_t offset;
  std::string message;
};

enum class CodeLayout { k311, k38, k36, k27 };
constexpr CodeLayout kLayouts[] = {CodeLayout::k311, CodeLayout::k38, CodeLayout::k36, CodeLayout::k27};

}  // namespace

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {}
  Decoder(std::string_view in, Document&& reuse) : in_(in), doc_(std::move(reuse)) {
    doc_.nodes_.clear();
    doc_.children_.clear();
    doc_.arena_.clear();
  }

  Document run() {
    std::uint32_t root = read_object(0, kMaxDepth, false);
    doc_.root_ = root;
    doc_.trailing_ = in_.size() - pos_;
    return std::move(doc_);
  }

 private:
  [[noreturn]] void fail(std::size_t offset, std::string message) { throw Failure{offset, std::move(message)}; }

  void need(std::size_t n, std::string_view what) {
    if (in_.size() - pos_ < n)
      fail(pos_, fmt::format("truncated marshal data: need {} byte{} for {}, {} left", n, n == 1 ? "" : "s", what,
                             in_.size() - pos_));
  }
  std::uint8_t u8(std::string_view what) {
    need(1, what);
    return static_cast<std::uint8_t>(in_[pos_++]);
  }
  std::int32_t i32(std::string_view what) {
    need(4, what);
    std::uint32_t v;
    std::memcpy(&v, in_.data() + pos_, 4);
    pos_ += 4;
    return static_cast<std::int32_t>(v);
  }
  std::int64_t i64(std::string_view what) {
    need(8, what);
    std::uint64_t v;
    std::memcpy(&v, in_.data() + pos_, 8);
    pos_ += 8;
    return static_cast<std::int64_t>(v);
  }
  double f64(std::string_view what) {
    need(8, what);
    double v;
    std::memcpy(&v, in_.data() + pos_, 8);
    pos_ += 8;
    return v;
  }
  // A size field: non-negative, at most 0x7FFFFFFF, and each element needs
  // at least `min_bytes` of what is left.
  std::uint32_t size_field(std::size_t at, std::int64_t n, std::size_t min_bytes, std::string_view what) {
    if (n < 0) fail(at, fmt::format("negative {} size {}", what, n));
    if (n > 0x7FFFFFFF) fail(at, fmt::format("{} size {} is too large", what, n));
    std::size_t left = in_.size() - pos_;
    if (static_cast<std::size_t>(n) * min_bytes > left)
      fail(at, fmt::format("truncated marshal data: {} of {} items needs at least {} bytes, {} left", what, n,
                           static_cast<std::size_t>(n) * min_bytes, left));
    return static_cast<std::uint32_t>(n);
  }

  std::uint32_t add_node(Node n) {
    auto index = static_cast<std::uint32_t>(doc_.nodes_.size());
    doc_.nodes_.push_back(n);
    return index;
  }
  std::uint32_t add_text_node(Type type, char code, std::size_t offset, std::string_view text, bool latin1) {
    Node n;
    n.type = type;
    n.code = code;
    n.offset = static_cast<std::uint32_t>(offset);
    n.begin = static_cast<std::uint32_t>(doc_.arena_.size());
    if (latin1)
      formats::append_latin1_as_utf8(text, doc_.arena_);
    else
      doc_.arena_.append(text);
    n.size = static_cast<std::uint32_t>(doc_.arena_.size() - n.begin);
    return add_node(n);
  }

  std::string_view raw(std::size_t n, std::string_view what) {
    need(n, what);
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  double text_float(std::size_t at) {
    std::uint8_t len = u8("text float length");
    std::string_view s = raw(len, "text float");
    double v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (b != e && *b == '+') ++b;
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || ptr != e || s.empty())
      fail(at, fmt::format("expected a text float, found {}", quote_input(s)));
    return v;
  }

  std::int64_t long_value(std::size_t at) {
    std::int32_t n = i32("long digit count");
    if (n == 0) return 0;
    std::int64_t count = n < 0 ? -static_cast<std::int64_t>(n) : n;
    if (count > 0x7FFFFFFF) fail(at, "long digit count is too large");
    if (static_cast<std::size_t>(count) * 2 > in_.size() - pos_)
      fail(pos_, fmt::format("truncated marshal data: long of {} digits needs {} bytes, {} left", count, count * 2,
                             in_.size() - pos_));
    // At most 5 digits (75 bits) are read; anything past 64 bits is an error.
    std::uint64_t value = 0;
    bool overflow = false;
    for (std::int64_t k = 0; k < count; ++k) {
      std::size_t digit_at = pos_;
      std::uint16_t d = static_cast<std::uint16_t>(static_cast<std::uint8_t>(in_[pos_]) |
                                                   (static_cast<std::uint8_t>(in_[pos_ + 1]) << 8));
      pos_ += 2;
      if (d >= 0x8000) fail(digit_at, fmt::format("digit out of range in long: 0x{:04x}", d));
      if (k == count - 1 && d == 0) fail(digit_at, "unnormalized long data: top digit is zero");
      if (d == 0) continue;
      if (k >= 5 || (k == 4 && d >= 16)) {
        overflow = true;
        continue;
      }
      value |= static_cast<std::uint64_t>(d) << (15 * k);
    }
    const std::uint64_t limit = n < 0 ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
    if (overflow || value > limit) fail(at, "integer does not fit in 64 bits");
    if (n < 0) return value == (std::uint64_t{1} << 63) ? INT64_MIN : -static_cast<std::int64_t>(value);
    return static_cast<std::int64_t>(value);
  }

  // A scalar has no children, so its reference slot (if flagged) can be
  // taken after its payload with the same number.
  std::uint32_t add_scalar(const Node& node, bool flagged) {
    std::size_t slot = reserve_ref(flagged);
    std::uint32_t index = add_node(node);
    fill_ref(slot, index);
    return index;
  }

  // Reserves a reference slot for a flagged object before its children.
  std::size_t reserve_ref(bool flagged) {
    if (!flagged) return SIZE_MAX;
    refs_.push_back(kPending);
    return refs_.size() - 1;
  }
  void fill_ref(std::size_t slot, std::uint32_t node) {
    if (slot != SIZE_MAX) refs_[slot] = node;
  }

  // Tuples are hashable when their items are. References make the objects
  // a DAG, so each node's answer is kept (linear in the nodes); nesting is
  // capped by the decoder's depth limit, so the recursion is bounded.
  bool hashable(std::uint32_t index) {
    if (index >= hashable_.size()) hashable_.resize(doc_.nodes_.size(), 0);
    std::int8_t& memo = hashable_[index];
    if (memo != 0) return memo > 0;
    const Node& n = doc_.nodes_[index];
    bool ok = true;
    if (n.type == Type::kList || n.type == Type::kDict || n.type == Type::kSet) {
      ok = false;
    } else if (n.type == Type::kTuple) {
      for (std::uint32_t c : doc_.children(n))
        if (!hashable(c)) {
          ok = false;
          break;
        }
    }
    hashable_[index] = ok ? 1 : -1;
    return ok;
  }

  // Sized containers reserve their block of child slots first and fill it
  // as the children are read (nested containers reserve after it), so
  // nothing is copied.
  std::uint32_t container(Type type, char code, std::size_t start, std::uint32_t n, int depth, int max_depth,
                          bool flagged) {
    std::size_t slot = reserve_ref(flagged);
    auto begin = static_cast<std::uint32_t>(doc_.children_.size());
    doc_.children_.resize(doc_.children_.size() + n);
    for (std::uint32_t k = 0; k < n; ++k) {
      std::uint32_t child = read_object(depth + 1, max_depth, false);
      doc_.children_[begin + k] = child;
    }
    Node node;
    node.type = type;
    node.code = code;
    node.offset = static_cast<std::uint32_t>(start);
    node.begin = begin;
    node.size = n;
    std::uint32_t index = add_node(node);
    fill_ref(slot, index);
    return index;
  }

  std::uint32_t finish_container(Type type, std::size_t start, std::size_t mark, std::size_t slot) {
    Node node;
    node.type = type;
    node.code = '{';
    node.offset = static_cast<std::uint32_t>(start);
    node.begin = static_cast<std::uint32_t>(doc_.children_.size());
    node.size = static_cast<std::uint32_t>(scratch_.size() - mark);
    doc_.children_.insert(doc_.children_.end(), scratch_.begin() + static_cast<std::ptrdiff_t>(mark), scratch_.end());
    scratch_.resize(mark);
    std::uint32_t index = add_node(node);
    fill_ref(slot, index);
    return index;
  }

  // 'r' (a FLAG_REF'd object) or 'R' (an interned string, marshal 1-2).
  std::uint32_t reference(char t, std::size_t start) {
    std::int32_t k = i32(t == 'r' ? "a reference index" : "a string reference index");
    if (t == 'R') {
      if (k < 0 || static_cast<std::size_t>(k) >= interned_.size())
        fail(start, fmt::format("bad string reference R#{}: only {} interned strings so far", k, interned_.size()));
      return interned_[k];
    }
    if (k < 0 || static_cast<std::size_t>(k) >= refs_.size())
      fail(start, fmt::format("bad reference r#{}: only {} objects are flagged so far", k, refs_.size()));
    if (refs_[k] == kPending)
      fail(start, fmt::format("bad reference r#{}: the object is still being read (cyclic data)", k));
    return refs_[k];
  }

  // Bytes ('s'), UTF-8 text ('u', 't' interned) or Latin-1 text ('a', 'A',
  // and the short 'z', 'Z').
  std::uint32_t string_object(char t, std::size_t start, bool flagged) {
    std::size_t slot = reserve_ref(flagged);
    bool short_len = t == 'z' || t == 'Z';
    std::int64_t n = short_len ? u8("a string length") : i32("a string length");
    if (n < 0) fail(start, fmt::format("negative string size {}", n));
    std::string_view bytes = raw(static_cast<std::size_t>(n), "a string");
    std::uint32_t index;
    if (t == 's') {
      index = add_text_node(Type::kBytes, t, start, bytes, false);
    } else if (t == 'u' || t == 't') {
      if (!formats::valid_utf8_surrogatepass(bytes))
        fail(start, fmt::format("invalid UTF-8 in marshal string {}", quote_input(bytes)));
      index = add_text_node(Type::kStr, t, start, bytes, false);
    } else {
      // CPython builds these from Latin-1 without checking for ASCII.
      index = add_text_node(Type::kStr, t, start, bytes, true);
    }
    if (t == 't') interned_.push_back(index);
    fill_ref(slot, index);
    return index;
  }

  // Keys and values up to a NULL; keys must be hashable.
  std::uint32_t dict_object(std::size_t start, int depth, int max_depth, bool flagged) {
    std::size_t slot = reserve_ref(flagged);
    std::size_t mark = scratch_.size();
    for (;;) {
      std::size_t key_at = pos_;
      std::uint32_t key = read_object(depth + 1, max_depth, true);
      if (key == kNullObject) break;
      if (!hashable(key)) fail(key_at, fmt::format("unhashable dict key ({})", type_name(doc_.nodes_[key].type)));
      std::uint32_t value = read_object(depth + 1, max_depth, false);
      scratch_.push_back(key);
      scratch_.push_back(value);
    }
    return finish_container(Type::kDict, start, mark, slot);
  }

  std::uint32_t read_object(int depth, int max_depth, bool allow_null) {
    std::size_t start = pos_;
    if (depth > max_depth) fail(start, fmt::format("marshal data nested deeper than {} levels", max_depth));
    std::uint8_t code = u8("a type code");
    bool flagged = (code & 0x80) != 0;
    char t = static_cast<char>(code & 0x7F);
    Node node;
    node.offset = static_cast<std::uint32_t>(start);
    node.code = t;
    switch (t) {
      case '0':
        if (flagged) fail(start, "FLAG_REF set on NULL (0xb0)");
        if (!allow_null) fail(start, "NULL object (0x30) where a value was expected");
        return kNullObject;
      case 'N':
        node.type = Type::kNone;
        return add_node(node);
      case 'T':
      case 'F':
        node.type = Type::kBool;
        node.i = t == 'T';
        return add_node(node);
      case 'S':
        node.type = Type::kStopIteration;
        return add_node(node);
      case '.':
        node.type = Type::kEllipsis;
        return add_node(node);
      case 'r':
      case 'R':
        return reference(t, start);
      case 'i':
      case 'I':
      case 'l':
        node.type = Type::kInt;
        node.i = t == 'i' ? i32("an int") : t == 'I' ? i64("an int64") : long_value(start);
        return add_scalar(node, flagged);
      case 'g':
      case 'f':
        node.type = Type::kFloat;
        node.f = t == 'g' ? f64("a float") : text_float(start);
        return add_scalar(node, flagged);
      case 'x':
      case 'y':
        node.type = Type::kComplex;
        node.f = t == 'y' ? f64("a complex") : text_float(start);
        {
          // The imaginary part's bits ride in begin/size, unused by scalars,
          // so a code object holding a complex constant can be written back.
          double imag = t == 'y' ? f64("a complex") : text_float(start);
          std::uint64_t bits;
          std::memcpy(&bits, &imag, 8);
          node.begin = static_cast<std::uint32_t>(bits);
          node.size = static_cast<std::uint32_t>(bits >> 32);
        }
        return add_scalar(node, flagged);
      case 's':
      case 't':
      case 'u':
      case 'a':
      case 'A':
      case 'z':
      case 'Z':
        return string_object(t, start, flagged);
      case '(':
      case ')':
      case '[':
      case '<':
      case '>': {
        std::int64_t n = t == ')' ? u8("a tuple size") : i32("a container size");
        std::uint32_t count = size_field(start, n, 1, t == '[' ? "list" : (t == '<' || t == '>') ? "set" : "tuple");
        Type type = (t == '(' || t == ')') ? Type::kTuple
                    : t == '['             ? Type::kList
                    : t == '<'             ? Type::kSet
                                           : Type::kFrozenSet;
        return container(type, t == ')' ? '(' : t, start, count, depth, max_depth, flagged);
      }
      case ':': {
        return container(Type::kSlice, ':', start, 3, depth, max_depth, flagged);
      }
      case '{':
        return dict_object(start, depth, max_depth, flagged);
      case 'c':
        return code_object(start, depth, flagged);
      case '?':
        fail(start, "marshal UNKNOWN object ('?', 0x3f): the writer failed to dump a value");
      default:
        fail(start, fmt::format("unknown marshal type code 0x{:02x}{}", code,
                                (code >= 0x20 && code < 0x7f) ? fmt::format(" ('{}')", static_cast<char>(code))
                                                              : std::string()));
    }
  }

  // --- code objects -------------------------------------------------------

  struct State {
    std::size_t pos, nodes, children, arena, refs, interned, scratch, blobs;
  };
  State save() const {
    return {pos_,         doc_.nodes_.size(), doc_.children_.size(), doc_.arena_.size(),
            refs_.size(), interned_.size(),   scratch_.size(),       blob_total_};
  }
  void restore(const State& s) {
    pos_ = s.pos;
    doc_.nodes_.resize(s.nodes);
    doc_.children_.resize(s.children);
    doc_.arena_.resize(s.arena);
    refs_.resize(s.refs);
    interned_.resize(s.interned);
    scratch_.resize(s.scratch);
    blob_total_ = s.blobs;
    if (hashable_.size() > s.nodes) hashable_.resize(s.nodes);
  }

  std::uint32_t code_object(std::size_t start, int depth, bool flagged) {
    // The slot is reserved first, as CPython does, so the numbering of the
    // nested objects matches the writer's.
    std::size_t slot = reserve_ref(flagged);
    if (attempt_layout_ >= 0) {
      // Nested in a code object being read: the same interpreter wrote it,
      // so only the outer attempt's layout is tried (no retries that would
      // multiply with the depth).
      return finish_code(start, slot, kLayouts[attempt_layout_], depth);
    }
    State state = save();
    Failure first{start, ""};
    // The layout that worked last time is tried first: a file holds code
    // objects of one interpreter. Each attempt is linear in the object.
    int order[4];
    int k = 0;
    if (known_layout_ >= 0) order[k++] = known_layout_;
    for (int i = 0; i < 4; ++i)
      if (i != known_layout_) order[k++] = i;
    for (int i : order) {
      attempt_layout_ = i;
      try {
        std::uint32_t index = finish_code(start, slot, kLayouts[i], depth);
        attempt_layout_ = -1;
        known_layout_ = i;
        return index;
      } catch (const Failure& f) {
        attempt_layout_ = -1;
        if (first.message.empty() || f.offset > first.offset) first = f;
        restore(state);
      }
    }
    fail(start, fmt::format("cannot read code object as written by Python 2.7 or 3.6-3.13 "
                            "(deepest attempt: +0x{:x}: {})",
                            first.offset, first.message));
  }

  // A code object's parts in order: raw int fields or decoded objects.
  struct Piece {
    std::uint32_t begin = 0, end = 0;  // raw input bytes, when node is kNoNode
    std::uint32_t node = kNoNode;
  };
  static constexpr std::uint32_t kNoNode = UINT32_MAX;

  std::uint32_t finish_code(std::size_t start, std::size_t slot, CodeLayout layout, int depth) {
    std::vector<Piece> pieces;
    std::string label = read_code(layout, depth, pieces);
    // The code object again, self-contained: references expanded, FLAG_REF
    // dropped. A budget keeps shared sub-objects from exploding the copy;
    // past it the code object is known by its label only.
    std::string blob = "c";
    // Each copy is bounded by its own size (or 64 KiB), and all copies
    // together by 8 times the input: shared objects referenced from many code
    // objects cannot multiply memory.
    std::size_t total_left = blob_limit_ > blob_total_ ? blob_limit_ - blob_total_ : 0;
    std::size_t budget = std::min(total_left, std::max<std::size_t>(std::size_t{64} << 10, 8 * (pos_ - start)));
    bool ok = true;
    for (const Piece& piece : pieces) {
      if (piece.node == kNoNode)
        blob.append(in_.substr(piece.begin, piece.end - piece.begin));
      else
        ok = ok && encode(piece.node, blob, budget, 0);
      if (!ok) break;
    }
    if (!ok || blob.size() > budget) blob.clear();
    blob_total_ += blob.size();
    std::uint32_t index = add_text_node(Type::kCode, 'c', start, label, false);
    doc_.nodes_[index].i = static_cast<std::int64_t>(blob.size());
    doc_.arena_ += blob;
    fill_ref(slot, index);
    return index;
  }

  void raw_i32(std::vector<Piece>& pieces, std::string_view what) {
    std::size_t at = pos_;
    i32(what);
    pieces.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(pos_), kNoNode});
  }

  std::uint32_t expect(int depth, std::vector<Piece>& pieces, Type a, Type b = Type::kNone) {
    std::size_t at = pos_;
    std::uint32_t index = read_object(depth + 1, kMaxCodeDepth, false);
    Type t = doc_.nodes_[index].type;
    if (t != a && (b == Type::kNone || t != b))
      fail(at, fmt::format("expected {} in a code object, found {}", a_type(a), a_type(t)));
    pieces.push_back({0, 0, index});
    return index;
  }

  // A bytes field of a code object. Python 2.7's str is bytes, and its
  // marshal writes an interned one as 't' (or 'R', a reference to one):
  // the empty co_lnotab of a one-line module is the interned ''.
  void expect_bytes(int depth, std::vector<Piece>& pieces, CodeLayout layout) {
    std::size_t at = pos_;
    std::uint32_t index = read_object(depth + 1, kMaxCodeDepth, false);
    const auto& n = doc_.nodes_[index];
    if (n.type != Type::kBytes && !(layout == CodeLayout::k27 && n.type == Type::kStr && n.code == 't'))
      fail(at, fmt::format("expected {} in a code object, found {}", a_type(Type::kBytes), a_type(n.type)));
    pieces.push_back({0, 0, index});
  }

  std::string read_code(CodeLayout layout, int depth, std::vector<Piece>& pieces) {
    int ints = layout == CodeLayout::k27 ? 4 : layout == CodeLayout::k38 ? 6 : 5;
    for (int i = 0; i < ints; ++i) raw_i32(pieces, "a code object field");
    expect_bytes(depth, pieces, layout);  // co_code
    expect(depth, pieces, Type::kTuple);  // co_consts
    expect(depth, pieces, Type::kTuple);  // co_names
    expect(depth, pieces, Type::kTuple);  // varnames / localsplusnames
    if (layout == CodeLayout::k311) {
      expect(depth, pieces, Type::kBytes);  // localspluskinds
    } else {
      expect(depth, pieces, Type::kTuple);  // freevars
      expect(depth, pieces, Type::kTuple);  // cellvars
    }
    std::uint32_t file = expect(depth, pieces, Type::kStr, Type::kBytes);
    std::uint32_t name = expect(depth, pieces, Type::kStr, Type::kBytes);
    if (layout == CodeLayout::k311) expect(depth, pieces, Type::kStr, Type::kBytes);  // qualname
    std::size_t line_at = pos_;
    std::int32_t line = i32("co_firstlineno");
    pieces.push_back({static_cast<std::uint32_t>(line_at), static_cast<std::uint32_t>(pos_), kNoNode});
    if (line < 0) fail(line_at, fmt::format("negative co_firstlineno {}", line));
    expect_bytes(depth, pieces, layout);                                  // lnotab / linetable
    if (layout == CodeLayout::k311) expect(depth, pieces, Type::kBytes);  // exceptiontable
    return pstats::code_object_label(text_as_utf8(name), text_as_utf8(file), line);
  }

  // Marshal bytes of a decoded node, without references; false past `budget`.
  bool encode(std::uint32_t index, std::string& out, std::size_t budget, int depth) {
    if (out.size() > budget || depth > kMaxCodeDepth) return false;
    const Node& n = doc_.nodes_[index];
    auto put32 = [&](std::uint32_t v) {
      for (int k = 0; k < 4; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
    };
    auto put64 = [&](std::uint64_t v) {
      for (int k = 0; k < 8; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
    };
    switch (n.type) {
      case Type::kNone:
        out += 'N';
        return true;
      case Type::kBool:
        out += n.i ? 'T' : 'F';
        return true;
      case Type::kStopIteration:
        out += 'S';
        return true;
      case Type::kEllipsis:
        out += '.';
        return true;
      case Type::kInt:
        if (n.code == 'I') {
          out += 'I';
          put64(static_cast<std::uint64_t>(n.i));
        } else if (n.i >= INT32_MIN && n.i <= INT32_MAX) {
          out += 'i';
          put32(static_cast<std::uint32_t>(static_cast<std::int32_t>(n.i)));
        } else {
          std::uint64_t mag = n.i < 0 ? 0 - static_cast<std::uint64_t>(n.i) : static_cast<std::uint64_t>(n.i);
          std::string digits;
          std::int32_t count = 0;
          for (; mag > 0; mag >>= 15, ++count) {
            digits += static_cast<char>(mag & 0xFF);
            digits += static_cast<char>((mag >> 8) & 0x7F);
          }
          out += 'l';
          put32(static_cast<std::uint32_t>(n.i < 0 ? -count : count));
          out += digits;
        }
        return true;
      case Type::kFloat: {
        std::uint64_t bits;
        std::memcpy(&bits, &n.f, 8);
        out += 'g';
        put64(bits);
        return true;
      }
      case Type::kComplex: {
        std::uint64_t bits;
        std::memcpy(&bits, &n.f, 8);
        out += 'y';
        put64(bits);
        put64(static_cast<std::uint64_t>(n.begin) | static_cast<std::uint64_t>(n.size) << 32);
        return true;
      }
      case Type::kStr:
      case Type::kBytes: {
        out += n.type == Type::kBytes ? 's' : n.code == 't' ? 't' : 'u';
        put32(n.size);
        out.append(doc_.text(n));
        return true;
      }
      case Type::kCode:
        if (n.i == 0) return false;  // itself past its budget
        out.append(doc_.code_bytes(n));
        return true;
      case Type::kDict:
        out += '{';
        for (std::uint32_t c : doc_.children(n))
          if (!encode(c, out, budget, depth + 1)) return false;
        out += '0';
        return true;
      default: {
        char code = n.type == Type::kTuple       ? '('
                    : n.type == Type::kList      ? '['
                    : n.type == Type::kSet       ? '<'
                    : n.type == Type::kFrozenSet ? '>'
                                                 : ':';
        out += code;
        if (code != ':') put32(n.size);
        for (std::uint32_t c : doc_.children(n))
          if (!encode(c, out, budget, depth + 1)) return false;
        return true;
      }
    }
  }

  std::string text_as_utf8(std::uint32_t index) {
    const Node& n = doc_.nodes_[index];
    std::string_view s = doc_.text(n);
    if (n.type == Type::kStr || formats::valid_utf8_surrogatepass(s)) return std::string(s);
    std::string out;
    formats::append_latin1_as_utf8(s, out);
    return out;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  Document doc_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> interned_;
  std::vector<std::uint32_t> scratch_;
  std::vector<std::int8_t> hashable_;  // per node: 0 unknown, 1 hashable, -1 not
  int known_layout_ = -1;
  int attempt_layout_ = -1;
  std::size_t blob_total_ = 0;
  std::size_t blob_limit_ =
      8 * in_.size() + (std::size_t{1} << 20);  // the layout being tried for the outermost code object
};

Expected<Document> decode(std::string_view bytes, std::string_view path) { return decode(bytes, path, Document()); }

Expected<Document> decode(std::string_view bytes, std::string_view path, Document&& reuse) {
  if (bytes.size() > 0xFFFFFFFFu)
    return bad_input(fmt::format("{}: marshal data larger than 4 GiB is not supported", path));
  try {
    Decoder d(bytes, std::move(reuse));
    return d.run();
  } catch (const Failure& f) {
    return bad_input(fmt::format("{}:+0x{:x}: {}", path, f.offset, f.message));
  }
}

}  // namespace graphgen::marshal
