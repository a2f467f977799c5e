#include "common/pickle.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "common/pickle_stream.h"
#include "common/python_text.h"

namespace graphgen::pickle {

std::string_view type_name(Type t) {
  switch (t) {
    case Type::kNone:
      return "None";
    case Type::kBool:
      return "bool";
    case Type::kInt:
      return "int";
    case Type::kFloat:
      return "float";
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
    case Type::kClass:
      return "class";
    case Type::kObject:
      return "object";
  }
  return "?";
}

std::string a_type(Type t) { return formats::with_article(type_name(t)); }

namespace {

struct Failure {
  std::size_t offset;
  std::string message;
};

// Opcodes outside the subset, by byte, for the error message.
std::string_view opcode_name(unsigned char op) {
  switch (op) {
    case 'R':
      return "REDUCE";
    case 'i':
      return "INST";
    case 'o':
      return "OBJ";
    case 0x92:
      return "NEWOBJ_EX";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 'S':
      return "STRING";
    case 'V':
      return "UNICODE";
    case 'p':
      return "PUT";
    case 'g':
      return "GET";
    case 'l':
      return "LIST";
    case 'd':
      return "DICT";
    case '0':
      return "POP";
    case '1':
      return "POP_MARK";
    case '2':
      return "DUP";
    case 'B':
      return "BINBYTES";
    case 'C':
      return "SHORT_BINBYTES";
    case 0x8E:
      return "BINBYTES8";
    case 0x96:
      return "BYTEARRAY8";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    case 0x8F:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    default:
      return {};
  }
}

class Decoder {
 public:
  // Room reserved for what the input can make (a node per 3.5 bytes of a
  // snapshot; a tuple item per 2): growing by doubling held the old and new
  // arrays at once, a third more than the document. Untouched room costs
  // no memory (only address space: reservable()); it is capped (256 MB
  // each) for inputs past the usual.
  Decoder(std::string_view in, const Allowed& allowed) : in_(in), allowed_(allowed) {
    constexpr std::size_t kCap = std::size_t{256} << 20;
    doc_.nodes.reserve(reservable_count<Node>(std::min(in.size() / 2, kCap / sizeof(Node))) + 16);
    doc_.tuple_items.reserve(reservable_count<std::uint32_t>(std::min(in.size() / 2, kCap / sizeof(std::uint32_t))) +
                             16);
  }

  Document run() {
    for (;;) {
      std::size_t at = pos_;
      unsigned char op = u8("an opcode");
      if (op == '.') {
        if (!marks_.empty()) fail(at, "STOP with an open MARK");
        if (stack_.size() != 1) fail(at, fmt::format("STOP with {} items on the stack, expected 1", stack_.size()));
        doc_.root = stack_.back();
        return std::move(doc_);
      }
      step(op, at);
    }
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string msg) { throw Failure{at, std::move(msg)}; }

  void need(std::size_t n, std::string_view what) {
    if (in_.size() - pos_ < n)
      fail(pos_, fmt::format("truncated pickle: need {} byte{} for {}, {} left", n, n == 1 ? "" : "s", what,
                             in_.size() - pos_));
  }
  unsigned char u8(std::string_view what) {
    need(1, what);
    return static_cast<unsigned char>(in_[pos_++]);
  }
  std::uint64_t le(int n, std::string_view what) {
    need(static_cast<std::size_t>(n), what);
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + k])) << (8 * k);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  std::string_view bytes(std::uint64_t n, std::string_view what) {
    if (n > in_.size() - pos_)
      fail(pos_, fmt::format("truncated pickle: need {} bytes for {}, {} left", n, what, in_.size() - pos_));
    std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string_view line(std::string_view what) {
    std::size_t nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos) fail(pos_, fmt::format("truncated pickle: {} has no end of line", what));
    std::string_view s = in_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return s;
  }

