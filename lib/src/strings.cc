#include "graphgen/strings.h"

#include <algorithm>
#include <cstring>

namespace graphgen {

namespace {
constexpr std::size_t kChunkBytes = 64 * 1024;
}

StringTable::StringTable() {
  views_.emplace_back();
  index_.emplace(std::string_view(), kNoString);
}

std::string_view StringTable::store(std::string_view s) {
  if (s.size() > kChunkBytes / 4) {
    // Large strings get a chunk of their own so they do not waste the tail
    // of the current chunk.
    auto big = std::make_unique<char[]>(s.size());
    std::memcpy(big.get(), s.data(), s.size());
    std::string_view v(big.get(), s.size());
    chunks_.insert(chunks_.end() - (chunks_.empty() ? 0 : 1), std::move(big));
    return v;
  }
  if (chunks_.empty() || chunk_used_ + s.size() > chunk_size_) {
    chunks_.push_back(std::make_unique<char[]>(kChunkBytes));
    chunk_used_ = 0;
    chunk_size_ = kChunkBytes;
  }
  char* dst = chunks_.back().get() + chunk_used_;
  if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  chunk_used_ += s.size();
  return {dst, s.size()};
}

StringId StringTable::intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  std::string_view stored = store(s);
  auto id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

}  // namespace graphgen
