// An open-addressing hash index from keys to dense row numbers. The keys
// live in the caller's own rows (e.g. Profile::line_costs), so the index
// costs 8 bytes a slot and a lookup touches one cache line, where
// std::unordered_map allocates a node per key and chases pointers.
// GroupedIndex gives each owner of rows (a function's positions) an index
// of its own.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <new>
#include <string_view>
#include <vector>

namespace graphgen {

class FlatIndex {
 public:
  /// Grows before more than `max_fill_quarters` quarters of its slots are
  /// used: half by default; three quarters for an index of millions of
  /// keys whose lookups mostly find them (a callsite tree), where the
  /// slots are most of the memory and the longer probes stay in a cache
  /// line or two.
  FlatIndex() = default;
  explicit FlatIndex(unsigned max_fill_quarters) : fill_quarters_(max_fill_quarters) {}

  /// The row whose key equals the probe (`equal(row)` is true), or the row
  /// `add()` returns after the caller stored the new key. `hash` must be
  /// well mixed (see mix()).
  template <class Equal, class Add>
  std::uint32_t find_or_add(std::uint64_t hash, Equal&& equal, Add&& add) {
    if ((used_ + 1) * 4 > slots_.size() * fill_quarters_) grow();
    std::size_t mask = slots_.size() - 1;
    // 32 bits of hash place and tag a slot (tables stay below 2^32 slots).
    const auto tag = static_cast<std::uint32_t>(hash);
    for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.row_plus_one == 0) {
        std::uint32_t row = add();
        s = {tag, row + 1};
        ++used_;
        return row;
      }
      if (s.tag == tag && equal(s.row_plus_one - 1)) return s.row_plus_one - 1;
    }
  }

  /// The row whose key equals the probe, or -1.
  template <class Equal>
  std::int64_t find(std::uint64_t hash, Equal&& equal) const {
    if (slots_.empty()) return -1;
    std::size_t mask = slots_.size() - 1;
    const auto tag = static_cast<std::uint32_t>(hash);
    for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.row_plus_one == 0) return -1;
      if (s.tag == tag && equal(s.row_plus_one - 1)) return s.row_plus_one - 1;
    }
  }

  /// The row of the first slot on `hash`'s path whose tag matches, without
  /// asking whether its key is equal (-1 when there is none): the row a
  /// find() will most likely return, for bringing it into the cache ahead.
  std::int64_t likely_row(std::uint64_t hash) const {
    return find(hash, [](std::uint32_t) { return true; });
  }

  std::size_t size() const { return used_; }

  /// Room for `keys` keys in all without growing on the way (the table
  /// doubles, rehashing every key, each time it is half full).
  void reserve(std::size_t keys) {
    if (keys == 0) return;
    std::size_t size = slots_.empty() ? kFirstSlots : slots_.size();
    while ((keys + 1) * 4 > size * fill_quarters_) size *= 2;
    if (size > slots_.size()) rehash(size);
  }

  /// Brings the slot a lookup of `hash` starts at into the cache: a batch
  /// of lookups asks for the one a few places ahead while making this one.
  void prefetch(std::uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[static_cast<std::uint32_t>(hash) & (slots_.size() - 1)]);
  }

  /// A well-mixed 64-bit hash of up to three words (splitmix64 finaliser).
  /// A fast hash of bytes, 8 at a time, finished by mix().
  static std::uint64_t hash_bytes(std::string_view s, std::uint64_t seed = 0) {
    std::uint64_t h = seed ^ (s.size() * 0x9E3779B97F4A7C15ull);
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      std::uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xFF51AFD7ED558CCDull;
      h ^= h >> 32;
    }
    return mix(h, tail_bytes(s.data() + i, s.size() - i, s.size() >= 8));
  }
  /// The `r` (< 8) bytes at `p` as a little-endian word, read with loads of
  /// a fixed size (a copy of `r` bytes was a call to memcpy, and the load
  /// after it stalled on its stores: 0.2 of StackBuilder::function's time);
  /// `behind`: the 8 bytes before `p + r` may be read.
  static std::uint64_t tail_bytes(const char* p, std::size_t r, bool behind) {
    if (r == 0) return 0;
    if constexpr (std::endian::native != std::endian::little) {
      std::uint64_t w = 0;
      std::memcpy(&w, p, r);
      return w;
    }
    if (behind) {
      std::uint64_t w;
      std::memcpy(&w, p + r - 8, 8);
      return w >> (8 * (8 - r));
    }
    if (r >= 4) {
      std::uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + r - 4, 4);
      return lo | (std::uint64_t{hi} << (8 * (r - 4)));
    }
    const auto byte = [&](std::size_t k) { return std::uint64_t{static_cast<unsigned char>(p[k])}; };
    return byte(0) | byte(r / 2) << (8 * (r / 2)) | byte(r - 1) << (8 * (r - 1));
  }

  static std::uint64_t mix(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) {
    std::uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full ^
                      (c + 0x165667B19E3779F9ull) * 0x27D4EB2F165667C5ull;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
  }

 private:
  struct Slot {
    std::uint32_t tag = 0;
    std::uint32_t row_plus_one = 0;  // 0 = empty
  };

  static constexpr std::size_t kFirstSlots = 1024;  // (the table's size when the first key comes)

  void grow() { rehash(slots_.empty() ? kFirstSlots : slots_.size() * 2); }

  void rehash(std::size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.row_plus_one == 0) continue;
      std::size_t i = s.tag & mask;
      while (slots_[i].row_plus_one != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
  unsigned fill_quarters_ = 2;
};

