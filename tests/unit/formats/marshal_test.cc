// The marshal decoder against hand-written byte strings: every type code a
// pstats file can hold, both reference schemes, and every rejection rule of
// docs/formats.md §1.9 with its exact message.
#include "pstats/marshal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace graphgen::marshal::marshal_test {
namespace {

using namespace std::string_literals;

Document ok(const std::string& bytes) {
  auto d = decode(bytes, "t");
  EXPECT_TRUE(d.has_value()) << (d ? "" : d.error().message);
  return d ? std::move(d).value() : Document();
}

std::string err(const std::string& bytes) {
  auto d = decode(bytes, "t");
  EXPECT_FALSE(d.has_value());
  return d ? "" : d.error().message;
}

std::string i32(std::int32_t v) {
  std::string s(4, '\0');
  for (int k = 0; k < 4; ++k) s[k] = static_cast<char>((static_cast<std::uint32_t>(v) >> (8 * k)) & 0xFF);
  return s;
}

std::string f64(double v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

TEST(Marshal, DecodesInt32SignExtended) {
  Document d = ok("i" + i32(-5));
  EXPECT_EQ(d.root().type, Type::kInt);
  EXPECT_EQ(d.root().i, -5);
}

TEST(Marshal, DecodesPython2Int64) {
  Document d = ok("I\x00\x00\x00\x00\x00\x01\x00\x00"s);  // 2**40 as written by 2.7
  EXPECT_EQ(d.root().i, std::int64_t{1} << 40);
}

TEST(Marshal, DecodesLongsAsInFormatsDoc) {
  EXPECT_EQ(ok("l\x03\x00\x00\x00\x00\x00\x00\x00\x02\x00"s).root().i, std::int64_t{1} << 31);
  EXPECT_EQ(ok("l\xfd\xff\xff\xff\x01\x00\x00\x00\x02\x00"s).root().i, -(std::int64_t{1} << 31) - 1);
  EXPECT_EQ(ok("l\x03\x00\x00\x00\x05\x00\x00\x00\x00\x04"s).root().i, (std::int64_t{1} << 40) + 5);
  EXPECT_EQ(ok("l\x00\x00\x00\x00"s).root().i, 0);
  EXPECT_EQ(ok("l\x01\x00\x00\x00\x05\x00"s).root().i, 5);  // Python 2 `5L`
}

TEST(Marshal, RejectsLongBeyondInt64) {
  // 10**20 from the formats doc.
  EXPECT_EQ(err("l\x05\x00\x00\x00\x00\x00\x20\x46\xb5\x78\x3a\x5e\x56\x00"s),
            "t:+0x0: integer does not fit in 64 bits");
}

TEST(Marshal, RejectsLongDigitOutOfRange) {
  EXPECT_EQ(err("l\x01\x00\x00\x00\x00\x80"s), "t:+0x5: digit out of range in long: 0x8000");
}

TEST(Marshal, RejectsUnnormalizedLong) {
  EXPECT_EQ(err("l\x02\x00\x00\x00\x01\x00\x00\x00"s), "t:+0x7: unnormalized long data: top digit is zero");
}

TEST(Marshal, DecodesBinaryAndTextFloats) {
  EXPECT_EQ(ok("g" + f64(0.5)).root().f, 0.5);
  EXPECT_EQ(ok("g\x8d\xed\xb5\xa0\xf7\xc6\xb0\x3e"s).root().f, 1e-6);
  EXPECT_EQ(ok("f\x16"
               "9.9999999999999995e-07")
                .root()
                .f,
            1e-6);
  EXPECT_TRUE(std::isinf(ok("f\x04-inf").root().f));
  EXPECT_TRUE(std::isnan(ok("f\x03nan").root().f));
  EXPECT_TRUE(std::signbit(ok("f\x02-0").root().f));
}

TEST(Marshal, RejectsBadTextFloat) {
  EXPECT_EQ(err("f\x03"
                "1x5"),
            "t:+0x0: expected a text float, found '1x5'");
}

TEST(Marshal, DecodesComplexBothWays) {
  EXPECT_EQ(ok("y" + f64(1.5) + f64(2.0)).root().type, Type::kComplex);
  EXPECT_EQ(ok("x\x03"
               "1.5\x01"
               "2")
                .root()
                .f,
            1.5);
}

TEST(Marshal, DecodesEveryStringKind) {
  Document u = ok("u\x08\x00\x00\x00mod\xc3\xa9.py"s);
  EXPECT_EQ(u.text(u.root()), "mod\xc3\xa9.py");
  Document s =
      ok("s\x03\x00\x00\x00"
         "abc"s);
  EXPECT_EQ(s.root().type, Type::kBytes);
  EXPECT_EQ(ok("t\x04\x00\x00\x00"
               "fact"s)
                .root()
                .type,
            Type::kStr);
  Document a = ok("a\x02\x00\x00\x00hi"s);
  EXPECT_EQ(a.text(a.root()), "hi");
  Document big = ok("A\x02\x00\x00\x00hi"s);
  EXPECT_EQ(big.text(big.root()), "hi");
  Document z = ok("Z\x01~"s);
  EXPECT_EQ(z.text(z.root()), "~");
}

TEST(Marshal, ShortAsciiIsReadAsLatin1) {
  // CPython does not check 'z' strings are ASCII: the bytes are Latin-1.
  Document d = ok("z\x03\x61\xe9\x62"s);
  EXPECT_EQ(d.text(d.root()),
            "a\xc3\xa9"
            "b");
}

TEST(Marshal, KeepsLoneSurrogatesFromSurrogatepass) {
  Document d = ok("u\x03\x00\x00\x00\xed\xb3\xbf"s);
  EXPECT_EQ(d.text(d.root()), "\xed\xb3\xbf");
}

TEST(Marshal, RejectsInvalidUtf8) {
  EXPECT_EQ(err("u\x02\x00\x00\x00\xc3\x28"s), "t:+0x0: invalid UTF-8 in marshal string '\\xc3('");
  EXPECT_EQ(err("u\x02\x00\x00\x00\xc0\x80"s), "t:+0x0: invalid UTF-8 in marshal string '\\xc0\\x80'");
}

TEST(Marshal, DecodesContainers) {
  Document t = ok("(\x02\x00\x00\x00i\x01\x00\x00\x00N"s);
  EXPECT_EQ(t.root().type, Type::kTuple);
  ASSERT_EQ(t.children(t.root()).size(), 2u);
  EXPECT_EQ(t.node(t.children(t.root())[1]).type, Type::kNone);
  EXPECT_EQ(ok(")\x00"s).root().type, Type::kTuple);
  EXPECT_EQ(ok("[\x01\x00\x00\x00T"s).root().type, Type::kList);
  EXPECT_EQ(ok("<\x01\x00\x00\x00"
               "F"s)
                .root()
                .type,
            Type::kSet);
  EXPECT_EQ(ok(">\x00\x00\x00\x00"s).root().type, Type::kFrozenSet);
  EXPECT_EQ(ok(":NNN"s).root().type, Type::kSlice);
  EXPECT_EQ(ok("S"s).root().type, Type::kStopIteration);
  EXPECT_EQ(ok("."s).root().type, Type::kEllipsis);
  Document d =
      ok("{z\x01ki\x02\x00\x00\x00"
         "0"s);
  EXPECT_EQ(d.root().type, Type::kDict);
  EXPECT_EQ(d.children(d.root()).size(), 2u);
}

TEST(Marshal, FlaggedSingletonsTakeNoReferenceSlot) {
  // ) 03 ce e9 05000000 r 00000000 decodes to (None, 5, 5).
  Document d = ok(")\x03\xce\xe9\x05\x00\x00\x00r\x00\x00\x00\x00"s);
  auto items = d.children(d.root());
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(d.node(items[0]).type, Type::kNone);
  EXPECT_EQ(d.node(items[2]).i, 5);
}

TEST(Marshal, ReferencesShareEarlierObjects) {
  // A flagged tuple's slot is taken before its items: ref #0 is the tuple,
  // #1 the string.
  Document d =
      ok("\xa9\x02\xfa\x01"
         "a)\x01r\x01\x00\x00\x00"s);
  auto items = d.children(d.root());
  auto inner = d.children(d.node(items[1]));
  EXPECT_EQ(d.text(d.node(inner[0])), "a");
}

TEST(Marshal, Python2InternedStringsAndStringRefs) {
  Document d =
      ok("(\x02\x00\x00\x00t\x04\x00\x00\x00"
         "factR\x00\x00\x00\x00"s);
  auto items = d.children(d.root());
  EXPECT_EQ(d.text(d.node(items[1])), "fact");
}

TEST(Marshal, DecodesFormatsDocVersion2Example) {
  std::string v2 =
      "{(\x03\x00\x00\x00u\x0a\x00\x00\x00/tmp/\xc3\xa9.pyi\x03\x00\x00\x00u\x01\x00\x00\x00"
      "f(\x05\x00\x00\x00i\x01\x00\x00\x00i\x02\x00\x00\x00g\x00\x00\x00\x00\x00\x00\xe0\x3f"
      "g\x00\x00\x00\x00\x00\x00\xf4\x3f{(\x03\x00\x00\x00u\x01\x00\x00\x00~i\x00\x00\x00\x00"
      "u\x1e\x00\x00\x00<built-in method builtins.len>(\x04\x00\x00\x00i\x02\x00\x00\x00"
      "i\x01\x00\x00\x00g\x00\x00\x00\x00\x00\x00\xe0\x3fg\x00\x00\x00\x00\x00\x00\xe0\x3f"
      "00"s;
  Document d = ok(v2);
  auto top = d.children(d.root());
  ASSERT_EQ(top.size(), 2u);
  auto key = d.children(d.node(top[0]));
  EXPECT_EQ(d.text(d.node(key[0])), "/tmp/\xc3\xa9.py");
  auto value = d.children(d.node(top[1]));
  EXPECT_EQ(d.node(value[3]).f, 1.25);
}

TEST(Marshal, DecodesFormatsDocVersion4ExampleWithReferences) {
  // In v4 the callers tuple (2, 1, 0.5, 0.5) is written as references only.
  std::string v4 =
      "\xfb)\x03\xf5\x0a\x00\x00\x00/tmp/\xc3\xa9.py\xe9\x03\x00\x00\x00\xda\x01"
      "f)\x05"
      "\xe9\x01\x00\x00\x00\xe9\x02\x00\x00\x00\xe7\x00\x00\x00\x00\x00\x00\xe0\x3f"
      "\xe7\x00\x00\x00\x00\x00\x00\xf4\x3f{\xa9\x03\xfa\x01~\xe9\x00\x00\x00\x00"
      "\xfa\x1e<built-in method builtins.len>\xa9\x04r\x05\x00\x00\x00r\x04\x00\x00\x00"
      "r\x06\x00\x00\x00r\x06\x00\x00\x00"
      "00"s;
  Document d = ok(v4);
  auto top = d.children(d.root());
  auto callers = d.children(d.node(d.children(d.node(top[1]))[4]));
  auto stats = d.children(d.node(callers[1]));
  ASSERT_EQ(stats.size(), 4u);
  EXPECT_EQ(d.node(stats[0]).i, 2);
  EXPECT_EQ(d.node(stats[1]).i, 1);
  EXPECT_EQ(d.node(stats[2]).f, 0.5);
}

TEST(Marshal, IgnoresTrailingBytesButCountsThem) {
  Document d = ok("NXYZ"s);
  EXPECT_EQ(d.trailing_bytes(), 3u);
}

TEST(Marshal, RejectsTruncation) {
  EXPECT_EQ(err(""s), "t:+0x0: truncated marshal data: need 1 byte for a type code, 0 left");
  EXPECT_EQ(err("i\x01\x00"s), "t:+0x1: truncated marshal data: need 4 bytes for an int, 2 left");
  EXPECT_EQ(err("u\x05\x00\x00\x00"
                "ab"s),
            "t:+0x5: truncated marshal data: need 5 bytes for a string, 2 left");
  EXPECT_EQ(err("{z\x01ki\x01\x00\x00\x00"s), "t:+0x9: truncated marshal data: need 1 byte for a type code, 0 left");
}

TEST(Marshal, RejectsSizesLargerThanTheInputBeforeAllocating) {
  EXPECT_EQ(err("(\xff\xff\xff\x7f"s),
            "t:+0x0: truncated marshal data: tuple of 2147483647 items needs at least 2147483647 bytes, 0 left");
  EXPECT_EQ(err("[\xff\xff\xff\xff"s), "t:+0x0: negative list size -1");
  EXPECT_EQ(err("u\xff\xff\xff\xff"s), "t:+0x0: negative string size -1");
}

TEST(Marshal, RejectsUnknownTypeCodes) {
  EXPECT_EQ(err("Q"s), "t:+0x0: unknown marshal type code 0x51 ('Q')");
  EXPECT_EQ(err("\x01"s), "t:+0x0: unknown marshal type code 0x01");
  EXPECT_EQ(err("?"s), "t:+0x0: marshal UNKNOWN object ('?', 0x3f): the writer failed to dump a value");
}

TEST(Marshal, RejectsNullOutsideDictKeys) {
  EXPECT_EQ(err("(\x01\x00\x00\x00"
                "0"s),
            "t:+0x5: NULL object (0x30) where a value was expected");
  EXPECT_EQ(err("{N0"s), "t:+0x2: NULL object (0x30) where a value was expected");
  EXPECT_EQ(err("{\xb0"s), "t:+0x1: FLAG_REF set on NULL (0xb0)");
}

TEST(Marshal, RejectsBadReferences) {
  EXPECT_EQ(err("r\x00\x00\x00\x00"s), "t:+0x0: bad reference r#0: only 0 objects are flagged so far");
  EXPECT_EQ(err("r\xff\xff\xff\xff"s), "t:+0x0: bad reference r#-1: only 0 objects are flagged so far");
  EXPECT_EQ(err("\xa9\x02\xe9\x05\x00\x00\x00r\x00\x00\x00\x00"s),
            "t:+0x7: bad reference r#0: the object is still being read (cyclic data)");
  EXPECT_EQ(err("R\x00\x00\x00\x00"s), "t:+0x0: bad string reference R#0: only 0 interned strings so far");
}

TEST(Marshal, RejectsUnhashableDictKeys) {
  EXPECT_EQ(err("{[\x00\x00\x00\x00N0"s), "t:+0x1: unhashable dict key (list)");
  EXPECT_EQ(err("{)\x01{0N0"s), "t:+0x1: unhashable dict key (tuple)");
}

TEST(Marshal, CapsNesting) {
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += ")\x01"s;
  deep += "N";
  EXPECT_EQ(err(deep), "t:+0x82: marshal data nested deeper than 64 levels");
}

// A Python 3.11 code object for `def f(): pass` in "m.py", line 7: five
// ints, code, consts, names, localsplusnames, localspluskinds, filename,
// name, qualname, firstlineno, linetable, exceptiontable.
std::string code311(const std::string& name, const std::string& file, std::int32_t line) {
  return "\xe3"s + i32(0) + i32(0) + i32(0) + i32(1) + i32(3) + "s\x02\x00\x00\x00\x97\x00"s + ")\x01N"s + ")\x00"s +
         ")\x00"s + "s\x00\x00\x00\x00"s + "z" + std::string(1, static_cast<char>(file.size())) + file + "z" +
         std::string(1, static_cast<char>(name.size())) + name + "z" + std::string(1, static_cast<char>(name.size())) +
         name + i32(line) + "s\x00\x00\x00\x00"s + "s\x00\x00\x00\x00"s;
}

// The same function as Python 2.7 writes it.
std::string code27(const std::string& name, const std::string& file, std::int32_t line) {
  return "c"s + i32(0) + i32(0) + i32(1) + i32(67) + "s\x04\x00\x00\x00\x64\x00\x00\x53"s + "(\x01\x00\x00\x00N"s +
         "(\x00\x00\x00\x00"s + "(\x00\x00\x00\x00"s + "(\x00\x00\x00\x00"s + "(\x00\x00\x00\x00"s + "s" +
         i32(static_cast<std::int32_t>(file.size())) + file + "t" + i32(static_cast<std::int32_t>(name.size())) + name +
         i32(line) + "s\x00\x00\x00\x00"s;
}

TEST(Marshal, ReducesPython311CodeObjectsToTheirLabel) {
  Document d = ok(")\x02"s + code311("f", "m.py", 7) + "r\x00\x00\x00\x00"s);
  auto items = d.children(d.root());
  EXPECT_EQ(d.node(items[0]).type, Type::kCode);
  EXPECT_EQ(d.text(d.node(items[0])), "<code object f, file \"m.py\", line 7>");
  EXPECT_EQ(items[0], items[1]);  // the reference is the code object
}

TEST(Marshal, ReducesPython27CodeObjectsToTheirLabel) {
  Document d = ok(code27("<module>", "rec.py", 1));
  EXPECT_EQ(d.text(d.root()), "<code object <module>, file \"rec.py\", line 1>");
}

TEST(Marshal, RejectsCodeObjectsOfNoKnownLayout) {
  std::string msg = err("c"s + i32(0) + "Q");
  EXPECT_TRUE(msg.starts_with("t:+0x0: cannot read code object as written by Python 2.7 or 3.6-3.13")) << msg;
}

}  // namespace
}  // namespace graphgen::marshal::marshal_test
