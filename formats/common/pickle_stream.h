// What the pickle readers that decode as they read share (tracemalloc's
// snapshots, line_profiler's files): bounded reads of the bytes, and the
// stack with its MARKs, of values of each reader's own kind. Each check that
// fails throws GiveUp: the reader then leaves the file to its general path
// (pickle.h's decoder), which owns every error message.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/pickle.h"
#include "graphgen/io.h"

namespace graphgen::pickle {

/// Thrown where a streaming reader leaves the file to its general path.
struct GiveUp {};

/// The memo indices a pickle's GETs (BINGET, LONG_BINGET) take again,
/// found in one pass over its opcodes before it is decoded, so a streaming
/// reader keeps the values of those alone: a tracemalloc snapshot memoizes
/// every tuple (1.2 million for sympy's 10 MB) and takes 40 000 of them
/// again. Nothing for an opcode other than those the streaming readers
/// decode, a pickle without its STOP, or an index no memo could reach (the
/// reader then keeps every value, and decoding says what is wrong).
class TakenMemo {
 public:
  /// Nothing either when `stop` (checked every 64 Ki opcodes) is set.
  /// `input`: the mapped file `pickle` is, whose pages are given back as
  /// the scan passes them (nullptr: none).
  static std::optional<TakenMemo> scan(std::string_view pickle, const std::atomic<bool>* stop = nullptr,
                                       const InputFile* input = nullptr);
  /// Where index `i`'s value goes among the taken ones' (0 to size() - 1),
  /// or nothing when no GET takes it.
  std::optional<std::uint32_t> slot(std::uint64_t i) const {
    const std::uint64_t word = i / 64;
    if (word >= bits_.size()) return std::nullopt;
    const std::uint64_t below = bits_[word] & ((std::uint64_t{2} << (i % 64)) - 1);
    if (!(bits_[word] >> (i % 64) & 1)) return std::nullopt;
    return rank_[word] + static_cast<std::uint32_t>(std::popcount(below)) - 1;
  }
  /// How many indices are taken.
  std::size_t size() const { return size_; }

 private:
  std::vector<std::uint64_t> bits_;  // bit i: index i is taken
  std::vector<std::uint32_t> rank_;  // the taken indices below each word
  std::size_t size_ = 0;
};

/// `Reader` (deriving from it, a friend of it) has memoize(index), get(index)
/// and push_int(value) for the opcodes every reader reads alike (common()).
template <class Reader, class Value>
class StreamBase {
 protected:
  explicit StreamBase(std::string_view in) : in_(in) {}

  /// PROTO, FRAME, the memo's opcodes (MEMOIZE's index is `memo_size`, the
  /// memo's length) and the binary ints; false for any other opcode.
  bool common(unsigned char op, std::uint64_t memo_size) {
    Reader& r = static_cast<Reader&>(*this);
    switch (op) {
      case 0x80:  // PROTO
        if (u8() > 5) throw GiveUp{};
        return true;
      case 0x95:  // FRAME: a buffering hint
        le(8);
        return true;
      case 0x94:  // MEMOIZE
        r.memoize(memo_size);
        return true;
      case 'q':
        r.memoize(u8());
        return true;
      case 'r':
        r.memoize(le(4));
        return true;
      case 'h':
        r.get(u8());
        return true;
      case 'j':
        r.get(le(4));
        return true;
      case 'K':
        r.push_int(u8());
        return true;
      case 'M':
        r.push_int(static_cast<std::int64_t>(le(2)));
        return true;
      case 'J':
        r.push_int(static_cast<std::int32_t>(le(4)));
        return true;
      case 0x8A: {  // LONG1
        const auto v = long_value(bytes(u8()));
        if (!v) throw GiveUp{};
        r.push_int(*v);
        return true;
      }
      default:
        return false;
    }
  }

  // ----- reading bytes
  void need(std::size_t n) const {
    if (in_.size() - pos_ < n) throw GiveUp{};
  }
  unsigned char u8() {
    need(1);
    return static_cast<unsigned char>(in_[pos_++]);
  }
  /// An n-byte little-endian number.
  std::uint64_t le(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int k = 0; k < n; ++k) v |= std::uint64_t{static_cast<unsigned char>(in_[pos_ + k])} << (8 * k);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }
  std::string_view bytes(std::uint64_t n) {
    if (n > in_.size() - pos_) throw GiveUp{};
    const std::string_view s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  /// Up to the next '\n' (GLOBAL's names, protocol 0's numbers).
  std::string_view line() {
    const std::size_t nl = in_.find('\n', pos_);
    if (nl == std::string_view::npos) throw GiveUp{};
    const std::string_view s = in_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return s;
  }

  // ----- the stack
  /// The top value, above the last open MARK.
  Value pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) throw GiveUp{};
    const Value v = stack_.back();
    stack_.pop_back();
    return v;
  }
  /// Closes the last MARK: its items are stack_[the result, end).
  std::size_t pop_mark() {
    if (marks_.empty()) throw GiveUp{};
    const std::size_t m = marks_.back();
    marks_.pop_back();
    return m;
  }

  std::string_view in_;
  std::size_t pos_ = 0;
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;
};

}  // namespace graphgen::pickle
