// The pickle decoder (formats/common/pickle.h) against pickles Python's
// pickle module writes and hand-written byte strings: the memo in each of
// its forms (MEMOIZE's len(memo), PUT indices far apart, an index set twice),
// containers built in batches, and the compact document it returns.
#include "common/pickle.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <vector>

#include "common/pickle_stream.h"
#include "util/test_util.h"

namespace graphgen::pickle::pickle_test {
namespace {

const Allowed kNone = {{}, "no class may appear here"};

std::string error_of(const std::string& bytes) {
  auto doc = decode(bytes, "t.pickle", kNone);
  EXPECT_FALSE(doc);
  return doc ? std::string() : doc.error().message;
}

// What Python's pickle makes of an expression, at a protocol.
std::string pickled(const std::string& expression, int protocol) {
  auto r = test::run({"python3", "-c",
                      "import pickle, sys\nsys.stdout.buffer.write(pickle.dumps(" + expression +
                          ", protocol=" + std::to_string(protocol) + "))"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The shared tuples of a tracemalloc snapshot, in miniature: one object
// referenced many times through the memo, in lists long enough to be
// appended in batches of 1000, at every protocol that memoizes.
TEST(Pickle, SharedObjectsComeBackAsOneNodeAtEveryProtocol) {
  for (int protocol : {2, 3, 4, 5}) {
    SCOPED_TRACE(protocol);
    auto doc = decode(
        pickled("(lambda f: [(i, f if i % 3 else ('x' * (i % 5), i)) for i in range(2500)])(('a.py', 7))", protocol),
        "t.pickle", kNone);
    ASSERT_TRUE(doc) << doc.error().message;
    const Document& d = *doc;
    const Node& list = d.node(d.root);
    ASSERT_EQ(list.type, Type::kList);
    const auto items = d.items(list);
    ASSERT_EQ(items.size(), 2500u);
    std::uint32_t shared = UINT32_MAX;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Node& pair = d.node(items[i]);
      ASSERT_EQ(pair.type, Type::kTuple) << i;
      const auto two = d.items(pair);
      ASSERT_EQ(two.size(), 2u);
      EXPECT_EQ(d.node(two[0]).i, static_cast<std::int64_t>(i));
      const Node& inner = d.node(two[1]);
      const auto parts = d.items(inner);
      ASSERT_EQ(parts.size(), 2u);
      if (i % 3) {
        if (shared == UINT32_MAX) shared = two[1];
        EXPECT_EQ(two[1], shared) << "the memo gave another object at " << i;
        EXPECT_EQ(d.text(d.node(parts[0])), "a.py");
        EXPECT_EQ(d.node(parts[1]).i, 7);
      } else {
        EXPECT_EQ(d.text(d.node(parts[0])), std::string(i % 5, 'x'));
        EXPECT_EQ(d.node(parts[1]).i, static_cast<std::int64_t>(i));
      }
    }
  }
}

// PUT takes any index: far apart ones, one set again, one far ahead that
// the dense part of the memo reaches later. MEMOIZE numbers len(memo).
TEST(Pickle, MemoIndicesInAnyOrder) {
  // PROTO 2, MARK; 'a' PUT 4000000000; 'b' PUT 1; GET 4000000000; GET 1;
  // 'c' PUT 1 (set again); GET 1; 'd' PUT 70000 (far ahead: the map), then
  // 70 000 memoized Nones that bring the dense part of the memo past 70000,
  // and GET 70000.
  std::string p = "\x80\x02(";
  auto binunicode = [&](char c) { p += std::string("X\x01\x00\x00\x00", 5) + c; };
  auto put = [&](std::uint32_t i) {
    p += 'r';
    for (int k = 0; k < 4; ++k) p += static_cast<char>(i >> (8 * k));
  };
  auto get = [&](std::uint32_t i) {
    p += 'j';
    for (int k = 0; k < 4; ++k) p += static_cast<char>(i >> (8 * k));
  };
  binunicode('a');
  put(4000000000u);
  binunicode('b');
  put(1);
  get(4000000000u);
  get(1);
  binunicode('c');
  put(1);
  get(1);
  binunicode('d');
  put(70000);
  p += "t(";  // the seven above as one tuple; then the Nones
  for (std::uint32_t i = 2; i < 70010; ++i) {
    if (i == 70000) continue;
    p += 'N';
    put(i);
  }
  get(70000);
  p += "t\x86.";  // TUPLE of the Nones and 'd'; TUPLE2 of both tuples
  auto doc = decode(p, "t.pickle", kNone);
  ASSERT_TRUE(doc) << doc.error().message;
  const Document& d = *doc;
  const auto both = d.items(d.node(d.root));
  ASSERT_EQ(both.size(), 2u);
  const auto first = d.items(d.node(both[0]));
  ASSERT_EQ(first.size(), 7u);
  const char* want[] = {"a", "b", "a", "b", "c", "c", "d"};
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(d.text(d.node(first[i])), want[i]) << i;
  const auto second = d.items(d.node(both[1]));
  ASSERT_EQ(second.size(), 70008u);  // 70 007 Nones and the GET
  EXPECT_EQ(d.text(d.node(second.back())), "d");
  EXPECT_EQ(second.back(), first[6]);

  // MEMOIZE stores at len(memo): after two PUTs (indices 0 and 5), index 2.
  std::string m = "\x80\x04(";
  m += std::string("\x8c\x01x", 3) + std::string("q\x00", 2);
  m += std::string("\x8c\x01y", 3) + std::string("q\x05", 2);
  m += std::string("\x8c\x01z", 3) + "\x94";
  m += std::string("h\x02", 2) + "t.";
  auto mdoc = decode(m, "t.pickle", kNone);
  ASSERT_TRUE(mdoc) << mdoc.error().message;
  const Document& md = *mdoc;
  const auto mi = md.items(md.node(md.root));
  ASSERT_EQ(mi.size(), 4u);
  EXPECT_EQ(md.text(md.node(mi[3])), "z");

  EXPECT_EQ(error_of(std::string("\x80\x02h\x07.", 4)), "t.pickle:+0x2: memo entry 7 used before it was set");
}

// The indices a GET takes, found before decoding (TakenMemo), are those
// Python's pickletools lists as BINGET and LONG_BINGET arguments, at every
// protocol that memoizes; each its rank among them. Nothing for an opcode
// the streaming readers do not decode (a float), a cut pickle, a GET far
// past every index set, or a scan told to stop.
TEST(Pickle, TakenMemoIsEveryIndexAGetTakes) {
  const std::string expression =
      "(lambda f, g, h: {'t': [(i, f if i % 3 else ('x' * (i % 5), i), g if i % 7 == 0 else i << 40) "
      "for i in range(3000)], 'g': g, 'h': (h, h)})(('a.py', 7), ['shared'], ('late', 9))";
  for (int protocol : {2, 3, 4, 5}) {
    SCOPED_TRACE(protocol);
    const std::string bytes = pickled(expression, protocol);
    const std::filesystem::path file = test::write_temp("taken.pickle", bytes);
    auto oracle = test::run({"python3", "-c",
                             "import pickletools, sys\n"
                             "data = open(sys.argv[1], 'rb').read()\n"
                             "print(' '.join(str(a) for a in sorted({arg for op, arg, pos in "
                             "pickletools.genops(data) if op.name in ('BINGET', 'LONG_BINGET')})))\n",
                             file.string()});
    ASSERT_EQ(oracle.exit_code, 0) << oracle.err;
    std::vector<std::uint64_t> want;
    std::istringstream in(oracle.out);
    for (std::uint64_t i; in >> i;) want.push_back(i);
    ASSERT_GT(want.size(), 2u);
    ASSERT_GT(want.back(), 255u);  // (LONG_BINGET too)
    const auto taken = TakenMemo::scan(bytes);
    ASSERT_TRUE(taken.has_value());
    EXPECT_EQ(taken->size(), want.size());
    std::size_t next = 0;
    for (std::uint64_t i = 0; i <= want.back() + 70; ++i) {
      const bool is_taken = next < want.size() && want[next] == i;
      ASSERT_EQ(taken->slot(i).has_value(), is_taken) << i;
      if (is_taken) {
        EXPECT_EQ(*taken->slot(i), next);
        ++next;
      }
    }
  }
  const std::string usual = pickled("[('a', 1), ('a', 1)]", 4);
  EXPECT_TRUE(TakenMemo::scan(usual).has_value());
  EXPECT_FALSE(TakenMemo::scan(pickled("[1.5, 'a', 'a']", 4)).has_value());
  EXPECT_FALSE(TakenMemo::scan(usual.substr(0, usual.size() - 1)).has_value());             // no STOP
  EXPECT_FALSE(TakenMemo::scan(std::string("\x80\x04j\x00\x00\x02\x00.", 8)).has_value());  // GET 131072
  std::string many = "\x80\x04(";
  for (int i = 0; i < 200000; ++i) many += "K\x01";
  many += "l.";
  EXPECT_FALSE(TakenMemo::scan(many).has_value());  // ('l': LIST, not decoded by the streaming readers)
  many[many.size() - 2] = 't';
  EXPECT_TRUE(TakenMemo::scan(many).has_value());
  const std::atomic<bool> stop{true};
  EXPECT_FALSE(TakenMemo::scan(many, &stop).has_value());
}

}  // namespace
}  // namespace graphgen::pickle::pickle_test