  std::uint32_t push(Node n, std::size_t at) {
    if (doc_.nodes.size() >= UINT32_MAX) fail(at, "more than 2^32 objects in one pickle");
    n.offset = static_cast<std::uint32_t>(at);
    doc_.nodes.push_back(n);
    auto index = static_cast<std::uint32_t>(doc_.nodes.size() - 1);
    stack_.push_back(index);
    return index;
  }
  std::uint32_t pop(std::size_t at, std::string_view op) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail(at, fmt::format("{} on an empty stack", op));
    std::uint32_t v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // Closes the last MARK: its items are stack_[the result, end), which the
  // caller takes, then cuts the stack back to the result.
  std::size_t pop_mark(std::size_t at, std::string_view op) {
    if (marks_.empty()) fail(at, fmt::format("{} without a MARK", op));
    std::size_t m = marks_.back();
    marks_.pop_back();
    return m;
  }
  // Items (node indices) appended to the tuple arena: a tuple's span.
  Node::Span tuple_of(const std::uint32_t* items, std::size_t n, std::size_t at) {
    if (doc_.tuple_items.size() + n > UINT32_MAX) fail(at, "more than 2^32 tuple items in one pickle");
    Node::Span span{static_cast<std::uint32_t>(doc_.tuple_items.size()), static_cast<std::uint32_t>(n)};
    doc_.tuple_items.insert(doc_.tuple_items.end(), items, items + n);
    return span;
  }
  Node::Span text_of(std::string_view s, std::size_t at) {
    if (doc_.text_bytes.size() + s.size() > UINT32_MAX) fail(at, "more than 4 GiB of text in one pickle");
    Node::Span span{static_cast<std::uint32_t>(doc_.text_bytes.size()), static_cast<std::uint32_t>(s.size())};
    doc_.text_bytes.append(s);
    return span;
  }
  std::vector<std::uint32_t>& growing(const Node& n) { return doc_.growing[n.span.begin]; }
  void push_growing(Type type, std::size_t at) {
    Node n;
    n.type = type;
    n.span = {static_cast<std::uint32_t>(doc_.growing.size()), 0};
    doc_.growing.emplace_back();
    push(n, at);
  }
  // The node on top of the first `size` entries of the stack (all by
  // default), which must be a `type` above the last open MARK.
  Node& top(std::size_t at, Type type, std::string_view op, std::size_t size = SIZE_MAX) {
    size = std::min(size, stack_.size());
    if (size == 0 || (!marks_.empty() && size <= marks_.back()))
      fail(at, fmt::format("{} needs a {} on the stack, found nothing", op, type_name(type)));
    Node& n = doc_.nodes[stack_[size - 1]];
    if (n.type != type) fail(at, fmt::format("{} needs {} on the stack, found {}", op, a_type(type), a_type(n.type)));
    return n;
  }
  void integer(std::int64_t v, std::size_t at) {
    Node n;
    n.type = Type::kInt;
    n.i = v;
    push(n, at);
  }
  void text(Type type, std::string_view s, std::size_t at) {
    if (type == Type::kStr && !formats::valid_utf8_surrogatepass(s))
      fail(at, fmt::format("invalid UTF-8 in a pickled str {}", quote_input(s)));
    Node n;
    n.type = type;
    n.span = text_of(s, at);
    push(n, at);
  }
  void little_long(std::string_view b, std::size_t at) {
    const auto v = long_value(b);
    if (!v) fail(at, fmt::format("integer of {} bytes does not fit in 64 bits", b.size()));
    integer(*v, at);
  }
  void text_int(std::string_view s, std::size_t at, bool is_long) {
    if (is_long && !s.empty() && s.back() == 'L') s.remove_suffix(1);
    if (!is_long && (s == "01" || s == "00")) {  // protocol 0 booleans
      Node n;
      n.type = Type::kBool;
      n.i = s == "01";
      push(n, at);
      return;
    }
    std::int64_t v = 0;
    const char* b = s.data();
    if (!s.empty() && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      fail(at, fmt::format("expected a decimal integer, found {}", quote_input(s)));
    integer(v, at);
  }
  void global(std::string_view module, std::string_view name, std::size_t at) {
    if (std::find(allowed_.classes.begin(), allowed_.classes.end(), std::pair{module, name}) == allowed_.classes.end())
      fail(at, fmt::format("refusing to load {}: {}", quote_input(fmt::format("{}.{}", module, name)), allowed_.only));
    Node n;
    n.type = Type::kClass;
    n.span = text_of(fmt::format("{}.{}", module, name), at);
    push(n, at);
  }

  // PROTO and FRAME: checked, then nothing to build.
  bool protocol(unsigned char op, std::size_t at) {
    switch (op) {
      case 0x80: {
        unsigned char v = u8("the protocol");
        if (v > 5) fail(at, fmt::format("unsupported pickle protocol {}", v));
        return true;
      }
      case 0x95:
        le(8, "a frame length");
        return true;  // a buffering hint only
      default:
        return false;
    }
  }

  // Tuples, lists, dicts and the marks that delimit their items.
  bool containers(unsigned char op, std::size_t at) {
    switch (op) {
      case '(':
        marks_.push_back(stack_.size());
        return true;
      case ')': {
        Node n;
        n.type = Type::kTuple;
        n.span = tuple_of(nullptr, 0, at);
        push(n, at);
        return true;
      }
      case 0x85:
      case 0x86:
      case 0x87: {
        const int k = op - 0x84;
        std::uint32_t items[3];
        for (int j = k; j-- > 0;) items[j] = pop(at, "TUPLE");
        Node n;
        n.type = Type::kTuple;
        n.span = tuple_of(items, static_cast<std::size_t>(k), at);
        push(n, at);
        return true;
      }
      case 't': {
        const std::size_t m = pop_mark(at, "TUPLE");
        Node n;
        n.type = Type::kTuple;
        n.span = tuple_of(stack_.data() + m, stack_.size() - m, at);
        stack_.resize(m);
        push(n, at);
        return true;
      }
      case ']':
        push_growing(Type::kList, at);
        return true;
      case 'a': {
        std::uint32_t v = pop(at, "APPEND");
        growing(top(at, Type::kList, "APPEND")).push_back(v);
        return true;
      }
      case 'e': {
        const std::size_t m = pop_mark(at, "APPENDS");
        // (The list is below the mark: found before the stack is cut.)
        auto& items = growing(top(at, Type::kList, "APPENDS", m));
        items.insert(items.end(), stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
        stack_.resize(m);
        return true;
      }
      case '}':
        push_growing(Type::kDict, at);
        return true;
      case 's': {
        std::uint32_t v = pop(at, "SETITEM");
        std::uint32_t k = pop(at, "SETITEM");
        set_item(top(at, Type::kDict, "SETITEM"), k, v, at);
        return true;
      }
      case 'u': {
        const std::size_t m = pop_mark(at, "SETITEMS");
        if ((stack_.size() - m) % 2) fail(at, "SETITEMS with an odd number of items");
        const Node& d = top(at, Type::kDict, "SETITEMS", m);
        for (std::size_t j = m; j < stack_.size(); j += 2) set_item(d, stack_[j], stack_[j + 1], at);
        stack_.resize(m);
        return true;
      }
      default:
        return false;
    }
  }

  // The memo: MEMOIZE, PUT and GET.
  bool memo(unsigned char op, std::size_t at) {
    switch (op) {
      case 0x94:
        memoize(memo_size_, at);
        return true;  // memo[len(memo)] = top
      case 'q':
        memoize(u8("a memo index"), at);
        return true;
      case 'r':
        memoize(le(4, "a memo index"), at);
        return true;
      case 'h':
        get(u8("a memo index"), at);
        return true;
      case 'j':
        get(le(4, "a memo index"), at);
        return true;
      default:
        return false;
    }
  }

  // Ints, longs, floats, bools and None, in each protocol's encoding.
  bool numbers(unsigned char op, std::size_t at) {
    switch (op) {
      case 'K':
        integer(u8("an int"), at);
        return true;
      case 'M':
        integer(static_cast<std::int64_t>(le(2, "an int")), at);
        return true;
      case 'J':
        integer(static_cast<std::int32_t>(le(4, "an int")), at);
        return true;
      case 0x8A:
        little_long(bytes(u8("a long length"), "a long"), at);
        return true;
      case 0x8B: {
        auto n = static_cast<std::int32_t>(le(4, "a long length"));
        if (n < 0 || n > 8) fail(at, fmt::format("integer of {} bytes does not fit in 64 bits", n));
        little_long(bytes(static_cast<std::uint64_t>(n), "a long"), at);
        return true;
      }
      case 'I':
        text_int(line("INT"), at, false);
        return true;
      case 'L':
        text_int(line("LONG"), at, true);
        return true;
      case 'G': {
        std::uint64_t bits = 0;
        need(8, "a float");
        for (int k = 0; k < 8; ++k) bits = bits << 8 | static_cast<unsigned char>(in_[pos_ + k]);  // big-endian
        pos_ += 8;
        Node n;
        n.type = Type::kFloat;
        std::memcpy(&n.f, &bits, 8);
        push(n, at);
        return true;
      }
      case 'F': {
        std::string_view s = line("FLOAT");
        Node n;
        n.type = Type::kFloat;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n.f);
        if (ec != std::errc() || p != s.data() + s.size())
          fail(at, fmt::format("expected a float, found {}", quote_input(s)));
        push(n, at);
        return true;
      }
      case 'N':
        push(Node{}, at);
        return true;
      case 0x88:
      case 0x89: {
        Node n;
        n.type = Type::kBool;
        n.i = op == 0x88;
        push(n, at);
        return true;
      }
      default:
        return false;
    }
  }

  // str (UTF-8) and bytes (Python 2 str).
  bool strings(unsigned char op, std::size_t at) {
    switch (op) {
      case 0x8C:
        text(Type::kStr, bytes(u8("a string length"), "a string"), at);
        return true;
      case 'X':
        text(Type::kStr, bytes(le(4, "a string length"), "a string"), at);
        return true;
      case 0x8D:
        text(Type::kStr, bytes(le(8, "a string length"), "a string"), at);
        return true;
      case 'U':
        text(Type::kBytes, bytes(u8("a string length"), "a string"), at);
        return true;
      case 'T': {
        auto n = static_cast<std::int32_t>(le(4, "a string length"));
        if (n < 0) fail(at, fmt::format("negative string length {}", n));
        text(Type::kBytes, bytes(static_cast<std::uint64_t>(n), "a string"), at);
        return true;
      }
      default:
        return false;
    }
  }

  // The one class allowed (LineStats), its creation and its state.
  bool objects(unsigned char op, std::size_t at) {
    switch (op) {
      case 'c': {
        std::string module(line("GLOBAL module"));
        std::string name(line("GLOBAL name"));
        global(module, name, at);
        return true;
      }
      case 0x93: {
        std::uint32_t name = pop(at, "STACK_GLOBAL");
        std::uint32_t module = pop(at, "STACK_GLOBAL");
        const Node& m = doc_.nodes[module];
        const Node& n = doc_.nodes[name];
        if (m.type != Type::kStr || n.type != Type::kStr) fail(at, "STACK_GLOBAL needs two str on the stack");
        const std::string module_name(doc_.text(m)), class_name(doc_.text(n));  // (text_bytes grows)
        global(module_name, class_name, at);
        return true;
      }
      case 0x81: {
        std::uint32_t args = pop(at, "NEWOBJ");
        std::uint32_t cls = pop(at, "NEWOBJ");
        if (doc_.nodes[cls].type != Type::kClass) fail(at, "NEWOBJ needs a class on the stack");
        if (doc_.nodes[args].type != Type::kTuple || doc_.nodes[args].span.count != 0)
          fail(at, "NEWOBJ with arguments: LineStats is created with none");
        Node n;
        n.type = Type::kObject;
        n.object = {UINT32_MAX, cls};
        push(n, at);
        return true;
      }
      case 'b': {
        std::uint32_t state = pop(at, "BUILD");
        Node& obj = top(at, Type::kObject, "BUILD");
        if (obj.object.state != UINT32_MAX) fail(at, "BUILD applied twice to one object");
        if (doc_.nodes[state].type != Type::kDict)
          fail(at,
               fmt::format("BUILD with a {} state, expected the LineStats dict", type_name(doc_.nodes[state].type)));
        obj.object.state = state;
        return true;
      }
      default:
        return false;
    }
  }
  void step(unsigned char op, std::size_t at) {
    if (protocol(op, at) || containers(op, at) || memo(op, at) || numbers(op, at) || strings(op, at) || objects(op, at))
      return;
    std::string_view name = opcode_name(op);
    if (!name.empty())
      fail(at, fmt::format("refusing pickle opcode {} (0x{:02x}): not used by line_profiler and unsafe or "
                           "unsupported here",
                           name, op));
    fail(at, fmt::format("unknown pickle opcode 0x{:02x}", op));
  }

  void set_item(const Node& dict, std::uint32_t k, std::uint32_t v, std::size_t at) {
    Type t = doc_.nodes[k].type;
    if (t == Type::kList || t == Type::kDict) fail(at, fmt::format("unhashable dict key ({})", type_name(t)));
    auto& items = growing(dict);
    items.push_back(k);
    items.push_back(v);
  }
  // The memo: indices are dense in practice (MEMOIZE numbers from 0, the
  // Picklers' PUTs from 0 or 1), so a vector; an index far past the ones
  // set (any 32-bit number can be written) goes to a map instead of
  // sizing the vector from one opcode.
  void memoize(std::uint64_t index, std::size_t at) {
    if (stack_.empty()) fail(at, "MEMOIZE on an empty stack");
    // (Bounded by the memo operations read so far: the input's size.)
    if (index < ++memo_sets_ + 65536) {
      if (index >= memo_dense_.size()) memo_dense_.resize(index + 1, UINT32_MAX);
      // (An index the map took when it was far ahead moves here.)
      const bool was_set = memo_dense_[index] != UINT32_MAX || (!memo_.empty() && memo_.erase(index) > 0);
      memo_size_ += !was_set;
      memo_dense_[index] = stack_.back();
    } else {
      memo_size_ += memo_.insert_or_assign(index, stack_.back()).second;
    }
  }
  void get(std::uint64_t index, std::size_t at) {
    std::uint32_t value = UINT32_MAX;
    if (index < memo_dense_.size()) value = memo_dense_[index];
    if (value == UINT32_MAX)
      if (auto it = memo_.find(index); it != memo_.end()) value = it->second;
    if (value == UINT32_MAX) fail(at, fmt::format("memo entry {} used before it was set", index));
    stack_.push_back(value);
  }

  std::string_view in_;
  const Allowed& allowed_;
  std::size_t pos_ = 0;
  Document doc_;
  std::vector<std::uint32_t> stack_;
  std::vector<std::size_t> marks_;
  std::vector<std::uint32_t> memo_dense_;  // UINT32_MAX: not set
  std::uint64_t memo_sets_ = 0;
  std::uint64_t memo_size_ = 0;                            // len(memo): the indices set
  std::unordered_map<std::uint64_t, std::uint32_t> memo_;  // the indices past memo_dense_
};

}  // namespace