/// A FlatIndex of 4-byte slots for rows numbered 0, 1, 2... in the order
/// they are added (a string table's ids, a reader's keys): a row is below
/// half the slot count, so a slot holds row + 1 in the bits the slot's
/// place takes from the hash and the hash's bits above them as the tag.
/// Growing asks `hash_of(row)` again for each row in order. Half the bytes
/// of a FlatIndex: the 100 000-function pstats file's names and keys held
/// two indexes of 2 MB at its read's peak.
class DenseIndex {
 public:
  /// As FlatIndex::find_or_add(); `add()` returns size(), the next row, and
  /// `hash_of(row)` the hash's low 32 bits of a row already added.
  template <class Equal, class Add, class Hash>
  std::uint32_t find_or_add(std::uint32_t hash, Equal&& equal, Add&& add, Hash&& hash_of) {
    if ((used_ + 1) * 2 > slots_.size()) reserve(used_ + 1, hash_of);  // (also after release())
    const std::uint32_t mask = static_cast<std::uint32_t>(slots_.size() - 1);
    const std::uint32_t tag = hash & ~mask;
    for (std::uint32_t i = hash & mask;; i = (i + 1) & mask) {
      const std::uint32_t s = slots_[i];
      if (s == 0) {
        const std::uint32_t row = add();
        assert(row == used_);  // (so row + 1 <= slots / 2: inside the mask, below the tag)
        slots_[i] = tag | (row + 1);
        ++used_;
        return row;
      }
      if ((s & ~mask) == tag && equal((s & mask) - 1)) return (s & mask) - 1;
    }
  }

  std::size_t size() const { return used_; }

  /// Room for `keys` rows in all without growing on the way.
  template <class Hash>
  void reserve(std::size_t keys, Hash&& hash_of) {
    std::size_t size = slots_.empty() ? kFirstSlots : slots_.size();
    while ((keys + 1) * 2 > size) size *= 2;
    if (size > slots_.size()) rehash(size, hash_of);
  }

  /// Gives back the slots and keeps the rows' count: the next
  /// find_or_add() or reserve() places the rows again, by `hash_of`.
  void release() { slots_ = std::vector<std::uint32_t>(); }

