#include "stream.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#include "common/python_text.h"
#include "graphgen/flat_index.h"
#include "marshal.h"
#include "stats_builder.h"

namespace graphgen::pstats::detail {

namespace {

// What a FLAG_REF'd object was, for later references to it (kOpaque: one
// this reader does not keep, or one not finished yet).
struct Ref {
  enum Kind : std::uint8_t { kOpaque, kSmallInt, kInt, kFloat, kText, kBytes, kKey, kCaller } kind = kOpaque;
  std::uint32_t id = 0;  // kText/kBytes: string id; kKey: key; kCaller: index into callers_
  std::int64_t i = 0;
  double f = 0;
};

// The references, four bytes each: the kind in the top three bits, below
// them a string id, a key, an index into callers_ or into values_ (an int's
// or a float's bits), or an int of 0 to 2^29 - 1 itself (kSmallInt: the
// call counts, 280 000 of the 100k-function file's 378 000 references,
// whose 8 bytes each in values_ were 2 MB of its read's peak). Caller
// keys are references to keys made anywhere earlier in the file; a table
// of 24-byte Refs (10 MB for 100 000 functions) missed the cache on nearly
// every one of them.
class Refs {
 public:
  std::size_t size() const { return slots_.size(); }
  std::size_t reserve() {
    slots_.push_back(Ref::kOpaque << kShift);
    return slots_.size() - 1;
  }
  void set(std::size_t slot, const Ref& r) {
    std::uint64_t payload = r.id;
    if (r.kind == Ref::kInt && r.i >= 0 && r.i <= kPayload) {
      slots_[slot] = static_cast<std::uint32_t>(Ref::kSmallInt) << kShift | static_cast<std::uint32_t>(r.i);
      return;
    }
    if (r.kind == Ref::kInt || r.kind == Ref::kFloat) {
      payload = values_.size();
      values_.push_back(r.kind == Ref::kInt ? static_cast<std::uint64_t>(r.i) : std::bit_cast<std::uint64_t>(r.f));
    }
    // (Past 2^29 the file is read again by the general path: see overflowed().)
    if (payload > kPayload) overflowed_ = true;
    slots_[slot] = static_cast<std::uint32_t>(r.kind) << kShift | static_cast<std::uint32_t>(payload & kPayload);
  }
  Ref get(std::size_t slot) const {
    Ref r;
    r.kind = static_cast<Ref::Kind>(slots_[slot] >> kShift);
    const std::uint32_t payload = slots_[slot] & kPayload;
    if (r.kind == Ref::kSmallInt) {
      r.kind = Ref::kInt;
      r.i = payload;
    } else if (r.kind == Ref::kInt)
      r.i = static_cast<std::int64_t>(values_[payload]);
    else if (r.kind == Ref::kFloat)
      r.f = std::bit_cast<double>(values_[payload]);
    else
      r.id = payload;
    return r;
  }
  /// A payload did not fit: what was read may be wrong.
  bool overflowed() const { return overflowed_; }

 private:
  static constexpr unsigned kShift = 29;
  static constexpr std::uint32_t kPayload = (std::uint32_t{1} << kShift) - 1;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint64_t> values_;
  bool overflowed_ = false;
};

// A scalar as read: an int (or bool), a float, or text.
struct Scalar {
  Ref::Kind kind = Ref::kOpaque;
  std::int64_t i = 0;
  double f = 0;
  StringId text = kNoString;
};

class FastReader {
 public:
  // Each key's function is asked for before the next key is read, so its
  // builder keeps the keys in the functions.
  FastReader(std::string_view in, Profile& p, const InputFile* file, bool keep_call_self)
      : in_(in), passed_(file), p_(p), builder_(p, in.size(), /*keys_are_functions=*/true, keep_call_self) {}

  bool run(std::size_t& trailing) {
    std::uint8_t code;
    if (!u8(code)) return false;
    bool flagged = code & 0x80;
    if ((code & 0x7F) != '{') return false;
    if (flagged) refs_.set(refs_.reserve(), {Ref::kOpaque});
    std::size_t entries = 0;
    for (;;) {
      if (pos_ >= in_.size()) return false;
      if (static_cast<std::uint8_t>(in_[pos_]) == '0') {
        ++pos_;
        break;
      }
      std::uint32_t key;
      if (!read_key(key)) return false;
      if (!read_entry(key)) return false;
      ++entries;
      passed_.at(pos_);
    }
    if (entries == 0 || refs_.overflowed()) return false;
    trailing = in_.size() - pos_;
    return true;
  }

