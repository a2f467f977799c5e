// The vector scanners of text.h against the plain loop they replace: every
// length and place, so no vector boundary hides a case.
#include "graphgen/text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "common/json_doc.h"
#include "util/test_util.h"

namespace graphgen::text_test {
namespace {

std::size_t blank_line_plainly(std::string_view s, std::size_t from) {
  for (std::size_t i = from; i + 1 < s.size(); ++i)
    if (s[i] == '\n' && s[i + 1] == '\n') return i;
  return std::string_view::npos;
}

// The doubles every formatting test below takes, after its own: both
// zeros, the smallest subnormal, the largest finite values, NaN and the
// infinities of both signs.
void add_special_doubles(std::vector<double>& values) {
  for (double v : {0.0, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    values.push_back(v);
    values.push_back(-v);
  }
}

// 2^52, 2^53 and 1e17, `steps` neighbours each way, both signs (and each
// less 0.75, with `less_three_quarters`).
void add_big_doubles(std::vector<double>& values, int steps, bool less_three_quarters) {
  for (double big : {9007199254740992.0, 4503599627370496.0, 1e17})
    for (int i = -steps; i <= steps; ++i) {
      double v = big;
      for (int s = 0; s < std::abs(i); ++s) v = std::nextafter(v, i < 0 ? 0.0 : 1e300);
      values.push_back(v);
      values.push_back(-v);
      if (less_three_quarters) values.push_back(v - 0.75);
    }
}

// `count` each of random bit patterns, magnitudes and decimals.
void add_random_doubles(std::vector<double>& values, std::uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  for (int i = 0; i < count; ++i) {
    values.push_back(std::bit_cast<double>(random()));
    values.push_back(std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 70)));
    values.push_back(static_cast<double>(random() % 1000000) * 1e-6 * static_cast<double>(random() % 1000));
  }
}

// append_fixed1 is fmt's {:W.1f} (which is printf's %W.1f) for every kind
// of double: the ties of one decimal (k + 1/4, k + 3/4), their neighbours,
// negative zero and values that round to it, fractions too small to show,
// 2^53 and beyond (fmt's path), NaN and infinities, and random bit
// patterns and magnitudes; in 5, 8 and 12 columns.
TEST(Text, OneDecimalIsWhatFmtWrites) {
  std::vector<double> values = {0.05,   -0.05,   0.04,     -0.04, 0.95, 9.95,        99.95,
                                1e-300, -1e-320, 4.9e-324, 0.1,   0.7,  123456789.25};
  add_special_doubles(values);
  for (double k = 0; k < 2000; ++k)
    for (double tie : {k + 0.25, k + 0.75, -(k + 0.25), -(k + 0.75)}) {
      values.push_back(tie);
      values.push_back(std::nextafter(tie, 0.0));
      values.push_back(std::nextafter(tie, 1e300));
    }
  add_big_doubles(values, 8, true);
  add_random_doubles(values, 30, 200000);
  std::size_t differ = 0;
  std::string out;
  for (double v : values)
    for (std::size_t width : {5u, 8u, 12u}) {
      out.clear();
      append_fixed1(out, v, width);
      const std::string want = fmt::format("{:{}.1f}", v, width);
      if (out != want && differ++ < 10)
        ADD_FAILURE() << fmt::format("{:a} in {}: {:?} against fmt's {:?}", v, width, out, want);
    }
  EXPECT_EQ(differ, 0u) << "of " << values.size() * 3;
}

// append_printf_fixed is snprintf's %W.Pf for every kind of double: the
// ties of each precision (k + 5/10^(P+1) where exact in binary: k + 1/16,
// k + 1/2...), their neighbours, negative zero, fractions too small to
// show, 2^53 and beyond, 1e300 (longer than the buffer: printf's path),
// NaN and infinities, random bit patterns and magnitudes; precisions 0 to
// 9 in 1, 8 and 12 columns.
TEST(Text, FixedIsWhatPrintfWrites) {
  std::vector<double> values = {0.0005, -0.0005, 0.0625, -0.0625, 0.1875,       2.5,  0.5,   1.5,   999.9995,
                                1e-300, -1e-320, 0.1,    0.7,     123456789.25, 1e20, -1e22, 1e300, -1e300};
  add_special_doubles(values);
  for (double k = 0; k < 500; ++k)
    for (int denominator : {2, 4, 8, 16, 32, 64, 1024})
      for (double tie : {k + 1.0 / denominator, -(k + 3.0 / denominator)}) {
        values.push_back(tie);
        values.push_back(std::nextafter(tie, 0.0));
        values.push_back(std::nextafter(tie, 1e300));
      }
  add_big_doubles(values, 4, false);
  add_random_doubles(values, 31, 30000);
  std::size_t differ = 0, runs = 0;
  std::string out;
  std::vector<char> want(2048);
  for (double v : values)
    for (int precision : {0, 1, 3, 6, 9})
      for (std::size_t width : {1u, 8u, 12u}) {
        out.clear();
        append_printf_fixed(out, v, precision, width);
        const int n = std::snprintf(want.data(), want.size(), "%*.*f", static_cast<int>(width), precision, v);
        ++runs;
        if (out != std::string_view(want.data(), static_cast<std::size_t>(n)) && differ++ < 10)
          ADD_FAILURE() << fmt::format("{:a} %{}.{}f: {:?} against printf's {:?}", v, width, precision, out,
                                       std::string_view(want.data(), static_cast<std::size_t>(n)));
      }
  EXPECT_EQ(differ, 0u) << "of " << runs;
}

// append_printf_general is snprintf's %.Pg, and so is fmt's {:.Pg}, which
// it replaces: the values of the fixed test (ties, 2^53, 1e300, NaN...),
// the powers of ten about each exponent's switch to and from e-notation,
// random values; precisions 1, 6, 9 and 17.
TEST(Text, GeneralIsWhatPrintfAndFmtWrite) {
  std::vector<double> values = {0.0625, 2.5,          0.5,   1e-300, -1e-320,
                                0.1,    123456789.25, 1e300, -1e300, 9007199254740993.0};
  add_special_doubles(values);
  for (int e = -20; e <= 20; ++e)
    for (double m : {1.0, 9.99999999, 9.999999999999, 5.0, 1.5}) {
      const double v = m * std::pow(10.0, e);
      values.push_back(v);
      values.push_back(-v);
      values.push_back(std::nextafter(v, 0.0));
      values.push_back(std::nextafter(v, 1e300));
    }
  add_random_doubles(values, 32, 40000);
  std::size_t differ = 0, runs = 0;
  std::string out;
  char want[512];
  for (double v : values)
    for (int precision : {1, 6, 9, 17}) {
      out.clear();
      append_printf_general(out, v, precision);
      const int n = std::snprintf(want, sizeof want, "%.*g", precision, v);
      const std::string printf_text(want, static_cast<std::size_t>(n));
      const std::string fmt_text = fmt::format("{:.{}g}", v, precision);
      ++runs;
      if ((out != printf_text || fmt_text != printf_text) && differ++ < 10)
        ADD_FAILURE() << fmt::format("{:a} %.{}g: {:?}, fmt's {:?}, printf's {:?}", v, precision, out, fmt_text,
                                     printf_text);
    }
  EXPECT_EQ(differ, 0u) << "of " << runs;
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

// find_newline() is memchr for '\n' at every length and place: the first
// newline before, in and after each of its four 16-byte loads, and none.
TEST(Text, NewlinesAreFoundWhereMemchrFindsThem) {
  std::size_t found = 0;
  for (std::size_t size = 0; size < 150; ++size)
    for (std::size_t at = 0; at <= size; ++at) {
      std::string s(size, 'x');
      for (std::size_t later = at; later < size; later += 7) s[later] = '\n';  // (the first at `at`)
      const void* want = std::memchr(s.data(), '\n', s.size());
      ASSERT_EQ(static_cast<const void*>(find_newline(s.data(), s.size())), want) << size << " " << at;
      found += want != nullptr;
    }
  EXPECT_GT(found, 10000u);
}

// same_bytes() is memcmp's equality at every length, for a difference at
// every place (each side of its overlapping loads) and for none.
TEST(Text, SameBytesIsMemcmpsAnswer) {
  for (std::size_t n = 0; n < 70; ++n) {
    std::string a(n, 'p'), b = a;
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] = static_cast<char>('a' + i % 26);
    ASSERT_TRUE(same_bytes(a.data(), b.data(), n)) << n;
    for (std::size_t i = 0; i < n; ++i) {
      std::string c = b;
      c[i] = static_cast<char>(c[i] ^ 0x20);
      ASSERT_FALSE(same_bytes(a.data(), c.data(), n)) << n << " " << i;
    }
  }
  // Empty views (perf's first command is compared with none): no bytes to
  // read, even where a pointer is null (the fuzz build's sanitizer checks).
  EXPECT_TRUE(same_bytes(std::string_view().data(), std::string().data(), 0));
}

// parse_u64(): every digit string that fits in 64 bits, and no other.
TEST(Text, ParseU64ReadsWhatFitsAndRefusesTheRest) {
  std::uint64_t v = 7;
  EXPECT_TRUE(parse_u64("18446744073709551615", v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(parse_u64("18446744073709551616", v));  // one more
  EXPECT_FALSE(parse_u64("18446744073709551620", v));  // over by the last digit's add
  EXPECT_FALSE(parse_u64("28446744073709551615", v));  // over by the last multiply
  EXPECT_FALSE(parse_u64("99999999999999999999", v));
  EXPECT_TRUE(parse_u64("00000000000000000001", v));  // 20 digits that fit
  EXPECT_EQ(v, 1u);
  EXPECT_TRUE(parse_u64("0", v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse_u64("50000", v));
  EXPECT_EQ(v, 50000u);
  EXPECT_FALSE(parse_u64("", v));
  EXPECT_FALSE(parse_u64("12a", v));
  EXPECT_FALSE(parse_u64("-1", v));
  EXPECT_FALSE(parse_u64("000000000000000000001", v));  // 21 digits
  EXPECT_EQ(v, 50000u);                                 // (unchanged by a refusal)
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
}  // namespace graphgen::text_test

namespace graphgen::text_test {
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
}  // namespace graphgen::text_test
