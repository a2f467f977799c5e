// Interned strings: every name in a profile is stored once and referred to by
// a 32-bit id, so model objects stay small and compare names by integer.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "graphgen/flat_index.h"

namespace graphgen {

using StringId = std::uint32_t;

/// Id 0 is always the empty string, used for "absent" (no module, no file).
inline constexpr StringId kNoString = 0;

/// Append-only string pool; views stay valid for the table's lifetime.
class StringTable {
 public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) noexcept = default;
  StringTable& operator=(StringTable&&) noexcept = default;

  /// Returns the id of `s`, adding it on first sight.
  StringId intern(std::string_view s);
  /// Room for `strings` strings in all, without regrowing the index.
  void reserve(std::size_t strings);
  /// The text of an id returned by intern(). (Always inlined: the merge of
  /// many files calls it for every string it compares.)
  [[gnu::always_inline]] std::string_view view(StringId id) const {
    const std::uint64_t w = where_[id];
    const char* base = bases_[w >> (kOffsetBits + kLengthBits)];
    const std::size_t length = w & kLengthMask;
    if (length != kLongLength) [[likely]]
      return {base + ((w >> kLengthBits) & kOffsetMask), length};
    return long_view(base);
  }
  /// The low 32 bits of FlatIndex::hash_bytes(view(id)), kept from
  /// interning: a merge finds each file's functions in the merged profile
  /// by their strings' hashes.
  std::uint64_t hash(StringId id) const { return released_ ? text_hash(view(id)) : hashes_[id]; }
  /// Gives back what finding an id by its text takes, the index and the
  /// hashes (12 bytes a string: 208 000 module names, 3 MB), for a profile
  /// read and from now on looked at by id (a graph's); the next intern()
  /// or reserve() makes them again, hash() computes each.
  void release_lookup();
  std::size_t size() const { return where_.size(); }
  /// Bytes held: the text and the index.
  std::size_t bytes() const { return stored_ + where_.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t) + 8); }

 private:
  // Where each id's text is, in one word (8 bytes a string where a
  // string_view took 16: 100 000 names, 0.8 MB): its chunk's number in
  // bases_, its offset in the chunk and its length. A text of kLongLength
  // bytes or more has a chunk of its own, its length in the chunk's first
  // 8 bytes.
  static constexpr unsigned kLengthBits = 24, kOffsetBits = 16;
  static constexpr std::uint64_t kLengthMask = (std::uint64_t{1} << kLengthBits) - 1;
  static constexpr std::uint64_t kOffsetMask = (std::uint64_t{1} << kOffsetBits) - 1;
  static constexpr std::uint64_t kLongLength = kLengthMask;
  static std::string_view long_view(const char* base);
  static std::uint32_t text_hash(std::string_view s) { return static_cast<std::uint32_t>(FlatIndex::hash_bytes(s)); }
  // The index's hash_of: the hashes kept from interning.
  auto stored_hash() const {
    return [this](StringId id) { return hashes_[id]; };
  }
  void restore_lookup();
  std::uint64_t store(std::string_view s);
  const char* new_chunk(std::size_t bytes);

  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<const char*> bases_;  // chunks_' starts, behind an empty one (id 0's)
  std::size_t current_ = 0;         // the chunk small texts go to (0: none yet)
  std::size_t chunk_used_ = 0;
  std::vector<std::uint64_t> where_;
  std::vector<std::uint32_t> hashes_;  // parallel to where_
  std::size_t stored_ = 0;
  DenseIndex index_;       // ids, which are dense from 0
  bool released_ = false;  // index_ and hashes_ given back (release_lookup())
};

}  // namespace graphgen