 private:
  bool u8(std::uint8_t& v) {
    if (pos_ >= in_.size()) return false;
    v = static_cast<std::uint8_t>(in_[pos_++]);
    return true;
  }
  bool i32(std::int32_t& v) {
    if (in_.size() - pos_ < 4) return false;
    std::uint32_t u;
    std::memcpy(&u, in_.data() + pos_, 4);
    pos_ += 4;
    v = static_cast<std::int32_t>(u);
    return true;
  }

  // A reference slot for a flagged object: reserved before its children, as
  // CPython numbers them.
  std::size_t reserve(bool flagged) {
    if (!flagged) return SIZE_MAX;
    return refs_.reserve();
  }
  void fill(std::size_t slot, const Ref& r) {
    if (slot != SIZE_MAX) refs_.set(slot, r);
  }
  // The object a reference names, if it is one this reader keeps.
  bool ref_at(std::int32_t k, Ref& out) const {
    if (k < 0 || static_cast<std::size_t>(k) >= refs_.size()) return false;
    out = refs_.get(static_cast<std::size_t>(k));
    return out.kind != Ref::kOpaque;
  }

  bool long_value(std::int64_t& out) {
    std::int32_t n;
    if (!i32(n)) return false;
    if (n == 0) {
      out = 0;
      return true;
    }
    std::int64_t count = n < 0 ? -static_cast<std::int64_t>(n) : n;
    if (count > 5 || static_cast<std::size_t>(count) * 2 > in_.size() - pos_) return false;
    std::uint64_t value = 0;
    for (std::int64_t k = 0; k < count; ++k) {
      auto d = static_cast<std::uint16_t>(static_cast<std::uint8_t>(in_[pos_]) |
                                          (static_cast<std::uint8_t>(in_[pos_ + 1]) << 8));
      pos_ += 2;
      if (d >= 0x8000 || (k == count - 1 && d == 0) || (k == 4 && d >= 16)) return false;
      value |= static_cast<std::uint64_t>(d) << (15 * k);
    }
    const std::uint64_t limit = n < 0 ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
    if (value > limit) return false;
    out = n < 0 ? (value == (std::uint64_t{1} << 63) ? INT64_MIN : -static_cast<std::int64_t>(value))
                : static_cast<std::int64_t>(value);
    return true;
  }

  bool text_float(double& out) {
    std::uint8_t len;
    if (!u8(len) || in_.size() - pos_ < len || len == 0) return false;
    const char* b = in_.data() + pos_;
    const char* e = b + len;
    pos_ += len;
    if (*b == '+') ++b;
    auto [ptr, ec] = std::from_chars(b, e, out);
    return ec == std::errc() && ptr == e;
  }