std::optional<std::int64_t> long_value(std::string_view b) {
  if (b.size() > 8) return std::nullopt;
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < b.size(); ++k) v |= std::uint64_t{static_cast<unsigned char>(b[k])} << (8 * k);
  if (!b.empty() && b.size() < 8 && (static_cast<unsigned char>(b.back()) & 0x80))
    v |= ~std::uint64_t{0} << (8 * b.size());
  return static_cast<std::int64_t>(v);
}

Expected<Document> decode(std::string_view bytes, std::string_view path, const Allowed& allowed) {
  try {
    Decoder d(bytes, allowed);
    return d.run();
  } catch (const Failure& f) {
    return bad_input(fmt::format("{}:+0x{:x}: {}", path, f.offset, f.message));
  }
}

namespace {

// What TakenMemo::scan does at each opcode (0: an opcode it does not know).
enum ScanStep : std::uint8_t {
  kUnknown,
  kNoArgument,
  kSkip1,
  kSkip2,
  kSkip4,
  kSkip8,
  kPut0,
  kPut1,
  kPut4,
  kGet1,
  kGet4,
  kLength1,
  kLength4,
  kLength8,
  kTwoLines,
  kStop
};

constexpr std::array<ScanStep, 256> kScanSteps = [] {
  std::array<ScanStep, 256> t{};
  for (unsigned char op : {'(', ')', '\x85', '\x86', '\x87', 't', ']', 'a', 'e', '}', 's', 'u', 'b', '\x93', '\x81'})
    t[op] = kNoArgument;
  t[0x80] = t['K'] = kSkip1;  // PROTO, BININT1
  t['M'] = kSkip2;
  t['J'] = kSkip4;
  t[0x95] = kSkip8;  // FRAME
  t[0x94] = kPut0;   // MEMOIZE
  t['q'] = kPut1;
  t['r'] = kPut4;
  t['h'] = kGet1;
  t['j'] = kGet4;
  t[0x8A] = t[0x8C] = kLength1;  // LONG1, SHORT_BINUNICODE
  t['X'] = kLength4;
  t[0x8D] = kLength8;
  t['c'] = kTwoLines;  // GLOBAL
  t['.'] = kStop;
  return t;
}();

}  // namespace

