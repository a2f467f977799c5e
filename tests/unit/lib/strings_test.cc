// The string table keeps each text's place in one word (its chunk, offset
// and length): every text reads back as interned, whatever its length and
// wherever the chunks end, and interning it again finds the same id.
#include "graphgen/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graphgen/flat_index.h"

namespace graphgen::strings_test {
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

// A graph's profile gives back its strings' lookup by text
// (release_lookup(), 12 bytes a string): ids read the same texts and
// hashes, and interning again, an old text or a new one, makes the lookup
// anew and numbers on from where the table was.
TEST(StringTable, ALookupGivenBackIsMadeAgainWhenNextAsked) {
  for (bool reserve_first : {false, true}) {
    SCOPED_TRACE(reserve_first);
    StringTable t;
    std::vector<std::string> texts;
    for (int i = 0; i < 5000; ++i) texts.push_back("module_" + std::to_string(i * 7919));
    std::vector<StringId> ids;
    for (const std::string& s : texts) ids.push_back(t.intern(s));
    t.release_lookup();
    for (std::size_t i = 0; i < texts.size(); ++i) {
      ASSERT_TRUE(t.view(ids[i]) == texts[i]) << i;
      ASSERT_EQ(t.hash(ids[i]), static_cast<std::uint32_t>(FlatIndex::hash_bytes(texts[i]))) << i;
    }
    if (reserve_first) t.reserve(t.size() + 10000);
    EXPECT_EQ(t.intern(texts[4321]), ids[4321]);
    EXPECT_EQ(t.intern(""), kNoString);
    const StringId fresh = t.intern("a text not seen before");
    EXPECT_EQ(fresh, texts.size() + 1);
    for (std::size_t i = 0; i < texts.size(); ++i) ASSERT_EQ(t.intern(texts[i]), ids[i]) << i;
    EXPECT_EQ(t.intern("a text not seen before"), fresh);
    EXPECT_EQ(t.size(), texts.size() + 2);
    // Given back twice, and grown past its old size after.
    t.release_lookup();
    t.release_lookup();
    for (int i = 0; i < 20000; ++i) ASSERT_EQ(t.intern("later_" + std::to_string(i)), texts.size() + 2 + i) << i;
    for (std::size_t i = 0; i < texts.size(); ++i) ASSERT_EQ(t.intern(texts[i]), ids[i]) << i;
    EXPECT_EQ(t.hash(fresh), static_cast<std::uint32_t>(FlatIndex::hash_bytes("a text not seen before")));
  }
}

}  // namespace
}  // namespace graphgen::strings_test