  // Interned text of a string object, converted as the general path does.
  bool string_value(char t, Scalar& out) {
    std::int64_t n;
    if (t == 'z' || t == 'Z') {
      std::uint8_t len;
      if (!u8(len)) return false;
      n = len;
    } else {
      std::int32_t len;
      if (!i32(len)) return false;
      n = len;
    }
    if (n < 0 || static_cast<std::size_t>(n) > in_.size() - pos_) return false;
    std::string_view s = in_.substr(pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    if (t == 'u' || t == 't') {
      if (!formats::valid_utf8_surrogatepass(s)) return false;
      out.kind = Ref::kText;
      out.text = p_.strings.intern(s);
    } else if (t == 's') {
      // Python 2 str: UTF-8 if it decodes, else Latin-1.
      out.kind = Ref::kBytes;
      out.text = intern_latin1(s, formats::valid_utf8_surrogatepass(s));
    } else {
      out.kind = Ref::kText;
      out.text = intern_latin1(s, false);
    }
    if (t == 't') interned_.push_back(out.text);
    return true;
  }

  StringId intern_latin1(std::string_view s, bool as_is) {
    if (as_is || formats::is_ascii(s)) return p_.strings.intern(s);
    scratch_.clear();
    formats::append_latin1_as_utf8(s, scratch_);
    return p_.strings.intern(scratch_);
  }

  // Any scalar: int, bool, float, text (or a reference to one).
  bool scalar(Scalar& out) {
    std::uint8_t code;
    if (!u8(code)) return false;
    bool flagged = code & 0x80;
    char t = static_cast<char>(code & 0x7F);
    std::size_t slot = reserve(flagged);
    switch (t) {
      case 'T':
      case 'F':
        if (flagged) return false;
        out.kind = Ref::kInt;
        out.i = t == 'T';
        return true;
      case 'i': {
        std::int32_t v;
        if (!i32(v)) return false;
        out.kind = Ref::kInt;
        out.i = v;
        break;
      }
      case 'I': {
        if (in_.size() - pos_ < 8) return false;
        std::uint64_t u;
        std::memcpy(&u, in_.data() + pos_, 8);
        pos_ += 8;
        out.kind = Ref::kInt;
        out.i = static_cast<std::int64_t>(u);
        break;
      }
      case 'l':
        out.kind = Ref::kInt;
        if (!long_value(out.i)) return false;
        break;
      case 'g':
        if (in_.size() - pos_ < 8) return false;
        std::memcpy(&out.f, in_.data() + pos_, 8);
        pos_ += 8;
        out.kind = Ref::kFloat;
        break;
      case 'f':
        if (!text_float(out.f)) return false;
        out.kind = Ref::kFloat;
        break;
      case 's':
      case 't':
      case 'u':
      case 'a':
      case 'A':
      case 'z':
      case 'Z':
        if (!string_value(t, out)) return false;
        break;
      case 'r': {
        if (flagged) return false;
        std::int32_t k;
        if (!i32(k)) return false;
        Ref r;
        if (!ref_at(k, r) ||
            (r.kind != Ref::kInt && r.kind != Ref::kFloat && r.kind != Ref::kText && r.kind != Ref::kBytes))
          return false;
        out.kind = r.kind;
        out.i = r.i;
        out.f = r.f;
        out.text = r.id;
        return true;
      }
      case 'R': {
        if (flagged) return false;
        std::int32_t k;
        if (!i32(k) || k < 0 || static_cast<std::size_t>(k) >= interned_.size()) return false;
        out.kind = Ref::kText;
        out.text = interned_[static_cast<std::size_t>(k)];
        return true;
      }
      default:
        return false;
    }
    Ref r;
    r.kind = out.kind;
    r.i = out.i;
    r.f = out.f;
    r.id = out.text;
    fill(slot, r);
    return true;
  }

  // A tuple header: its size, and its reference slot.
  bool tuple(std::uint32_t& n, std::size_t& slot) {
    std::uint8_t code;
    if (!u8(code)) return false;
    char t = static_cast<char>(code & 0x7F);
    if (t == '(') {
      std::int32_t size;
      if (!i32(size) || size < 0 || static_cast<std::size_t>(size) > in_.size() - pos_) return false;
      n = static_cast<std::uint32_t>(size);
    } else if (t == ')') {
      std::uint8_t size;
      if (!u8(size)) return false;
      n = size;
    } else {
      return false;
    }
    slot = reserve(code & 0x80);
    return true;
  }

  bool peek_ref(Ref::Kind kind, std::uint32_t& id) {
    if (pos_ >= in_.size() || static_cast<std::uint8_t>(in_[pos_]) != 'r') return false;
    std::size_t save = pos_++;
    std::int32_t k;
    Ref r;
    if (!i32(k) || !ref_at(k, r) || r.kind != kind) {
      pos_ = save;
      return false;
    }
    id = r.id;
    return true;
  }

  bool read_key(std::uint32_t& out) {
    if (peek_ref(Ref::kKey, out)) return true;
    std::uint32_t n;
    std::size_t slot;
    if (!tuple(n, slot) || n != 3) return false;
    Scalar file, line, name;
    if (!scalar(file) || !scalar(line) || !scalar(name)) return false;
    if ((file.kind != Ref::kText && file.kind != Ref::kBytes) || line.kind != Ref::kInt ||
        (name.kind != Ref::kText && name.kind != Ref::kBytes))
      return false;
    out = builder_.key({file.text, line.i, name.text, kNoString});
    if (entry_seen_.size() < builder_.key_count()) entry_seen_.resize(builder_.key_count(), false);
    Ref r;
    r.kind = Ref::kKey;
    r.id = out;
    fill(slot, r);
    return true;
  }

  bool number(bool int_only, std::int64_t& i, double& d) {
    Scalar s;
    if (!scalar(s)) return false;
    if (s.kind == Ref::kInt) {
      i = s.i;
      d = static_cast<double>(s.i);
      return true;
    }
    if (s.kind == Ref::kFloat && !int_only) {
      d = s.f;
      i = 0;
      return true;
    }
    return false;
  }

  bool read_entry(std::uint32_t key) {
    if (entry_seen_[key]) return false;  // a repeated key: the general path resolves it as a dict does
    entry_seen_[key] = true;
    std::uint32_t n;
    std::size_t slot;
    // A reference to an entry or a callers dict (never made by Python's
    // pstats) finds them opaque, and the general path takes over.
    if (!tuple(n, slot) || n != 5) return false;
    fill(slot, {Ref::kOpaque});
    std::int64_t cc = 0, nc = 0, unused = 0;
    double tt = 0, ct = 0, dummy = 0;
    if (!number(true, cc, dummy) || !number(true, nc, dummy) || !number(false, unused, tt) ||
        !number(false, unused, ct))
      return false;
    std::uint8_t code;
    if (!u8(code) || (code & 0x7F) != '{') return false;
    fill(reserve(code & 0x80), {Ref::kOpaque});
    const FuncId callee = builder_.entry(key, cc, nc, tt, ct);
    entry_callers_.clear();
    for (;;) {
      if (pos_ >= in_.size()) return false;
      if (static_cast<std::uint8_t>(in_[pos_]) == '0') {
        ++pos_;
        return distinct_callers();
      }
      std::uint32_t caller_key;
      if (!read_key(caller_key)) return false;
      entry_callers_.push_back(caller_key);
      CallerStats s;
      if (!read_caller(s)) return false;
      builder_.caller(caller_key, callee, s);
    }
  }

  // A caller key twice in one entry (no dict has it) sends the file to the
  // general path, which resolves it as a dict does. Checked when the
  // entry ends, on its few callers, not by a mark for every key (4 bytes
  // a function, 0.4 MB of the 100k-function file's peak): what was built
  // from the entry is thrown away with the rest of this reading.
  bool distinct_callers() {
    if (entry_callers_.size() < 2) return true;
    std::sort(entry_callers_.begin(), entry_callers_.end());
    return std::adjacent_find(entry_callers_.begin(), entry_callers_.end()) == entry_callers_.end();
  }

  bool read_caller(CallerStats& out) {
    std::uint32_t id;
    if (peek_ref(Ref::kCaller, id)) {
      out = callers_[id];
      return true;
    }
    if (pos_ < in_.size()) {
      char t = static_cast<char>(in_[pos_] & 0x7F);
      if (t != '(' && t != ')') {
        std::int64_t i;
        double d;
        if (!number(true, i, d)) return false;
        out.is_int = true;
        out.count = i;
        return true;
      }
    }
    std::uint32_t n;
    std::size_t slot;
    if (!tuple(n, slot) || n == 0 || n % 4 != 0) return false;
    for (std::uint32_t i = 0; i < n; ++i) {
      bool int_only = i % 4 < 2;
      std::int64_t iv = 0;
      double dv = 0;
      if (!number(int_only, iv, dv)) return false;
      out.add_item(i, iv, dv);
    }
    if (slot != SIZE_MAX) {
      Ref r;
      r.kind = Ref::kCaller;
      r.id = static_cast<std::uint32_t>(callers_.size());
      callers_.push_back(out);
      fill(slot, r);
    }
    return true;
  }

  std::string_view in_;
  PassedPages passed_;
  std::size_t pos_ = 0;
  Profile& p_;
  Refs refs_;
  std::vector<StringId> interned_;
  StatsBuilder builder_;
  std::vector<bool> entry_seen_;
  std::vector<std::uint32_t> entry_callers_;  // the entry's caller keys so far
  std::vector<CallerStats> callers_;
  std::string scratch_;
};

}  // namespace

std::optional<Profile> read_fast(std::string_view bytes, std::size_t& trailing, const InputFile* file,
                                 bool keep_call_self) {
  if (bytes.size() > 0xFFFFFFFFu) return std::nullopt;
  Profile p;
  FastReader reader(bytes, p, file, keep_call_self);
  if (!reader.run(trailing)) return std::nullopt;
  return p;
}

}  // namespace graphgen::pstats::detail