std::optional<TakenMemo> TakenMemo::scan(std::string_view in, const std::atomic<bool>* stop, const InputFile* input) {
  PassedPages pages(input);
  TakenMemo out;
  const auto* const bytes = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t size = in.size();
  std::size_t pos = 0;
  std::uint64_t puts = 0;  // memo-setting opcodes so far
  std::uint32_t until_check = 1;
  // An n-byte little-endian number at pos (there are n bytes).
  auto le = [&](int n) {
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= std::uint64_t{bytes[pos + k]} << (8 * k);
    pos += static_cast<std::size_t>(n);
    return v;
  };
  while (pos < size) {
    if (--until_check == 0) {
      until_check = 65536;
      if (stop && stop->load(std::memory_order_relaxed)) return std::nullopt;
      pages.at(pos);
    }
    const ScanStep step = kScanSteps[bytes[pos++]];
    const std::size_t left = size - pos;
    std::uint64_t taken = UINT64_MAX;
    switch (step) {
      case kUnknown:
        return std::nullopt;
      case kNoArgument:
        continue;
      case kPut0:
        ++puts;
        continue;
      case kSkip1:
      case kSkip2:
      case kSkip4:
      case kSkip8:
      case kPut1:
      case kPut4: {
        static constexpr std::uint8_t kWidth[] = {0, 0, 1, 2, 4, 8, 0, 1, 4};
        const std::size_t n = kWidth[step];
        if (left < n) return std::nullopt;
        pos += n;
        puts += step == kPut1 || step == kPut4;
        continue;
      }
      case kGet1:
      case kGet4: {
        const int n = step == kGet1 ? 1 : 4;
        if (left < static_cast<std::size_t>(n)) return std::nullopt;
        taken = le(n);
        break;
      }
      case kLength1:
      case kLength4:
      case kLength8: {
        const int n = step == kLength1 ? 1 : step == kLength4 ? 4 : 8;
        if (left < static_cast<std::size_t>(n)) return std::nullopt;
        const std::uint64_t length = le(n);
        if (length > size - pos) return std::nullopt;
        pos += length;
        continue;
      }
      case kTwoLines:
        for (int k = 0; k < 2; ++k) {
          const std::size_t nl = in.find('\n', pos);
          if (nl == std::string_view::npos) return std::nullopt;
          pos = nl + 1;
        }
        continue;
      case kStop: {  // each word's rank
        out.rank_.resize(out.bits_.size());
        std::uint32_t below = 0;
        for (std::size_t w = 0; w < out.bits_.size(); ++w) {
          out.rank_[w] = below;
          below += static_cast<std::uint32_t>(std::popcount(out.bits_[w]));
        }
        out.size_ = below;
        return out;
      }
    }
    // (The readers refuse to set an index this far past the others.)
    if (taken >= puts + 65536) return std::nullopt;
    if (taken / 64 >= out.bits_.size()) out.bits_.resize(taken / 64 + 1, 0);
    out.bits_[taken / 64] |= std::uint64_t{1} << (taken % 64);
  }
  return std::nullopt;
}

}  // namespace graphgen::pickle
