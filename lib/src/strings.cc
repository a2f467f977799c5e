#include "graphgen/strings.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace graphgen {

namespace {
constexpr std::size_t kChunkBytes = 64 * 1024;
}

StringTable::StringTable() {
  static constexpr char kEmpty[1] = {0};
  bases_.push_back(kEmpty);
  where_.push_back(0);  // chunk 0 (kEmpty), offset 0, length 0
  const std::uint32_t h = text_hash({});
  hashes_.push_back(h);
  index_.find_or_add(
      h, [](std::uint32_t) { return false; }, [] { return kNoString; }, stored_hash());
}

std::string_view StringTable::long_view(const char* base) {
  std::uint64_t length;
  std::memcpy(&length, base, sizeof length);
  return {base + sizeof length, static_cast<std::size_t>(length)};
}

const char* StringTable::new_chunk(std::size_t bytes) {
  // (2^24 chunks: 1 TiB of names, beyond any memory budget.)
  if (bases_.size() > (std::size_t{1} << (64 - kOffsetBits - kLengthBits)) - 1) throw std::bad_alloc();
  chunks_.push_back(std::unique_ptr<char[]>(new char[bytes]));  // no zeroing: filled next
  bases_.push_back(chunks_.back().get());
  return chunks_.back().get();
}

std::uint64_t StringTable::store(std::string_view s) {
  stored_ += s.size();
  constexpr unsigned kChunkShift = kOffsetBits + kLengthBits;
  if (s.size() > kChunkBytes / 4) {
    // Large texts get a chunk of their own so they do not waste the tail
    // of the current chunk.
    const bool long_text = s.size() >= kLongLength;
    char* dst = const_cast<char*>(new_chunk(s.size() + (long_text ? sizeof(std::uint64_t) : 0)));
    if (long_text) {
      const std::uint64_t length = s.size();
      std::memcpy(dst, &length, sizeof length);
      dst += sizeof length;
    }
    std::memcpy(dst, s.data(), s.size());
    return std::uint64_t{bases_.size() - 1} << kChunkShift | (long_text ? kLongLength : s.size());
  }
  if (current_ == 0 || chunk_used_ + s.size() > kChunkBytes) {
    new_chunk(kChunkBytes);
    current_ = bases_.size() - 1;
    chunk_used_ = 0;
  }
  char* dst = const_cast<char*>(bases_[current_]) + chunk_used_;
  if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  const std::uint64_t w = std::uint64_t{current_} << kChunkShift | std::uint64_t{chunk_used_} << kLengthBits | s.size();
  chunk_used_ += s.size();
  return w;
}

void StringTable::reserve(std::size_t strings) {
  if (released_) restore_lookup();
  where_.reserve(strings);
  hashes_.reserve(strings);
  index_.reserve(strings, stored_hash());
}

void StringTable::release_lookup() {
  index_.release();
  hashes_ = std::vector<std::uint32_t>();
  released_ = true;
}

void StringTable::restore_lookup() {
  hashes_.reserve(where_.size());
  for (StringId id = 0; id < where_.size(); ++id) hashes_.push_back(text_hash(view(id)));
  released_ = false;
  index_.reserve(where_.size(), stored_hash());
}

StringId StringTable::intern(std::string_view s) {
  if (released_) [[unlikely]]
    restore_lookup();
  const std::uint32_t h = text_hash(s);
  return index_.find_or_add(
      h, [&](std::uint32_t id) { return view(id) == s; },
      [&] {
        where_.push_back(store(s));
        hashes_.push_back(h);
        return static_cast<StringId>(where_.size() - 1);
      },
      stored_hash());
}

}  // namespace graphgen
