// The string table keeps each text's place in one word (its chunk, offset
// and length): every text reads back as interned, whatever its length and
// wherever the chunks end, and interning it again finds the same id.
#include "graphgen/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphgen/flat_index.h"

namespace graphgen {
namespace {

TEST(StringTable, EveryTextReadsBackAsInternedAcrossChunksAndLengths) {
  StringTable t;
  EXPECT_EQ(t.intern(""), kNoString);
  EXPECT_EQ(t.view(kNoString), "");
  std::vector<std::string> texts;
  // Lengths around a 64 KiB chunk's quarter (16 KiB: the most a shared
  // chunk takes), texts that fill chunks to their last byte, and one over
  // the 24 bits a length has in the word (kept in its chunk's first bytes).
  for (std::size_t n : {1u, 7u, 100u, 16383u, 16384u, 16385u, 40000u, 65535u, 65536u, 70000u})
    texts.push_back(std::string(n, static_cast<char>('a' + n % 26)) + std::to_string(n));
  for (int i = 0; i < 20000; ++i) texts.push_back("function_" + std::to_string(i) + std::string(i % 61, 'x'));
  for (int i = 0; i < 8; ++i) texts.push_back(std::string(65536 / 8 - 1, static_cast<char>('A' + i)));
  texts.push_back(std::string((std::size_t{1} << 24) + 5, 'L'));
  texts.push_back(std::string((std::size_t{1} << 24) - 1, 'M'));  // exactly the escape value
  texts.push_back("after the long ones");
  std::vector<StringId> ids;
  for (const std::string& s : texts) ids.push_back(t.intern(s));
  ASSERT_EQ(t.size(), texts.size() + 1);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(t.view(ids[i]).size(), texts[i].size());
    EXPECT_TRUE(t.view(ids[i]) == texts[i]);
    EXPECT_EQ(t.intern(texts[i]), ids[i]);
    EXPECT_EQ(t.hash(ids[i]), static_cast<std::uint32_t>(FlatIndex::hash_bytes(texts[i])));
  }
  // A moved table reads the same texts.
  StringTable moved = std::move(t);
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_TRUE(moved.view(ids[i]) == texts[i]) << i;
}

}  // namespace
}  // namespace graphgen
