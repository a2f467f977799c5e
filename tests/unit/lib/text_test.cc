// The vector scanners of text.h against the plain loop they replace: every
// length and place, so no vector boundary hides a case.
#include "graphgen/text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace graphgen {
namespace {

std::size_t blank_line_plainly(std::string_view s, std::size_t from) {
  for (std::size_t i = from; i + 1 < s.size(); ++i)
    if (s[i] == '\n' && s[i + 1] == '\n') return i;
  return std::string_view::npos;
}

TEST(Text, BlankLinesAreFoundWhereTheLoopFindsThem) {
  std::mt19937 rng(5);
  std::size_t found = 0;
  for (std::size_t size = 0; size < 200; ++size)
    for (int round = 0; round < 20; ++round) {
      // Mostly other bytes, single newlines often, pairs rarely: pairs
      // land before, across and after each 16- and 32-byte block.
      std::string s(size, 'x');
      for (char& c : s) {
        unsigned r = rng() % 16;
        c = r < 3 ? '\n' : static_cast<char>('a' + r);
      }
      for (std::size_t from = 0; from <= size; from += 1 + size / 7) {
        std::size_t want = blank_line_plainly(s, from);
        ASSERT_EQ(find_blank_line(s, from), want) << "size " << size << " from " << from;
        found += want != std::string_view::npos;
      }
    }
  EXPECT_GT(found, 1000u);                                                         // the case looked for was there
  EXPECT_EQ(find_blank_line(std::string(100, '\n'), 99), std::string_view::npos);  // no byte after the last
}

TEST(Text, BlockHashesDependOnEveryByte) {
  std::string s(1000, 'a');
  std::uint64_t h = hash_block(s);
  for (std::size_t i = 0; i < s.size(); i += 37) {
    std::string t = s;
    t[i] = 'b';
    EXPECT_NE(hash_block(t), h) << i;
  }
  EXPECT_NE(hash_block(s.substr(0, 999)), h);
  EXPECT_EQ(hash_block(std::string(s)), h);
}

}  // namespace
}  // namespace graphgen
