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
  void reserve(std::size_t strings) {
    views_.reserve(strings);
    hashes_.reserve(strings);
    index_.reserve(strings);
  }
  /// The text of an id returned by intern().
  std::string_view view(StringId id) const { return views_[id]; }
  /// FlatIndex::hash_bytes(view(id)), kept from interning: a merge finds
  /// each file's functions in the merged profile by their strings' hashes.
  std::uint64_t hash(StringId id) const { return hashes_[id]; }
  std::size_t size() const { return views_.size(); }
  /// Bytes held: the text and the index.
  std::size_t bytes() const { return stored_ + views_.size() * (sizeof(std::string_view) + 16); }

 private:
  std::string_view store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> chunks_;
  std::size_t chunk_used_ = 0;
  std::size_t chunk_size_ = 0;
  std::vector<std::string_view> views_;
  std::vector<std::uint64_t> hashes_;  // parallel to views_
  std::size_t stored_ = 0;
  FlatIndex index_;
};

}  // namespace graphgen
