// The vector scanners of text.h against the plain loop they replace: every
// length and place, so no vector boundary hides a case.
#include "graphgen/text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <string>

#include "common/json_doc.h"
#include "util/test_util.h"

namespace graphgen {
namespace {

std::size_t blank_line_plainly(std::string_view s, std::size_t from) {
  for (std::size_t i = from; i + 1 < s.size(); ++i)
    if (s[i] == '\n' && s[i + 1] == '\n') return i;
  return std::string_view::npos;
}

TEST(Text, BlankLinesAreFoundWhereTheLoopFindsThem) {
  std::mt19937 rng(5);
  std::size_t found = 0, hashed = 0;
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
        // A block starting at `from`: the search from the byte before, and
        // the hash of the block's bytes when it has any.
        if (from > 0) {
          std::uint64_t hash = 0;
          std::size_t blank = blank_line_plainly(s, from - 1);
          ASSERT_EQ(find_block(s, from, hash), blank) << "size " << size << " from " << from;
          if (blank != std::string_view::npos && blank >= from) {
            ASSERT_EQ(hash, hash_block(std::string_view(s).substr(from, blank + 1 - from))) << size << " " << from;
            ++hashed;
          }
        }
        found += want != std::string_view::npos;
      }
    }
  EXPECT_GT(found, 1000u);  // the case looked for was there
  EXPECT_GT(hashed, 1000u);
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

namespace graphgen {
namespace {

TEST(Input, SimdjsonReadsAMappedFileInPlaceWhenItsLastPageHasRoom) {
  // A small file is read into a buffer with room after it; a large one is
  // mapped, and read in place when it ends inside a page (the padding
  // simdjson reads past the end is the page's rest), copied when it ends
  // on a page boundary. All parse to the same value.
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)), mib = std::size_t{1} << 20;
  for (std::size_t size : {std::size_t{1000}, page, 2 * mib + 1000, 2 * mib - 10, 2 * mib}) {
    SCOPED_TRACE(size);
    std::string text = "{\"n\": [";
    while (text.size() + 8 < size) text += "1,";
    text += "1]}";
    text += std::string(size - text.size(), ' ');
    ASSERT_EQ(text.size(), size);
    auto path = test::write_temp("padded" + std::to_string(size) + ".json", text);
    auto in = InputFile::open(path.string());
    ASSERT_TRUE(in.has_value());
    formats::PaddedInput padded(*in);
    const bool room = size <= mib || (size % page != 0 && page - size % page >= simdjson::SIMDJSON_PADDING);
    EXPECT_EQ(padded.data() == in->bytes().data(), room);
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    ASSERT_EQ(parser.iterate(padded.view()).get(doc), simdjson::SUCCESS);
    std::size_t count = 0;
    for (auto v : doc["n"].get_array()) count += static_cast<std::size_t>(v.get_int64().value());
    EXPECT_EQ(count, (text.find(']') - 7) / 2 + 1);
  }
}

}  // namespace
}  // namespace graphgen
