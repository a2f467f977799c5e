#include "graphgen/strings.h"

#include <algorithm>
#include <cstring>

namespace graphgen {

namespace {
constexpr std::size_t kChunkBytes = 64 * 1024;
}

StringTable::StringTable() {
  views_.emplace_back();
  hashes_.push_back(FlatIndex::hash_bytes({}));
  index_.find_or_add(
      hashes_.back(), [](std::uint32_t) { return false; }, [] { return kNoString; });
}

std::string_view StringTable::store(std::string_view s) {
  stored_ += s.size();
  if (s.size() > kChunkBytes / 4) {
    // Large strings get a chunk of their own so they do not waste the tail
    // of the current chunk.
    std::unique_ptr<char[]> big(new char[s.size()]);  // no zeroing: filled next
    std::memcpy(big.get(), s.data(), s.size());
    std::string_view v(big.get(), s.size());
    chunks_.insert(chunks_.end() - (chunks_.empty() ? 0 : 1), std::move(big));
    return v;
  }
  if (chunks_.empty() || chunk_used_ + s.size() > chunk_size_) {
    chunks_.push_back(std::unique_ptr<char[]>(new char[kChunkBytes]));  // no zeroing
    chunk_used_ = 0;
    chunk_size_ = kChunkBytes;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  return {dst, s.size()};
}

StringId StringTable::intern(std::string_view s) {
  const std::uint64_t h = FlatIndex::hash_bytes(s);
  return index_.find_or_add(
      h, [&](std::uint32_t id) { return views_[id] == s; },
      [&] {
        views_.push_back(store(s));
        hashes_.push_back(h);
        return static_cast<StringId>(views_.size() - 1);
      });
}

}  // namespace graphgen