 private:
  static constexpr std::size_t kFirstSlots = 1024;
  // (2^31 slots: a billion rows, past any memory budget; masks fit 32 bits.)
  static constexpr std::size_t kMaxSlots = std::size_t{1} << 31;

  template <class Hash>
  void rehash(std::size_t size, Hash&& hash_of) {
    if (size > kMaxSlots) throw std::bad_alloc();
    slots_.assign(size, 0);
    const auto mask = static_cast<std::uint32_t>(size - 1);
    for (std::uint32_t row = 0; row < used_; ++row) {
      const auto hash = static_cast<std::uint32_t>(hash_of(row));
      std::uint32_t i = hash & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = (hash & ~mask) | (row + 1);
    }
  }

  std::vector<std::uint32_t> slots_;
  std::uint32_t used_ = 0;
};

/// Rows that each belong to one owner (a function's rows of positions),
/// found by the owner and a key: each owner's rows have an index of their
/// own, from 8 slots up, of 4-byte slots (a row; its hash is asked for
/// again when the table grows). A file that lists an owner's rows together
/// (a callgrind function's block of cost lines) then looks them up in a
/// few cache lines, beside rows just written, where one index of all rows
/// (1.5 million for pydoc-sep3's instructions) missed the cache on nearly
/// every lookup.
class GroupedIndex {
 public:
  /// As FlatIndex::find_or_add(), among the rows of `owner`; `hash` need
  /// not include the owner, and `hash_of(row)` gives it again for a row.
  template <class Equal, class Add, class Hash>
  std::uint32_t find_or_add(std::uint32_t owner, std::uint64_t hash, Equal&& equal, Add&& add, Hash&& hash_of) {
    if (owner >= owners_.size()) owners_.resize(std::max<std::size_t>(owner + 1, owners_.size() * 2));
    Owner& o = owners_[owner];
    if ((o.used + 1) * 2 > o.slots.size()) grow(o, hash_of);
    const std::size_t mask = o.slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const std::uint32_t slot = o.slots[i];
      if (slot == 0) {
        const std::uint32_t row = add();
        o.slots[i] = row + 1;
        ++o.used;
        return row;
      }
      if (equal(slot - 1)) return slot - 1;
    }
  }
  /// Bytes held: the owners' table and their slots (for a reader's memory
  /// budget: a file of many owners of a row or two each holds about as
  /// much here as in its rows).
  std::size_t bytes() const { return owners_.capacity() * sizeof(Owner) + slot_bytes_; }
  /// As FlatIndex::find().
  template <class Equal>
  std::int64_t find(std::uint32_t owner, std::uint64_t hash, Equal&& equal) const {
    if (owner >= owners_.size() || owners_[owner].slots.empty()) return -1;
    const Owner& o = owners_[owner];
    const std::size_t mask = o.slots.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      if (o.slots[i] == 0) return -1;
      if (equal(o.slots[i] - 1)) return o.slots[i] - 1;
    }
  }

 private:
  struct Owner {
    std::vector<std::uint32_t> slots;  // row + 1; 0 = empty
    std::uint32_t used = 0;
  };

  template <class Hash>
  void grow(Owner& o, Hash&& hash_of) {
    std::vector<std::uint32_t> old = std::move(o.slots);
    o.slots.assign(old.empty() ? 8 : old.size() * 2, 0);
    slot_bytes_ += (o.slots.size() - old.size()) * sizeof(std::uint32_t);
    const std::size_t mask = o.slots.size() - 1;
    for (std::uint32_t slot : old) {
      if (slot == 0) continue;
      std::size_t i = hash_of(slot - 1) & mask;
      while (o.slots[i] != 0) i = (i + 1) & mask;
      o.slots[i] = slot;
    }
  }

  std::vector<Owner> owners_;
  std::size_t slot_bytes_ = 0;
};

}  // namespace graphgen
